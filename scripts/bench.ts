/**
 * Benchmark of issue 12's figures, measured from outside the exporter's process:
 *   - plain and gzip scrapes against a static node:http server answering the same bytes
 *     (pre-compressed for gzip), alternating requests, medians compared;
 *   - poll CPU per 1 000 pools, and per 1 000 keys of a contracts poll (scripts/bench-contracts.ts),
 *     each beside the CPU of JSON.parse alone over the same poll's bodies (scripts/bench-floor.ts);
 *   - RSS after a period of 5 s polls of every endpoint, pools included;
 *   - /metrics p95 while a pools poll runs against its p95 while none does;
 *   - 10 000 accounts watched over Stellar RPC (scripts/bench-rpc-accounts.ts).
 * Writes bench/results.json and the README's performance table (scripts/bench-table.ts); with
 * --only, runs just the named phases (poll, contracts, scrapes, steady, rpc-accounts) and prints their figures instead.
 *   npm run bench [-- --pools 10000 --steady 1m --scrapes 200 --only scrapes]
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import { stringify } from "yaml";
import { NODE_FLAGS, withNodeEnvironment } from "./node-memory.js";
import { PAGE_LIMIT } from "../src/client/paging.js";
import { parseDuration } from "../src/config/duration.js";
import { SIMULATOR_REQUESTS_PER_HOUR } from "../src/simulator/http-faults.js";
import { contractsPollCost } from "./bench-contracts.js";
import { parseFloorMs } from "./bench-floor.js";
import { rpcAccountsFigures } from "./bench-rpc-accounts.js";
import { updateReadme, type BenchResults } from "./bench-table.js";
import { seriesIn, valueOf, valuesSum } from "./exposition-text.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TSX = resolve(ROOT, "node_modules/tsx/dist/esm/index.mjs");
const { values: flags } = parseArgs({
  options: {
    pools: { type: "string", default: "10000" },
    steady: { type: "string", default: "1m" },
    scrapes: { type: "string", default: "200" },
    only: { type: "string" },
  },
});
const pools = Number(flags.pools);
const steadyMs = parseDuration(flags.steady) ?? 60_000;
const scrapeRounds = Number(flags.scrapes);
const children: ChildProcess[] = [];

/** Starts a child that prints a JSON line (or a pino line) holding its URL. */
function startChild(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((done, fail) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const url = /"url":"(https?:\/\/[^"]+)"/.exec(output)?.[1];
      if (url) done({ url, child });
    });
    child.on("exit", (code) => fail(new Error(`child ${args.join(" ")} exited ${code}: ${output}`)));
  });
}

function stop(child: ChildProcess): void {
  child.kill();
  children.splice(children.indexOf(child), 1);
}

/** The simulated network closes a ledger this often; each close changes about 6% of the pools. */
const LEDGER_INTERVAL_MS = 1000;
const upstream = (count: number) =>
  startChild([
    "--import",
    TSX,
    "scripts/bench-servers.ts",
    "upstream",
    "--pools",
    String(count),
    "--ledger-interval",
    String(LEDGER_INTERVAL_MS),
  ]);

/**
 * An exporter reading `config` as its config file, started with the V8 flags and environment
 * npm start, the bin and the image use (see docs/performance.md).
 */
function startConfiguredExporter(config: Record<string, unknown>): Promise<{ url: string; child: ChildProcess }> {
  const path = join(mkdtempSync(join(tmpdir(), "she-bench-")), "config.yml");
  writeFileSync(path, stringify(config));
  return startChild(
    [
      ...NODE_FLAGS,
      "dist/cli/main.js",
      `--config.file=${path}`,
      "--web.listen-address=127.0.0.1:0",
      "--log.level=info",
    ],
    withNodeEnvironment(process.env),
  );
}

