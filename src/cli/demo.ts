import { Keypair, Networks } from "@stellar/stellar-base";
import { pino } from "pino";
import { loadConfig, type ExporterConfig } from "../config/config.js";
import type { WatchedContract } from "../config/contracts.js";
import { startExporter } from "../exporter.js";
import {
  DEMO_CORRIDORS,
  DEMO_RPC_WATCHED_ACCOUNTS,
  DEMO_WATCHED_ASSETS,
  DEMO_WATCHED_ACCOUNTS,
  DEMO_WATCHED_MARKETS,
  RPC_PATH,
  SIMULATOR_REQUESTS_PER_HOUR,
  startSimulator,
  type RunningSimulator,
  type Simulator,
} from "../simulator/index.js";
import { TargetUrl } from "../config/target-url.js";
import { withTxProbe, txProbeWith, TX_PROBE_DEFAULTS } from "../config/tx-probe.js";
import { waitForShutdownSignal } from "./signals.js";
import { answeredHelp, reportProblems } from "./usage.js";

const DEMO_SIMULATOR_PORT = 8000;
const DEMO_EXPORTER_ADDRESS = "127.0.0.1:9619";
const SIMULATOR_TARGET = "simulator";
/** A second simulator of the same network that forks from it a few minutes in: the agreement check blames it. */
const FORK_TARGET = "fork";
/** Ledgers (5 to 7 s each) the fork agrees with the network before it serves other hashes. */
const FORK_AFTER_LEDGERS = 20;

const USAGE = `Usage: stellar-horizon-exporter demo [EXPORTER FLAGS]

The offline demo: the Horizon simulator plus an exporter polling it (its Horizon, and its Stellar
RPC at /rpc) every 10 s, both on loopback, and a second simulator of the same network, polled as
"${FORK_TARGET}", that forks from it about two minutes in.
Runs until SIGINT or SIGTERM.

Exporter flags (see stellar-horizon-exporter --help) override the demo's, e.g.
  --web.listen-address=HOST:PORT  where the exporter listens (default ${DEMO_EXPORTER_ADDRESS})
  --log.level=LEVEL               the exporter's log level (default warn)

Environment:
  DEMO_SIMULATOR_PORT=PORT        the simulator's port on 127.0.0.1 (default ${DEMO_SIMULATOR_PORT}; 0 picks a free one)
`;

function simulatorPort(): number | string {
  const text = process.env.DEMO_SIMULATOR_PORT ?? "";
  if (text === "") return DEMO_SIMULATOR_PORT;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  return port <= 65_535 ? port : `DEMO_SIMULATOR_PORT: "${text}" is not a port number from 0 to 65535`;
}

/** Flags and variables are checked before anything starts, with a stand-in URL: the simulator may pick its port. */
export async function runDemoCommand(argv: string[]): Promise<number> {
  const port = simulatorPort();
  const command = await loadConfig(
    [
      `--horizon.url=${SIMULATOR_TARGET}=http://127.0.0.1:${DEMO_SIMULATOR_PORT}`,
      `--rpc.url=${SIMULATOR_TARGET}=http://127.0.0.1:${DEMO_SIMULATOR_PORT}${RPC_PATH}`,
      `--horizon.url=${FORK_TARGET}=http://127.0.0.1:${DEMO_SIMULATOR_PORT + 1}`,
      "--poll.interval=10s",
      `--web.listen-address=${DEMO_EXPORTER_ADDRESS}`,
      "--log.level=warn",
      ...argv,
    ],
    {},
  );
  if (answeredHelp(command, USAGE, process.stdout)) return 0;
  if (command.kind === "invalid" || typeof port === "string") {
    const problems = [typeof port === "string" ? [port] : [], command.kind === "invalid" ? command.problems : []];
    reportProblems(process.stderr, "demo", problems.flat(), command.kind === "invalid" && command.usage);
    return 2;
  }

  const simulators = await startSimulators(port);
  if (simulators === undefined) return 1;
  const { simulator, fork, forkAt } = simulators;
  const config = withDemoProbe(demoConfig(command.config, simulator, fork), [simulator.simulator, fork.simulator]);
  const exporter = await startExporter(config, { logger: pino({ level: config.logLevel }) }).catch(
    async (error: Error) => {
      await Promise.all([simulator.close(), fork.close()]);
      return startFailed(`exporter: ${error.message} (pass --web.listen-address=HOST:PORT)`);
    },
  );
  if (exporter === undefined) return 1;
  process.stdout.write(demoBanner(exporter.url, simulator.url, fork.url, forkAt));
  await waitForShutdownSignal();
  await Promise.all([exporter.close(), simulator.close(), fork.close()]);
  return 0;
}

function startFailed(problem: string): undefined {
  reportProblems(process.stderr, "demo", [problem], false);
  return undefined;
}

/** The simulator and its fork, listening; undefined, with the problem reported, when one cannot start. */
async function startSimulators(port: number) {
  const network = { networkPassphrase: Networks.TESTNET, networkStartMs: Date.now() };
  const simulator = await startSimulator({ host: "127.0.0.1", port, ...network }).catch((error: Error) =>
    startFailed(`simulator: ${error.message} (set DEMO_SIMULATOR_PORT)`),
  );
  if (simulator === undefined) return undefined;
  const forkAt = simulator.simulator.state().historyLatestLedger + FORK_AFTER_LEDGERS;
  const fork = await startSimulator({ host: "127.0.0.1", port: 0, ...network, forkAt }).catch(async (error: Error) => {
    await simulator.close();
    return startFailed(`forked simulator: ${error.message}`);
  });
  return fork && { simulator, fork, forkAt };
}

