/**
 * Benchmark: scrape cost against a static-body ceiling, poll cost per 1 000 pools, steady RSS.
 * Prints a table and writes bench/results.json.   npm run bench [-- --steady 5m --seconds 10]
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { HorizonClient } from "../src/client/horizon-client.js";
import { ExporterMetrics } from "../src/collectors/self-metrics.js";
import { LiquidityPoolsCollector } from "../src/collectors/liquidity-pools.js";
import { EndpointPublisher } from "../src/collectors/publisher.js";
import { systemClock } from "../src/clock.js";
import { PAGE_LIMIT } from "../src/collectors/paging.js";
import { MetricStore } from "../src/collectors/store.js";
import { parseDuration } from "../src/config/duration.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { EndpointPoller } from "../src/scheduler/endpoint-poller.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TSX = resolve(ROOT, "node_modules/tsx/dist/esm/index.mjs");
const { values: flags } = parseArgs({ options: { steady: { type: "string", default: "5m" }, seconds: { type: "string", default: "10" } } });
const steadyMs = parseDuration(flags.steady) ?? 300_000;
const loadSeconds = Number(flags.seconds);
const children: ChildProcess[] = [];

/** Starts a child that prints a JSON line (or a pino line) holding its URL. */
function startChild(args: string[]): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((done, fail) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const url = /"url":"(https?:\/\/[^"]+)"/.exec(output)?.[1];
      if (url) done(url);
    });
    child.on("exit", (code) => fail(new Error(`child ${args.join(" ")} exited ${code}: ${output}`)));
  });
}

const upstream = (pools: number) => startChild(["--import", TSX, "scripts/bench-servers.ts", "upstream", "--pools", String(pools), "--ledger-interval", "1000"]);

async function startExporter(targets: { name: string; url: string }[], pools: number): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), "she-bench-")), "config.yml");
  const list = targets.map((target) => `  - name: ${target.name}\n    url: ${target.url}\n    timeout: 60s`).join("\n");
  writeFileSync(path, `targets:\n${list}\nschedules: { root: 5s, fee_stats: 5s, ledgers: 5s, liquidity_pools: 1m }\nliquidity_pools: { max: ${pools} }\n`);
  // The same V8 flag as npm start, the bin and the image use (see the README's performance notes).
  return startChild(["--max-semi-space-size=4", "dist/cli/main.js", `--config.file=${path}`, "--web.listen-address=127.0.0.1:0", "--log.level=info"]);
}

async function scrapeText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

function sampleValue(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

async function waitForSeries(url: string, minimum: number): Promise<string> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const text = await scrapeText(url).catch(() => "");
    const series = text.split("\n").filter((line) => line && !line.startsWith("#")).length;
    if (series >= minimum) return text;
    if (Date.now() > deadline) throw new Error(`only ${series} series after 3 minutes`);
    await new Promise((done) => setTimeout(done, 500));
  }
}

interface Load { requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number }

function autocannon(url: string): Load {
  const output = execFileSync(resolve(ROOT, "node_modules/.bin/autocannon"), ["-c", "16", "-d", String(loadSeconds), "-j", url], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const result = JSON.parse(output) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors + result.non2xx };
}

/** Time to the last byte of one scrape, the body counted but not decoded, so the client costs little. */
function timedScrape(url: string): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    get(`${url}/metrics`, (response) => {
      response.on("data", () => undefined);
      response.on("end", () => done(performance.now() - started));
    }).on("error", fail);
  });
}

const LOAD_ROUNDS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function medianLoad(runs: Load[]): Load {
  return {
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    errors: runs.reduce((total, run) => total + run.errors, 0),
  };
}

async function singleScrapeMs(url: string): Promise<{ medianMs: number; maxMs: number }> {
  const times: number[] = [];
  for (let round = 0; round < 30; round += 1) times.push(await timedScrape(url));
  return { medianMs: median(times), maxMs: Math.max(...times) };
}

