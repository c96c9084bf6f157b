import { Keypair, Networks } from "@stellar/stellar-sdk";
import { pino } from "pino";
import { loadConfig, type ExporterConfig } from "../config/config.js";
import { startExporter } from "../exporter.js";
import { startSimulator, type Simulator } from "../simulator/index.js";
import { withProbeAccount, txProbeWith, TX_PROBE_DEFAULTS } from "../config/tx-probe.js";
import { waitForShutdownSignal } from "./signals.js";

const DEMO_SIMULATOR_PORT = 8000;
const DEMO_EXPORTER_ADDRESS = "127.0.0.1:9915";

/**
 * The offline demo: the Horizon simulator plus an exporter polling it every 10 s, both on
 * loopback. Extra arguments go to the exporter (e.g. --web.listen-address, --log.level).
 */
export async function runDemoCommand(argv: string[]): Promise<number> {
  const simulatorPort = Number(process.env.DEMO_SIMULATOR_PORT ?? DEMO_SIMULATOR_PORT);
  let simulator;
  try {
    simulator = await startSimulator({ host: "127.0.0.1", port: simulatorPort, networkPassphrase: Networks.TESTNET });
  } catch (error) {
    process.stderr.write(`demo: cannot start the simulator on 127.0.0.1:${simulatorPort}: ${(error as Error).message} (set DEMO_SIMULATOR_PORT)\n`);
    return 2;
  }
  const command = await loadConfig(
    [`--horizon.url=simulator=${simulator.url}`, "--poll.interval=10s", `--web.listen-address=${DEMO_EXPORTER_ADDRESS}`, "--log.level=warn", ...argv],
    {},
  );
  if (command.kind !== "run") {
    await simulator.close();
    if (command.kind === "invalid") for (const problem of command.problems) process.stderr.write(`demo: ${problem}\n`);
    return command.kind === "invalid" ? 2 : 0;
  }
  const config = withDemoProbe(command.config, simulator.simulator);
  let exporter;
  try {
    exporter = await startExporter(config, { logger: pino({ level: command.config.logLevel }) });
  } catch (error) {
    await simulator.close();
    process.stderr.write(`demo: cannot start the exporter: ${(error as Error).message} (pass --web.listen-address=HOST:PORT)\n`);
    return 2;
  }
  process.stdout.write(
    [
      "stellar-horizon-exporter demo: exporter polling the built-in Horizon simulator (offline).",
      `  metrics:      ${exporter.url}/metrics`,
      `  landing page: ${exporter.url}/`,
      `  simulator:    ${simulator.url}/  (state: ${simulator.url}/_sim/state)`,
      `  change scenario: curl -X POST ${simulator.url}/_sim/scenario/fee_spike`,
      "Press Ctrl+C to stop.",
      "",
    ].join("\n"),
  );
  await waitForShutdownSignal();
  await Promise.all([exporter.close(), simulator.close()]);
  return 0;
}

/** Lumens the simulator gives the demo probe's freshly generated account. */
const DEMO_PROBE_FUNDS_STROOPS = 10_000n * 10_000_000n;

/**
 * The demo probes its simulator (a testnet, so no lumens are real) from a key generated for this
 * run and funded by the simulator, every 15 s so the probe panels fill quickly.
 */
function withDemoProbe(config: ExporterConfig, simulator: Simulator): ExporterConfig {
  const signer = Keypair.random();
  simulator.accounts.add({ id: signer.publicKey(), balance: DEMO_PROBE_FUNDS_STROOPS }, simulator.latestLedgerPoint());
  const txProbe = txProbeWith(signer, { interval: "15s", maxFee: TX_PROBE_DEFAULTS.maxFee, allowPubnet: false });
  return {
    ...config,
    targets: config.targets.map((target) => ({ ...target, txProbe, accounts: withProbeAccount(target.accounts, txProbe.accountId) })),
  };
}