/** An exporter polling the upstream's pools on `poolsSchedule`, its other endpoints on `schedule`. */
function startExporter(
  upstreamUrl: string,
  schedule: string,
  poolsSchedule = schedule,
): Promise<{ url: string; child: ChildProcess }> {
  // Staleness far off: on a loaded machine a page can take longer than three poll periods, and a
  // poll failed for that would back off and stall the measurement (the bench measures cost, not freshness).
  return startConfiguredExporter({
    targets: [{ name: "big", url: upstreamUrl, timeout: "60s" }],
    schedules: { root: schedule, fee_stats: schedule, ledgers: schedule, liquidity_pools: poolsSchedule },
    liquidity_pools: { max: pools },
    freshness: { stale_after_intervals: 60 },
  });
}

interface Scrape {
  readonly startedMs: number;
  readonly ms: number;
  readonly bytes: number;
  readonly encoding: string | undefined;
  /** Kept only when asked for, so timed scrapes cost the client little. */
  readonly body?: Buffer;
}

/** One scrape, timed to its last byte; the body, when kept, is as sent, not decoded. */
function scrape(url: string, acceptEncoding?: string, keepBody = false): Promise<Scrape> {
  return new Promise((done, fail) => {
    const startedMs = Date.now();
    const started = performance.now();
    const headers = acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding };
    get(`${url}/metrics`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (keepBody) chunks.push(chunk);
      });
      response.on("end", () => {
        const ms = performance.now() - started;
        const encoding = response.headers["content-encoding"];
        done({ startedMs, ms, bytes, encoding, ...(keepBody ? { body: Buffer.concat(chunks) } : {}) });
      });
    }).on("error", fail);
  });
}

const bodyOf = async (url: string, acceptEncoding?: string) => (await scrape(url, acceptEncoding, true)).body!;

async function waitForSeries(url: string, minimum: number): Promise<string> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const text = await bodyOf(url).then(
      (body) => body.toString(),
      () => "",
    );
    if (seriesIn(text) >= minimum) return text;
    if (Date.now() > deadline) throw new Error(`only ${seriesIn(text)} series after 5 minutes`);
    await new Promise((done) => setTimeout(done, 500));
  }
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}

/** Alternating exporter and ceiling requests (the order flips every round), medians compared. */
async function compareScrapes(exporterUrl: string, ceilingUrl: string, acceptEncoding?: string) {
  const exporterMs: number[] = [];
  const ceilingMs: number[] = [];
  let bytes = 0;
  let encoding: string | undefined;
  for (let round = 0; round < scrapeRounds; round += 1) {
    const order = round % 2 === 0 ? ([exporterUrl, ceilingUrl] as const) : ([ceilingUrl, exporterUrl] as const);
    for (const url of order) {
      const result = await scrape(url, acceptEncoding);
      if (url === exporterUrl) {
        exporterMs.push(result.ms);
        bytes = result.bytes;
        encoding = result.encoding;
      } else {
        ceilingMs.push(result.ms);
      }
    }
  }
  const exporterMedianMs = quantile(exporterMs, 0.5);
  const ceilingMedianMs = quantile(ceilingMs, 0.5);
  return {
    exporterMedianMs,
    ceilingMedianMs,
    ratio: exporterMedianMs / ceilingMedianMs,
    bytes,
    encoding: encoding ?? "identity",
  };
}

/** The exporter's plain and gzip scrape medians against a static server answering `plainBody`. */
async function againstCeiling(exporterUrl: string, plainBody: Buffer) {
  const directory = mkdtempSync(join(tmpdir(), "she-bench-ceiling-"));
  writeFileSync(join(directory, "plain"), plainBody);
  // A static server's best: the whole body compressed once, at zlib's default level.
  writeFileSync(join(directory, "gzip"), gzipSync(plainBody));
  const ceiling = await startChild([
    "--import",
    TSX,
    "scripts/bench-servers.ts",
    "ceiling",
    "--plain",
    join(directory, "plain"),
    "--gzip",
    join(directory, "gzip"),
  ]);
  const plain = await compareScrapes(exporterUrl, ceiling.url);
  // Prometheus' own header.
  const gzip = await compareScrapes(exporterUrl, ceiling.url, "gzip");
  stop(ceiling.child);
  return { plain, gzip };
}