async function scrapeScenario(label: string, exporterUrl: string, minimumSeries: number) {
  const text = await waitForSeries(exporterUrl, minimumSeries);
  const series = text.split("\n").filter((line) => line && !line.startsWith("#")).length;
  const bytes = Buffer.byteLength(text);
  const promtool = execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" }).trim();
  const ceilingUrl = await startChild(["--import", TSX, "scripts/bench-servers.ts", "ceiling", "--bytes", String(bytes)]);
  const single = await singleScrapeMs(exporterUrl);
  const ceilingSingle = await singleScrapeMs(ceilingUrl);
  // Alternating rounds, then the median of each figure: one run on a 2-core machine with the load
  // generator beside the server is too noisy to compare tails.
  const ceilingRuns: Load[] = [];
  const exporterRuns: Load[] = [];
  for (let round = 0; round < LOAD_ROUNDS; round += 1) {
    ceilingRuns.push(autocannon(`${ceilingUrl}/metrics`));
    exporterRuns.push(autocannon(`${exporterUrl}/metrics`));
  }
  const ceiling = medianLoad(ceilingRuns);
  const exporter = medianLoad(exporterRuns);
  return {
    label,
    series,
    bytes,
    promtoolProblems: promtool === "" ? 0 : promtool.split("\n").length,
    singleScrape: single,
    ceilingSingleScrape: ceilingSingle,
    exporter,
    ceiling,
    throughputRatio: exporter.requestsPerSecond / ceiling.requestsPerSecond,
    p99Ratio: exporter.p99Ms / ceiling.p99Ms,
  };
}

/** The exporter's own work for one pools poll: fetch, validate, sample, render, publish. */
async function pollCost(pools: number) {
  const url = await upstream(pools);
  const schedule = parseSchedule("1m") as Schedule;
  const client = new HorizonClient({ url, timeoutMs: 60_000, retries: 0, maxBodyBytes: 1 << 30 });
  const metrics = new ExporterMetrics("bench");
  const collector = new LiquidityPoolsCollector(client, { max: pools, reserves: [], ids: [] });
  const poller = new EndpointPoller({
    horizon: "bench",
    collector,
    publisher: new EndpointPublisher("bench", collector, new MetricStore(), 3 * schedule.periodMs, systemClock),
    schedule,
    deadlineMs: 60_000,
    metrics,
    log: pino({ level: "silent" }),
    clock: systemClock,
    signal: new AbortController().signal,
  });
  await poller.run(); // warm-up: JIT, connections
  const counts = async () => (await (await fetch(`${url}/_bench/counts`)).json()) as { requests: Record<string, number>; bytes: Record<string, number> };
  const before = await counts();
  const rounds = 10;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  for (let round = 0; round < rounds; round += 1) await poller.run();
  const cpu = process.cpuUsage(cpuStart);
  const wallMs = (performance.now() - wallStart) / rounds;
  const after = await counts();
  if (poller.snapshot().lastError) throw new Error(`pool poll failed: ${poller.snapshot().lastError?.message}`);
  const requests = ((after.requests["/liquidity_pools"] ?? 0) - (before.requests["/liquidity_pools"] ?? 0)) / rounds;
  const bytes = ((after.bytes["/liquidity_pools"] ?? 0) - (before.bytes["/liquidity_pools"] ?? 0)) / rounds;
  const perThousand = 1000 / pools;
  return {
    pools,
    cpuMsPer1000Pools: ((cpu.user + cpu.system) / 1000 / rounds) * perThousand,
    wallMsPer1000Pools: wallMs * perThousand,
    requestsPerPoll: requests,
    minimumRequests: Math.ceil(pools / PAGE_LIMIT),
    bytesPerPoll: bytes,
    bytesPerPool: bytes / pools,
  };
}

const rssMiB = (text: string) => sampleValue(text, "process_resident_memory_bytes") / 2 ** 20;

