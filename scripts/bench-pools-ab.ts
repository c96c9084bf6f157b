/**
 * Collector-only A/B of the liquidity pools poll: the pools collector and its Horizon client of
 * each given tree's dist/, in a process of its own (no store, no scheduler), against one simulated
 * Horizon, the trees taking turns for several rounds. Prints each round's CPU per 1 000 pools and,
 * once, the JSON.parse floor of the same pages.
 *   node --import tsx scripts/bench-pools-ab.ts [--pools 10000 --rounds 4 --polls 8] TREE...
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parseFloorMs } from "./bench-floor.js";
import { NODE_FLAGS, withNodeEnvironment } from "./node-memory.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    pools: { type: "string", default: "10000" },
    rounds: { type: "string", default: "4" },
    polls: { type: "string", default: "8" },
    child: { type: "string" },
    url: { type: "string" },
  },
});
const pools = Number(values.pools);
const TSX = resolve(import.meta.dirname, "../node_modules/tsx/dist/esm/index.mjs");
/** Polls left out: connections, and the compiler's first optimisations. */
const WARM_UP_POLLS = 3;
/** One simulated ledger between polls, so each poll meets one ledger's changes. */
const POLL_SPACING_MS = 1000;

/** Runs the collector of `tree` and prints the CPU milliseconds of its measured polls, gaps included. */
async function child(tree: string, url: string): Promise<void> {
  const load = (path: string) => import(pathToFileURL(resolve(tree, "dist", path)).href);
  const { HorizonClient } = await load("client/horizon-client.js");
  const { LiquidityPoolsCollector } = await load("collectors/liquidity-pools.js");
  const client = new HorizonClient({ url, timeoutMs: 60_000, retries: 0, maxBodyBytes: 8 * 1024 * 1024 });
  const selection = { max: pools, reserves: [], ids: [] };
  const collector = new LiquidityPoolsCollector(client, selection, { schedule: undefined, requestsPerRun: 50 });
  let invalid = 0;
  const context = {
    signal: new AbortController().signal,
    invalidRecords: (count: number) => {
      invalid += count;
    },
    progressed: () => {},
  };
  const poll = async () => {
    await ("run" in collector ? collector.run(context) : collector.poll(context));
    const series = collector.samples().live.length;
    if (series < pools * 4) throw new Error(`${tree}: ${series} series after a poll`);
  };
  for (let index = 0; index < WARM_UP_POLLS; index += 1) {
    await poll();
    await sleep(POLL_SPACING_MS);
  }
  const polls = Number(values.polls);
  const before = process.cpuUsage();
  for (let index = 0; index < polls; index += 1) {
    await poll();
    await sleep(POLL_SPACING_MS);
  }
  const { user, system } = process.cpuUsage(before);
  process.stdout.write(`${JSON.stringify({ cpuMs: (user + system) / 1000, polls, invalid })}\n`);
}

function startUpstream(): Promise<{ url: string; process: ChildProcess }> {
  const upstream = spawn(
    process.execPath,
    ["--import", TSX, "scripts/bench-servers.ts", "upstream", "--pools", String(pools), "--ledger-interval", "1000"],
    { cwd: resolve(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((done, fail) => {
    let output = "";
    upstream.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const url = /"url":"(https?:\/\/[^"]+)"/.exec(output)?.[1];
      if (url) done({ url, process: upstream });
    });
    upstream.on("exit", (code) => fail(new Error(`upstream exited ${code}: ${output}`)));
  });
}

function runChild(tree: string, url: string): Promise<{ cpuMs: number; polls: number; invalid: number }> {
  const args = [...NODE_FLAGS, "--import", TSX, import.meta.filename, "--child", tree, "--url", url];
  const run = spawn(process.execPath, [...args, "--pools", String(pools), "--polls", String(values.polls)], {
    env: withNodeEnvironment(process.env),
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((done, fail) => {
    let output = "";
    run.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    run.on("exit", (code) => (code === 0 ? done(JSON.parse(output)) : fail(new Error(`${tree} exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const upstream = await startUpstream();
  try {
    const perThousand = 1000 / pools;
    for (let round = 0; round < Number(values.rounds); round += 1) {
      // Alternate which tree goes first, so neither always meets the machine as the other left it.
      const order = round % 2 === 0 ? positionals : [...positionals].reverse();
      for (const tree of order) {
        const { cpuMs, polls, invalid } = await runChild(tree, upstream.url);
        const load = (await import("node:os")).loadavg()[0]!.toFixed(1);
        const figure = ((cpuMs / polls) * perThousand).toFixed(2);
        process.stdout.write(
          `round ${round + 1} ${tree}: ${figure} ms per 1 000 pools (invalid ${invalid}, load ${load})\n`,
        );
      }
    }
    const floor = await parseFloorMs(`${upstream.url}/_bench/bodies`);
    process.stdout.write(`JSON.parse floor: ${(floor.cpuMs * perThousand).toFixed(2)} ms per 1 000 pools\n`);
  } finally {
    upstream.process.kill();
  }
}

if (values.child !== undefined) await child(values.child, values.url!);
else await main();