async function scrapeFigures() {
  process.stdout.write(`bench: scrapes, 1 target x ${pools} pools, ${scrapeRounds} alternating rounds\n`);
  const source = await upstream(pools);
  const exporter = await startExporter(source.url, "1h");
  const plainText = await waitForSeries(exporter.url, pools * 4);
  const gzipResponse = await scrape(exporter.url, "gzip", true);
  if (gzipResponse.encoding !== "gzip") throw new Error(`asked for gzip, got ${gzipResponse.encoding ?? "identity"}`);
  const plainBody = await bodyOf(exporter.url);
  const horizonLines = (text: string) =>
    text
      .split("\n")
      .filter((line) => line.startsWith("stellar_horizon_") && !line.startsWith("stellar_horizon_exporter_"));
  // Two scrapes of unchanged data: only the exporter's own process metrics may differ.
  const gzipDecodesToPlain =
    horizonLines(gunzipSync(gzipResponse.body!).toString()).join("\n") ===
    horizonLines(plainBody.toString()).join("\n");
  const { plain, gzip } = await againstCeiling(exporter.url, plainBody);
  for (const child of [exporter.child, source.child]) stop(child);
  return {
    series: seriesIn(plainText),
    plainBytes: plainBody.length,
    gzipBytes: gzipResponse.bytes,
    ceilingGzipBytes: gzipSync(plainBody).length,
    // How far gzip can go on this text at all: zlib's best level over the whole body.
    bestGzipBytes: gzipSync(plainBody, { level: 9 }).length,
    gzipDecodesToPlain,
    plain,
    gzip,
  };
}

/** Polls left out of the poll cost: connections, and the compiler's first optimisations. */
const WARM_UP_POLLS = 3;
/** Polls measured: enough that the CPU clock's ticks (10 ms) are a fraction of a percent of their CPU. */
const MEASURED_POLLS = 20;

/**
 * How often the exporter polls the pools while its poll cost is measured: every simulated ledger,
 * or, for more pools than 10 000, far enough apart that its pages stay at half the simulated
 * Horizon's quota. In whole seconds, as the exporter's schedules are.
 */
const POLL_SPACING_SECONDS = Math.ceil(
  Math.max(LEDGER_INTERVAL_MS, (2 * Math.ceil(pools / PAGE_LIMIT) * 3_600_000) / SIMULATOR_REQUESTS_PER_HOUR) / 1000,
);

/** The kernel's clock ticks a second, the unit of a process's CPU times in /proc (proc(5)). */
const CLOCK_TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString());