try {
  // First, while nothing else runs, so the figures are the exporter's own.
  process.stdout.write("bench: poll cost\n");
  const polls = [await pollCost(1_000), await pollCost(10_000)];
  for (const child of children.splice(0)) child.kill();

  process.stdout.write("bench: 1 target x 10 000 pools\n");
  const bigUpstream = await upstream(10_000);
  const bigExporter = await startExporter([{ name: "big", url: bigUpstream }], 10_000);
  const large = await scrapeScenario("1 target x 10 000 pools", bigExporter, 40_000);

  process.stdout.write("bench: 10 targets x 1 000 pools\n");
  const smallUpstream = await upstream(1_000);
  const manyExporter = await startExporter(
    Array.from({ length: 10 }, (_, index) => ({ name: `h${index}`, url: smallUpstream })),
    1_000,
  );
  const many = await scrapeScenario("10 targets x 1 000 pools", manyExporter, 40_000);
  children.at(-1)?.kill();

  process.stdout.write(`bench: steady state for ${flags.steady}\n`);
  const rssStart = rssMiB(await scrapeText(bigExporter));
  await new Promise((done) => setTimeout(done, steadyMs));
  const rssEnd = rssMiB(await scrapeText(bigExporter));

  const results = {
    machine: { cpus: (await import("node:os")).cpus().length, cpuModel: (await import("node:os")).cpus()[0]?.model, node: process.version },
    scrape: [large, many],
    polls,
    rss: { series: large.series, afterStartMiB: rssStart, afterSteadyMiB: rssEnd, steadySeconds: steadyMs / 1000 },
  };
  writeFileSync(resolve(ROOT, "bench/results.json"), `${JSON.stringify(results, null, 2)}\n`);

  const f = (value: number, digits = 1) => value.toFixed(digits);
  const rows = [
    "| Measure | 1 target × 10 000 pools | 10 targets × 1 000 pools | Goal |",
    "|---|---|---|---|",
    `| Series / body | ${large.series} / ${f(large.bytes / 2 ** 20, 2)} MiB | ${many.series} / ${f(many.bytes / 2 ** 20, 2)} MiB | |`,
    `| Single scrape, median (max) | ${f(large.singleScrape.medianMs)} ms (${f(large.singleScrape.maxMs)}) | ${f(many.singleScrape.medianMs)} ms (${f(many.singleScrape.maxMs)}) | < 20 ms |`,
    `| Single scrape of the ceiling, median (max) | ${f(large.ceilingSingleScrape.medianMs)} ms (${f(large.ceilingSingleScrape.maxMs)}) | ${f(many.ceilingSingleScrape.medianMs)} ms (${f(many.ceilingSingleScrape.maxMs)}) | |`,
    `| Exporter req/s, 16 connections (median of ${LOAD_ROUNDS} rounds) | ${f(large.exporter.requestsPerSecond)} | ${f(many.exporter.requestsPerSecond)} | |`,
    `| Static ceiling req/s | ${f(large.ceiling.requestsPerSecond)} | ${f(many.ceiling.requestsPerSecond)} | |`,
    `| Throughput ratio | ${f(large.throughputRatio, 2)} | ${f(many.throughputRatio, 2)} | ≥ 0.8 |`,
    `| p50 / p99 latency, exporter | ${large.exporter.p50Ms} / ${large.exporter.p99Ms} ms | ${many.exporter.p50Ms} / ${many.exporter.p99Ms} ms | |`,
    `| p50 / p99 latency, ceiling | ${large.ceiling.p50Ms} / ${large.ceiling.p99Ms} ms | ${many.ceiling.p50Ms} / ${many.ceiling.p99Ms} ms | |`,
    `| p99 ratio | ${f(large.p99Ratio, 2)} | ${f(many.p99Ratio, 2)} | ≤ 1.25 |`,
    `| promtool check metrics problems | ${large.promtoolProblems} | ${many.promtoolProblems} | 0 |`,
    "",
    "| Pools poll | CPU per 1 000 pools | Wall per 1 000 pools | Requests (minimum) | Bytes per pool | Goal |",
    "|---|---|---|---|---|---|",
    ...polls.map(
      (poll) =>
        `| ${poll.pools} pools | ${f(poll.cpuMsPer1000Pools)} ms | ${f(poll.wallMsPer1000Pools)} ms | ${poll.requestsPerPoll} (${poll.minimumRequests}) | ${f(poll.bytesPerPool, 0)} B | CPU < 20 ms |`,
    ),
    "",
    `Steady-state RSS of the exporter at ${large.series} series: ${f(rssStart)} MiB after start, ${f(rssEnd)} MiB after ${flags.steady} (goal < 150 MB).`,
  ];
  process.stdout.write(`\n${rows.join("\n")}\n`);
} finally {
  for (const child of children) child.kill();
}
