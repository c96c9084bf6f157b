/**
 * Soak: the exporter against the simulator with fast ledgers and random fault injection.
 * Prints RSS at start (after warm-up) and end, event-loop delay p99, requests and errors by
 * reason; exits 1 when RSS grew more than 20% after warm-up or any poll overlapped.
 *
 *   npm run soak -- --duration 10m [--ledger-interval 200ms] [--seed 7]
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Hono } from "hono";
import { pino } from "pino";
import { loadConfig } from "../src/config/config.js";
import { parseDuration } from "../src/config/duration.js";
import { startExporter } from "../src/exporter.js";
import { listen } from "../src/server/listen.js";
import { createSimulator } from "../src/simulator/index.js";

const FAULT_SCENARIOS = [
  "flapping",
  "rate_limited",
  "ingest_lag",
  "fee_spike",
  "network_reset",
  "pool_drain",
  "old_horizon",
  "network_halt",
];
const SCENARIO_HOLD_MS = 15_000;
const MAX_RSS_GROWTH = 0.2;

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10m" },
    "ledger-interval": { type: "string", default: "200ms" },
    seed: { type: "string", default: "7" },
  },
});
const durationMs = parseDuration(flags.duration) ?? Number.NaN;
const ledgerIntervalMs = parseDuration(flags["ledger-interval"]) ?? Number.NaN;
if (!(durationMs > 0) || !(ledgerIntervalMs > 0)) {
  process.stderr.write("soak: --duration and --ledger-interval take durations such as 10m or 200ms\n");
  process.exit(2);
}
const warmUpMs = Math.min(60_000, durationMs / 5);

function rssMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
}

// The simulator behind a wrapper that measures how many requests per path are in flight at once.
const simulator = createSimulator({ ledgerIntervalMs, pools: 200, seed: Number(flags.seed) });
const inFlight = new Map<string, number>();
let overlaps = 0;
const upstream = new Hono();
upstream.use(async (c, next) => {
  const path = c.req.path;
  const now = (inFlight.get(path) ?? 0) + 1;
  inFlight.set(path, now);
  if (now > 1) overlaps += 1;
  try {
    await next();
  } finally {
    inFlight.set(path, inFlight.get(path)! - 1);
  }
});
upstream.route("/", simulator.app);
const horizon = await listen(upstream, "127.0.0.1", 0);

const command = await loadConfig(
  [`--horizon.url=soak=${horizon.url}`, "--web.listen-address=127.0.0.1:0", "--poll.interval=1s", "--log.level=fatal"],
  {},
);
if (command.kind !== "run") throw new Error(`soak: bad exporter config: ${JSON.stringify(command)}`);
const exporter = await startExporter(
  { ...command.config, targets: command.config.targets.map((t) => ({ ...t, timeoutMs: 2_000 })) },
  { logger: pino({ level: "silent" }) },
);

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
let scrapes = 0;
let scrapeFailures = 0;
let lastBody = "";
const scraper = setInterval(() => {
  fetch(`${exporter.url}/metrics`)
    .then(async (response) => {
      scrapes += 1;
      if (response.status !== 200) scrapeFailures += 1;
      lastBody = await response.text();
    })
    .catch(() => (scrapeFailures += 1));
}, 1_000);

let scenarioIndex = 0;
const faults = setInterval(() => {
  // Every other period is healthy, so recovery is exercised as often as failure.
  const next =
    scenarioIndex % 2 === 0 ? FAULT_SCENARIOS[Math.floor(Math.random() * FAULT_SCENARIOS.length)]! : "healthy";
  scenarioIndex += 1;
  simulator.setScenario(next);
}, SCENARIO_HOLD_MS);

const started = Date.now();
process.stdout.write(
  `soak: ${flags.duration}, ledgers every ${flags["ledger-interval"]}, scenarios switch every ${SCENARIO_HOLD_MS / 1000}s\n`,
);
await new Promise((done) => setTimeout(done, warmUpMs));
const rssAfterWarmUp = rssMiB();
loopDelay.enable();
await new Promise((done) => setTimeout(done, durationMs - warmUpMs));
loopDelay.disable();
clearInterval(scraper);
clearInterval(faults);
const rssAtEnd = rssMiB();

const totals = (name: string, label: string) => {
  const sums = new Map<string, number>();
  for (const match of lastBody.matchAll(new RegExp(`^${name}\\{[^}]*${label}="([^"]+)"[^}]*\\} (\\S+)$`, "gm"))) {
    sums.set(match[1]!, (sums.get(match[1]!) ?? 0) + Number(match[2]));
  }
  return Object.fromEntries([...sums].filter(([, value]) => value > 0));
};
const growth = (rssAtEnd - rssAfterWarmUp) / rssAfterWarmUp;
const report = {
  durationSeconds: Math.round((Date.now() - started) / 1000),
  rssAfterWarmUpMiB: Number(rssAfterWarmUp.toFixed(1)),
  rssAtEndMiB: Number(rssAtEnd.toFixed(1)),
  rssGrowthPercent: Number((growth * 100).toFixed(1)),
  eventLoopDelayP99Ms: Number((loopDelay.percentile(99) / 1e6).toFixed(2)),
  scrapes,
  scrapeFailures,
  overlappingPolls: overlaps,
  requestsByCode: totals("stellar_horizon_exporter_requests_total", "code"),
  pollErrorsByReason: totals("stellar_horizon_exporter_poll_errors_total", "reason"),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);

await exporter.close();
simulator.releaseHangingRequests();
await horizon.close();
const failures = [
  ...(growth > MAX_RSS_GROWTH
    ? [`RSS grew ${report.rssGrowthPercent}% after warm-up (limit ${MAX_RSS_GROWTH * 100}%)`]
    : []),
  ...(overlaps > 0 ? [`${overlaps} requests overlapped another on the same path`] : []),
  ...(scrapeFailures > 0 ? [`${scrapeFailures} scrapes failed`] : []),
];
for (const failure of failures) process.stderr.write(`soak: FAIL: ${failure}\n`);
process.exit(failures.length > 0 ? 1 : 0);