/** The CPU time a child has used so far, every thread of it, in milliseconds (Linux's /proc/<pid>/stat). */
function cpuMsOf(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses: the third is the first here; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** What the simulated Horizon counted: requests by path, and when each pool page was asked for. */
async function simulatorCounts(sourceUrl: string) {
  return (await (await fetch(`${sourceUrl}/_bench/counts`)).json()) as {
    requests: Record<string, number>;
    poolPageStartsMs: number[];
  };
}

/** Pool pages the simulated Horizon has served so far. */
async function poolPagesServed(sourceUrl: string): Promise<number> {
  return (await simulatorCounts(sourceUrl)).requests["/liquidity_pools"] ?? 0;
}

/**
 * Waits until the exporter asks for the first page of its poll number `poll` (counted from 0),
 * and returns the pages served by then: the poll before it has been published by then, as one
 * poll of an endpoint never overlaps the next.
 */
async function pollStarts(sourceUrl: string, pagesPerPoll: number, poll: number): Promise<number> {
  // Stuck is two minutes without a page served: on a loaded machine twenty polls take longer than that.
  let deadline = Date.now() + 120_000;
  let servedBefore = -1;
  for (;;) {
    const served = await poolPagesServed(sourceUrl);
    if (served > poll * pagesPerPoll) return served;
    if (served > servedBefore) [servedBefore, deadline] = [served, Date.now() + 120_000];
    if (Date.now() > deadline)
      throw new Error(`poll ${poll} did not start: no page served for 2 minutes (${served} pages served)`);
    await new Promise((done) => setTimeout(done, 2));
  }
}

/** The sum of the values of the series whose lines begin with `prefix` in an exposition; 0 when none do. */
/**
 * The exporter's CPU for one pools poll (fetch, validate, sample, render, compress, publish),
 * measured from outside: the exporter polls the simulated Horizon's pools as a daemon does, and
 * its process's CPU time is read between the starts of polls, so the CPU of the gaps counts too
 * (the garbage collector and the compiler finish a poll's work there). Polls start one simulated
 * ledger apart (POLL_SPACING_SECONDS), so each meets one ledger's changes, as a daemon polling
 * every 5 s on a network closing a ledger every 5 s does. The first polls are left out: the
 * compiler is still optimising then, as it is not in a daemon's steady state.
 */
async function pollCost() {
  process.stdout.write(`bench: poll cost, ${pools} pools, ${MEASURED_POLLS} polls of the exporter's\n`);
  const source = await upstream(pools);
  const exporter = await startExporter(source.url, "1h", `${POLL_SPACING_SECONDS}s`);
  const pagesPerPoll = Math.ceil(pools / PAGE_LIMIT);
  /** The exporter's own account of its pools polls so far. */
  const poolPolls = async () => {
    const text = gunzipSync((await scrape(exporter.url, "gzip", true)).body!).toString();
    const ofPools = (name: string, labelsEnd: string) =>
      valuesSum(text, `stellar_horizon_exporter_${name}{horizon="big",endpoint="liquidity_pools"${labelsEnd}`);
    return {
      seconds: ofPools("poll_duration_seconds_sum", "} "),
      count: ofPools("poll_duration_seconds_count", "} "),
      errors: ofPools("poll_errors_total", ","),
    };
  };
  await pollStarts(source.url, pagesPerPoll, WARM_UP_POLLS - 1);
  // Read while the last warm-up poll runs, so the scrape's own CPU falls before the measured polls.
  const before = await poolPolls();
  const servedBefore = await pollStarts(source.url, pagesPerPoll, WARM_UP_POLLS);
  const cpuBefore = cpuMsOf(exporter.child);
  const servedAfter = await pollStarts(source.url, pagesPerPoll, WARM_UP_POLLS + MEASURED_POLLS);
  const cpuMs = cpuMsOf(exporter.child) - cpuBefore;
  const after = await poolPolls();
  stop(exporter.child);
  // The pages of the last poll, parsed here alone: the floor of the same poll.
  const floor = await parseFloorMs(`${source.url}/_bench/bodies`);
  stop(source.child);
  if (after.errors > before.errors) throw new Error(`${after.errors - before.errors} pool polls failed while measured`);
  const perThousand = 1000 / pools;
  return {
    pools,
    cpuMsPer1000Pools: (cpuMs / MEASURED_POLLS) * perThousand,
    parseFloorMsPer1000Pools: floor.cpuMs * perThousand,
    wallMsPer1000Pools: ((1000 * (after.seconds - before.seconds)) / (after.count - before.count)) * perThousand,
    requestsPerPoll: (servedAfter - servedBefore) / MEASURED_POLLS,
    minimumRequests: pagesPerPoll,
  };
}

/** Pool page requests grouped into polls: pages of one poll follow each other within a second. */
function pollWindows(pageStartsMs: readonly number[]): [number, number][] {
  const windows: [number, number][] = [];
  for (const at of pageStartsMs) {
    const last = windows.at(-1);
    if (last !== undefined && at - last[1] < 1000) last[1] = at;
    else windows.push([at, at]);
  }
  // The last page's records are still validated, rendered and compressed after it was asked for.
  return windows.map(([start, end]) => [start, end + 500]);
}

/** RSS after the steady period of 5 s polls, and scrape latency with and without a pools poll running. */
async function steadyFigures() {
  process.stdout.write(`bench: ${flags.steady} of 5 s polls, ${pools} pools, scraping throughout\n`);
  const source = await upstream(pools);
  const exporter = await startExporter(source.url, "5s");
  await waitForSeries(exporter.url, pools * 4);
  const startedMs = Date.now();
  const scrapes: Scrape[] = [];
  while (Date.now() - startedMs < steadyMs) {
    scrapes.push(await scrape(exporter.url, "gzip"));
    await new Promise((done) => setTimeout(done, 50));
  }
  const rss = valueOf((await bodyOf(exporter.url)).toString(), "process_resident_memory_bytes") / 2 ** 20;
  const { poolPageStartsMs } = await simulatorCounts(source.url);
  const windows = pollWindows(poolPageStartsMs.filter((at) => at >= startedMs));
  const duringPoll = (at: number) => windows.some(([start, end]) => at >= start && at <= end);
  const busy = scrapes.filter((result) => duringPoll(result.startedMs)).map((result) => result.ms);
  const idle = scrapes.filter((result) => !duringPoll(result.startedMs)).map((result) => result.ms);
  for (const child of [exporter.child, source.child]) stop(child);
  return {
    rss: { afterMiB: rss, steadySeconds: steadyMs / 1000 },
    scrapeDuringPoll: {
      polls: windows.length,
      idleScrapes: idle.length,
      busyScrapes: busy.length,
      idleP95Ms: quantile(idle, 0.95),
      busyP95Ms: quantile(busy, 0.95),
      ratio: quantile(busy, 0.95) / quantile(idle, 0.95),
    },
  };
}

const contractsCost = () =>
  contractsPollCost({ startChild, startExporter: startConfiguredExporter, stop, cpuMsOf, tsx: TSX });

const rpcAccounts = () =>
  rpcAccountsFigures({
    startChild,
    startExporter: startConfiguredExporter,
    stop,
    cpuMsOf,
    tsx: TSX,
    steadyMs,
    againstCeiling: async (url) => againstCeiling(url, await bodyOf(url)),
  });

const PHASES = {
  poll: pollCost,
  contracts: contractsCost,
  scrapes: scrapeFigures,
  steady: steadyFigures,
  "rpc-accounts": rpcAccounts,
} as const;

try {
  if (flags.only !== undefined) {
    const names = flags.only.split(",") as (keyof typeof PHASES)[];
    const unknown = names.filter((name) => !Object.hasOwn(PHASES, name));
    if (unknown.length > 0)
      throw new Error(`unknown phase ${unknown.join(", ")}; phases: ${Object.keys(PHASES).join(", ")}`);
    // A partial run's figures are printed only: the results file and the README hold whole runs.
    for (const name of names) process.stdout.write(`${JSON.stringify({ [name]: await PHASES[name]() }, null, 2)}\n`);
  } else {
    const loadAtStart = loadavg()[0]!;
    // Poll cost first, while nothing else runs, so the figure is the exporter's own.
    const poll = await pollCost();
    const contracts = await contractsCost();
    const scrapes = await scrapeFigures();
    const steady = await steadyFigures();
    const rpcAccountsResults = await rpcAccounts();
    const results: BenchResults = {
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "unknown",
        node: process.version,
        loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      },
      conditions: { pools, scrapeRounds, steadySeconds: steadyMs / 1000 },
      scrapes,
      poll,
      contracts,
      ...steady,
      rpcAccounts: rpcAccountsResults,
    };
    writeFileSync(resolve(ROOT, "bench/results.json"), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`\n${updateReadme(results)}\n`);
  }
} finally {
  for (const child of children) child.kill();
}
