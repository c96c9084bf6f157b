/**
 * The demo's setup (simulator + exporter on loopback) driven through simulated time, so the
 * landing page shows a full 30-minute history within seconds: for the browser test and the
 * README screenshot. Both processes share one clock that only moves when told.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Networks } from "@stellar/stellar-base";
import { pino } from "pino";
import { demoContracts, withDemoProbe } from "../src/cli/demo.js";
import { systemClock, type Clock } from "../src/clock.js";
import { loadConfig } from "../src/config/config.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import {
  DEMO_RPC_WATCHED_ACCOUNTS,
  DEMO_WATCHED_ACCOUNTS,
  RPC_PATH,
  startSimulator,
  type RunningSimulator,
  type ScenarioName,
} from "../src/simulator/index.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Headless, offline and stateless: nothing but the page is fetched, nothing is kept. */
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--hide-scrollbars",
];

/** Runs Chromium on a fresh profile; resolves with its standard output. */
export async function chromium(args: readonly string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), "she-chromium-"));
  try {
    const { stdout } = await promisify(execFile)(CHROMIUM, [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, ...args], {
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

export interface LandingDemo {
  readonly exporter: RunningExporter;
  readonly simulator: RunningSimulator;
  close(): Promise<void>;
}

export interface LandingDemoOptions {
  /** Simulated minutes to run, ending at the real current time. */
  readonly minutes: number;
  readonly stepMs?: number;
  /** Scenario by simulated minute since the start; `healthy` before the first. */
  readonly scenarios?: ReadonlyArray<readonly [minute: number, scenario: ScenarioName]>;
  /** Shown as each endpoint's schedule; the demo polls once per simulated step instead. */
  readonly pollInterval?: string;
}

export async function startLandingDemo(options: LandingDemoOptions): Promise<LandingDemo> {
  const stepMs = options.stepMs ?? 10_000;
  const startMs = Date.now() - options.minutes * 60_000;
  let elapsedMs = 0;
  const now = () => startMs + elapsedMs;
  // Simulated time for every reading of the clock; timers stay real, so nothing waits forever.
  const clock: Clock = { ...systemClock, now };
  const simulator = await startSimulator({
    host: "127.0.0.1",
    port: 0,
    seed: 7,
    now,
    networkPassphrase: Networks.TESTNET,
  });
  const command = await loadConfig(
    [
      `--horizon.url=simulator=${simulator.url}`,
      // The same network through the simulator's Stellar RPC, on a card of its own.
      `--rpc.url=simulator=${simulator.url}${RPC_PATH}`,
      `--poll.interval=${options.pollInterval ?? "1h"}`,
      "--web.listen-address=127.0.0.1:0",
      "--log.level=fatal",
    ],
    {},
  );
  if (command.kind !== "run") throw new Error(`demo config rejected: ${JSON.stringify(command)}`);
  // The simulator's hot and cold wallets watched (through its Horizon and its Stellar RPC), its demo
  // contracts too, and its network probed, as the demo does.
  const config = withDemoProbe(
    {
      ...command.config,
      targets: command.config.targets.map((target) => ({ ...target, accounts: DEMO_WATCHED_ACCOUNTS })),
      rpcTargets: command.config.rpcTargets.map((target) => ({
        ...target,
        accounts: DEMO_RPC_WATCHED_ACCOUNTS,
        contracts: demoContracts(simulator.simulator),
      })),
    },
    [simulator.simulator],
  );
  const exporter = await startExporter(config, { logger: pino({ level: "silent" }), clock });
  await exporter.firstPolls;
  // The probe's submission is answered once a later ledger is ingested, i.e. once simulated time
  // moves on: each step lets a run reach the simulator, moves time, polls, and collects the answer.
  let probe: Promise<void> | undefined;
  const held = () => simulator.simulator.state().heldSubmissions > 0;
  const advance = async () => {
    elapsedMs += stepMs;
    await exporter.pollAll();
    if (!held()) await probe;
  };
  const step = async () => {
    probe ??= exporter.probeAll().finally(() => (probe = undefined));
    const submittedOrDone = Date.now() + 5_000;
    while (probe !== undefined && !held() && Date.now() < submittedOrDone)
      await new Promise((done) => setTimeout(done, 5));
    await advance();
  };
  const scenarios = [...(options.scenarios ?? [])];
  while (elapsedMs < options.minutes * 60_000) {
    const due = scenarios.filter(([minute]) => minute * 60_000 <= elapsedMs);
    if (due.length > 0) simulator.simulator.setScenario(due.at(-1)![1]);
    scenarios.splice(0, due.length);
    await step();
  }
  // Nothing may change once the demo is handed over: the last submission is answered first
  // (Horizon times a held one out after 30 s).
  for (let extra = 0; probe !== undefined && extra < 10; extra++) await advance();
  if (probe !== undefined) throw new Error("the demo's last probe run was never answered");
  return {
    exporter,
    simulator,
    close: async () => {
      await exporter.close();
      await simulator.close();
    },
  };
}