/** The demo's configuration with the simulators' real URLs, and their demo accounts and contracts unless given. */
function demoConfig(config: ExporterConfig, simulator: RunningSimulator, fork: RunningSimulator): ExporterConfig {
  // The simulator allows a private deployment's quota, not the public Horizon's 3600 an hour.
  const requestBudgetPerHour = SIMULATOR_REQUESTS_PER_HOUR;
  const or = <T>(given: readonly T[], demo: readonly T[]) => (given.length > 0 ? given : demo);
  return {
    ...config,
    targets: config.targets.map((target) => {
      if (target.name === FORK_TARGET) return { ...target, url: new TargetUrl(fork.url), requestBudgetPerHour };
      if (target.name !== SIMULATOR_TARGET) return target;
      // Its demo watch lists unless --account, --asset or --market give others; corridors through its order book.
      return {
        ...target,
        url: new TargetUrl(simulator.url),
        requestBudgetPerHour,
        accounts: or(target.accounts, DEMO_WATCHED_ACCOUNTS),
        assets: or(target.assets, DEMO_WATCHED_ASSETS),
        markets: or(target.markets, DEMO_WATCHED_MARKETS),
        corridors: DEMO_CORRIDORS,
      };
    }),
    // Its wallets, and its demo contracts (the wasm one with its storage key), unless --account or --contract say so.
    rpcTargets: config.rpcTargets.map((target) => {
      if (target.name !== SIMULATOR_TARGET) return target;
      return {
        ...target,
        url: new TargetUrl(`${simulator.url}${RPC_PATH}`),
        accounts: or(target.accounts, DEMO_RPC_WATCHED_ACCOUNTS),
        contracts: or(target.contracts, demoContracts(simulator.simulator)),
      };
    }),
  };
}

function demoBanner(exporterUrl: string, simulatorUrl: string, forkUrl: string, forkAt: number): string {
  const post = `curl -X POST ${simulatorUrl}/_sim/scenario`;
  return `stellar-horizon-exporter demo: exporter polling the built-in Horizon simulator (offline).
  metrics:      ${exporterUrl}/metrics
  landing page: ${exporterUrl}/
  simulator:    ${simulatorUrl}/  (state: ${simulatorUrl}/_sim/state)
  stellar rpc:  ${simulatorUrl}${RPC_PATH}  (JSON-RPC, same ledgers)
  fork:         ${forkUrl}/  (the same network, other hashes from ledger ${forkAt} on: \
the "${FORK_TARGET}" target disagrees)
  change scenario: ${post}/fee_spike  (or account_drain, deposits_stopped, signer_change, rpc_lagging, ...)
  markets:      usdx-usdc (peg 1) and xlm-usdc, with their maker; a depeg, then a maker that stops quoting:
                ${post}/stablecoin_depeg  (then maker_stops_quoting)
  contracts:    counter (wasm, with its storage entry) and usdc (Stellar Asset Contract); archival in about 4 minutes:
                ${post}/contract_expiring
                events (transfer, mint); the counter falls silent with contract_silent, upgrades with:
                ${post}/contract_upgrade
  assets:       USDC and DEMO; DEMO is minted and its flags change with:
                ${post}/asset_mint
  corridors:    usdc-to-xlm and xlm-for-eurc; usdc-to-xlm loses its path for 2 minutes, then comes back dearer:
                ${post}/corridor_drain
Press Ctrl+C to stop.
`;
}

/** The simulator's demo contracts as the demo watches them, events included; the counter, which emits every other
 * ledger, is expected to emit within a minute, so `contract_silent` fires StellarContractSilent. */
export function demoContracts(simulator: Simulator): WatchedContract[] {
  return simulator.contracts.demo.map(({ name, id, keys }) => ({
    name,
    id,
    keys: keys.map((key) => ({ ...key, durability: "persistent" as const })),
    events: true,
    ...(name === "counter" ? { expectEventsWithinSeconds: 60 } : {}),
  }));
}

/** Lumens the simulator gives the demo probe's freshly generated account. */
const PROBE_FUNDS_STROOPS = 10_000n * 10_000_000n;

/** The demo probes its simulators (a testnet, so no lumens are real) from a key generated for this run and funded by
 * each simulator, every 15 s so the probe panels fill quickly. */
export function withDemoProbe(config: ExporterConfig, simulators: readonly Simulator[]): ExporterConfig {
  const signer = Keypair.random();
  for (const simulator of simulators)
    simulator.accounts.add({ id: signer.publicKey(), balance: PROBE_FUNDS_STROOPS }, simulator.latestLedgerPoint());
  const txProbe = txProbeWith(signer, { interval: "15s", maxFee: TX_PROBE_DEFAULTS.maxFee, allowPubnet: false });
  return { ...config, targets: config.targets.map((target) => withTxProbe(target, txProbe)) };
}
