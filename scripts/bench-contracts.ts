/**
 * The contracts part of `npm run bench` (issue 33): the exporter's CPU for a contracts poll of
 * 10 000 keys, 50 getLedgerEntries calls, measured from outside its process as the pools poll is.
 * Run as a script (`node --import tsx scripts/bench-contracts.ts serve`), this file is the upstream:
 * a simulator whose RPC serves the contracts, counting getLedgerEntries calls, printing one JSON
 * line with its URL; /_bench/contracts lists the contracts to watch, /_bench/polls the calls of each poll,
 * /_bench/bodies the last poll's getLedgerEntries answers.
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { MAX_KEYS_PER_CALL } from "../src/client/ledger-entries.js";
import { stateArchivalKey } from "../src/client/ledger-keys.js";
import { listen } from "../src/server/listen.js";
import { createSimulator, RPC_PATH } from "../src/simulator/index.js";
import type { DemoContract } from "../src/simulator/contracts.js";
import { LastBodies, parseFloorMs } from "./bench-floor.js";

/**
 * 10 000 keys: the state-archival setting, 99 contracts' instances, their one shared code entry,
 * and 9 899 storage entries (100 for 98 contracts, 99 for the last).
 */
const CONTRACTS = 99;
const KEYS = 10_000;
const STORAGE_KEYS = KEYS - 1 - CONTRACTS - 1;
const CALLS_PER_POLL = Math.ceil(KEYS / MAX_KEYS_PER_CALL);
/** Polls start this far apart; a poll of 50 calls takes well under it. */
const POLL_SECONDS = 3;
const WARM_UP_POLLS = 3;
const MEASURED_POLLS = 20;
/** TTLs of months, as a healthy contract's are. */
const TTLS = { instance: 3_000_000, code: 2_500_000, storage: 2_073_600 } as const;

/** What bench.ts lends: its child processes and their CPU clock. */
export interface BenchTools {
  startChild(args: string[], env?: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }>;
  /** An exporter started as npm start starts it, reading this config file. */
  startExporter(config: Record<string, unknown>): Promise<{ url: string; child: ChildProcess }>;
  stop(child: ChildProcess): void;
  cpuMsOf(child: ChildProcess): number;
  /** tsx's loader, to run this file as the upstream. */
  readonly tsx: string;
}

async function serve(): Promise<void> {
  const simulator = createSimulator({ ledgerIntervalMs: 1000, seed: 42 });
  const at = simulator.latestLedgerPoint();
  const contracts: DemoContract[] = [];
  for (let index = 0; index < CONTRACTS; index += 1) {
    const count = Math.floor(STORAGE_KEYS / CONTRACTS) + (index < STORAGE_KEYS % CONTRACTS ? 1 : 0);
    contracts.push(
      simulator.contracts.addWasmContract(
        `bench${index}`,
        Array.from({ length: count }, (_, key) => `K${key}`),
        at,
        TTLS,
      ),
    );
  }
  /**
   * getLedgerEntries calls per poll. A poll starts with the call holding the state-archival setting's
   * key, the first of its keys: on a loaded machine one poll may follow the last without a pause.
   */
  const polls: number[] = [];
  const firstKey = JSON.stringify(stateArchivalKey());
  const answers = new LastBodies(CALLS_PER_POLL);
  const app = new Hono();
  app.get("/_bench/polls", (c) => c.json(polls));
  app.get("/_bench/bodies", (c) => c.json(answers.list()));
  app.get("/_bench/contracts", (c) => c.json(contracts));
  app.use(RPC_PATH, async (c, next) => {
    const request = await c.req.raw.clone().text();
    const entries = request.includes('"getLedgerEntries"');
    if (entries) {
      if (request.includes(firstKey) || polls.length === 0) polls.push(0);
      polls[polls.length - 1]! += 1;
    }
    await next();
    if (entries) await answers.note(c.res);
  });
  app.route("/", simulator.app);
  const { url } = await listen(app, "127.0.0.1", 0);
  process.stdout.write(`${JSON.stringify({ url })}\n`);
}

/** The getLedgerEntries calls of each poll the upstream has seen. */
async function pollsSeen(url: string): Promise<number[]> {
  return (await (await fetch(`${url}/_bench/polls`)).json()) as number[];
}

/** Waits until poll `poll` (from 0) has sent its first call. */
async function pollStarts(url: string, poll: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const seen = (await pollsSeen(url)).length;
    if (seen > poll) return;
    if (Date.now() > deadline)
      throw new Error(`contracts poll ${poll} did not start within 2 minutes (${seen} polls seen)`);
    await new Promise((done) => setTimeout(done, 2));
  }
}

/**
 * The exporter's CPU per contracts poll of 10 000 keys (read, validate, judge, sample, render,
 * publish), read from /proc between the starts of polls after three warm-up polls.
 */
export async function contractsPollCost(tools: BenchTools) {
  process.stdout.write(`bench: contracts poll cost, ${KEYS} keys, ${MEASURED_POLLS} polls of the exporter's\n`);
  const source = await tools.startChild(["--import", tools.tsx, "scripts/bench-contracts.ts", "serve"]);
  const contracts = (await (await fetch(`${source.url}/_bench/contracts`)).json()) as DemoContract[];
  const target = {
    name: "big",
    url: `${source.url}${RPC_PATH}`,
    timeout: "60s",
    contracts: contracts.map(({ name, id, keys }) => ({ name, id, keys })),
  };
  const exporter = await tools.startExporter({
    rpc_targets: [target],
    poll_interval: "1h",
    schedules: { contracts: `${POLL_SECONDS}s` },
  });
  await pollStarts(source.url, WARM_UP_POLLS);
  const cpuBefore = tools.cpuMsOf(exporter.child);
  await pollStarts(source.url, WARM_UP_POLLS + MEASURED_POLLS);
  const cpuMs = tools.cpuMsOf(exporter.child) - cpuBefore;
  const metrics = await (await fetch(`${exporter.url}/metrics`)).text();
  tools.stop(exporter.child);
  const floor = await parseFloorMs(`${source.url}/_bench/bodies`);
  // The calls of every measured poll, counted at the upstream: exactly 50 each.
  const polls = await pollsSeen(source.url);
  tools.stop(source.child);
  const measured = polls.slice(WARM_UP_POLLS, WARM_UP_POLLS + MEASURED_POLLS);
  if (measured.some((count) => count !== CALLS_PER_POLL))
    throw new Error(`contracts polls sent ${measured.join(", ")} getLedgerEntries calls, not ${CALLS_PER_POLL}`);
  const failed =
    /^stellar_horizon_exporter_rpc_poll_errors_total\{rpc="big",endpoint="contracts",reason="[^"]+"\} ([1-9]\d*)$/m.exec(
      metrics,
    );
  if (failed) throw new Error(`contracts polls failed while measured: ${failed[0]}`);
  return {
    keys: KEYS,
    callsPerPoll: CALLS_PER_POLL,
    cpuMsPerPoll: cpuMs / MEASURED_POLLS,
    cpuMsPer1000Keys: cpuMs / MEASURED_POLLS / (KEYS / 1000),
    parseFloorMsPer1000Keys: floor.cpuMs / (KEYS / 1000),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "serve") await serve();
