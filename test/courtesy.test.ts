import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { MAX_BACKOFF_MS } from "../src/scheduler/job-runner.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom, stopStarted } from "./support/exporter-harness.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { ManualClock } from "./support/manual-clock.js";
import { until } from "./support/wait.js";

let horizon: FakeHorizon;
let exporter: RunningExporter | undefined;

afterEach(async () => {
  await stopStarted(exporter, horizon);
  exporter = undefined;
});

it("never overlaps polls: one request in flight per endpoint, even when Horizon is slower than the schedule", async () => {
  horizon = new FakeHorizon();
  horizon.addLedgers(3);
  horizon.responseDelayMs = 2_500;
  const config = await configFrom([`--horizon.url=slow=${await horizon.start()}`, "--poll.interval=1s"]);
  exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
  // Five scheduled ticks fall inside the first two slow polls.
  await until("two polls of fee_stats", () => horizon!.requestsTo("/fee_stats").length >= 2 || undefined);
  expect([...horizon.maxInFlight.keys()].sort()).toEqual(["/", "/fee_stats", "/ledgers", "/liquidity_pools"]);
  expect(Math.max(...horizon.maxInFlight.values())).toBe(1);
});

it("sends nothing before X-Ratelimit-Reset once no request is left in the window", async () => {
  horizon = new FakeHorizon();
  horizon.rateLimitHeaders = { "X-Ratelimit-Limit": "10", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "2" };
  const config = await configFrom([`--horizon.url=t=${await horizon.start()}`, "--poll.interval=1h"]);
  exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
  await exporter.firstPolls;
  const sent = horizon.requests.length;
  horizon.rateLimitHeaders = {};
  await exporter.pollAll();
  expect(horizon.requests.length).toBe(sent);
  const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
  expect(
    valueOf(values, "stellar_horizon_exporter_poll_errors_total", {
      horizon: "t",
      endpoint: "root",
      reason: "rate_limited",
    }),
  ).toBe(1);
  expect(valueOf(values, "stellar_horizon_rate_limit_remaining", { horizon: "t" })).toBe(0);
  // The reset has passed once a poll gets through again.
  await until("a request after the reset", async () => {
    await exporter!.pollAll();
    return horizon.requests.length > sent || undefined;
  });
});

/**
 * An exporter without retries polling a fake Horizon whose /fee_stats answers `fault`, every
 * `periodMs` on the injectable clock; the returned tick moves the clock one period and waits for
 * that tick's polls.
 */
async function failingFeeStats(
  fault: { status: number; body: string },
  periodMs: number,
): Promise<() => Promise<void>> {
  const fake = (horizon = new FakeHorizon());
  fake.faults.set("/fee_stats", fault);
  const file = join(mkdtempSync(join(tmpdir(), "she-backoff-")), "config.yml");
  writeFileSync(file, "http: { retries: 0 }\n");
  const clock = new ManualClock();
  const config = await configFrom([
    `--horizon.url=t=${await fake.start()}`,
    `--poll.interval=${periodMs / 1000}s`,
    `--config.file=${file}`,
  ]);
  const running = (exporter = await startExporter(config, { logger: pino({ level: "silent" }), clock }));
  await running.firstPolls;
  return async () => {
    const roots = fake.requestsTo("/").length;
    await clock.advance(periodMs);
    await until("the tick's root poll", () => fake.requestsTo("/").length > roots || undefined);
    await running.idle();
  };
}

it("backs off with jitter while an endpoint keeps failing, and resets on success (on the injectable clock)", async () => {
  const tick = await failingFeeStats({ status: 500, body: "down" }, 1_000);
  for (let second = 1; second <= 15; second += 1) await tick();
  // Root succeeds every second. After its n-th failure fee_stats waits (2^(n-1) - 1) periods more,
  // times a jitter of 0.5 to 1: polls at 0, 1, 2, then 4 or 5, then 8 to 12, then not before 16.
  expect(horizon!.requestsTo("/")).toHaveLength(16);
  expect(horizon!.requestsTo("/fee_stats")).toHaveLength(5);

  horizon!.faults.clear();
  await exporter!.pollAll();
  const before = horizon!.requestsTo("/fee_stats").length;
  for (let second = 1; second <= 3; second += 1) await tick();
  expect(horizon!.requestsTo("/fee_stats")).toHaveLength(before + 3);
});

it("an endpoint failing alone for ten minutes is fresh again within a period and MAX_BACKOFF_MS of healing", async () => {
  const tick = await failingFeeStats({ status: 200, body: "<html>not json</html>" }, 5_000);
  for (let tickIndex = 0; tickIndex < 120; tickIndex += 1) await tick();
  const failing = horizon!.requestsTo("/fee_stats").length;
  // Backed off, but never by more than MAX_BACKOFF_MS: at least one poll per 20 s in ten minutes.
  expect(failing).toBeGreaterThanOrEqual(600_000 / (5_000 + MAX_BACKOFF_MS));
  horizon!.faults.clear();
  const healed = horizon!.requestsTo("/fee_stats").length;
  let waited = 0;
  while (horizon!.requestsTo("/fee_stats").length === healed) {
    await tick();
    waited += 5_000;
  }
  expect(waited).toBeLessThanOrEqual(5_000 + MAX_BACKOFF_MS);
  const values = parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
  expect(valueOf(values, "stellar_horizon_fee_stats_last_ledger", { horizon: "t" })).toBeDefined();
});

it("exports the planned requests per hour and the budget", async () => {
  horizon = new FakeHorizon();
  const config = await configFrom([`--horizon.url=t=${await horizon.start()}`, "--poll.interval=15s"]);
  exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
  const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
  // 240 polls an hour of root, fee_stats and ledgers (one request each) and of pools (two pages).
  expect(valueOf(values, "stellar_horizon_exporter_planned_requests_per_hour", { horizon: "t" })).toBe(1200);
  expect(valueOf(values, "stellar_horizon_exporter_request_budget_per_hour", { horizon: "t" })).toBe(3600);
});

it("warns of a plan over the budget once, and again only when a reload changes the plan", async () => {
  horizon = new FakeHorizon();
  const lines: { msg: string }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  // A reload applies the configuration's log level.
  const flags = [`--horizon.url=t=${await horizon.start()}`, "--poll.interval=1s", "--log.level=warn"];
  const running = (exporter = await startExporter(await configFrom(flags), { logger }));
  await running.firstPolls;
  const warnings = () => lines.filter((line) => line.msg.startsWith("schedules plan more requests")).length;
  // 21,600 requests an hour planned, 3,600 allowed.
  expect(warnings()).toBe(1);
  await running.reload(() => configFrom(flags));
  await running.reload(() => configFrom(flags));
  expect(warnings()).toBe(1);
  // Polls every 2 s plan 10,800, still over: said again, since it changed.
  await running.reload(() => configFrom([...flags, "--poll.interval=2s"]));
  await running.firstPolls;
  expect(warnings()).toBe(2);
});

it("warns of a plan over the budget again for a target a reload removed and a later one brought back", async () => {
  horizon = new FakeHorizon();
  const lines: { msg: string; horizon?: string }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const url = await horizon.start();
  const flags = (name: string) => [`--horizon.url=${name}=${url}`, "--poll.interval=1s", "--log.level=warn"];
  const running = (exporter = await startExporter(await configFrom(flags("t")), { logger }));
  await running.firstPolls;
  const warned = () =>
    lines.filter((line) => line.msg.startsWith("schedules plan more requests")).map((line) => line.horizon);
  // t renamed u, then back: each time a target that was not there, over the same budget.
  await running.reload(() => configFrom(flags("u")));
  await running.reload(() => configFrom(flags("t")));
  expect(warned()).toEqual(["t", "u", "t"]);
});

it("after a rate-limit hold, the first answer lets every endpoint held back poll at once", async () => {
  horizon = new FakeHorizon();
  const paths = ["/", "/fee_stats", "/ledgers", "/liquidity_pools"];
  for (const path of paths) horizon.faults.set(path, { status: 429, body: "{}", headers: { "Retry-After": "3" } });
  const file = join(mkdtempSync(join(tmpdir(), "she-hold-")), "config.yml");
  writeFileSync(file, "http: { retries: 0 }\n");
  const clock = new ManualClock();
  const config = await configFrom([
    `--horizon.url=t=${await horizon.start()}`,
    "--poll.interval=1s",
    `--config.file=${file}`,
  ]);
  const running = (exporter = await startExporter(config, { logger: pino({ level: "silent" }), clock }));
  await running.firstPolls;
  horizon.faults.clear();
  const sent = () => paths.map((path) => horizon.requestsTo(path).length);
  const before = sent();
  // Held 3 s, every endpoint backing off meanwhile; tick by tick until the first request goes.
  for (let tick = 0; tick < 30 && sent().every((count, index) => count === before[index]); tick += 1) {
    await clock.advance(1_000);
    await running.idle();
  }
  await running.idle();
  expect(sent().map((count, index) => count > before[index]!)).toEqual([true, true, true, true]);
});

it("a reload that rebuilds a held target keeps holding back", async () => {
  horizon = new FakeHorizon();
  for (const path of ["/", "/fee_stats", "/ledgers", "/liquidity_pools"])
    horizon.faults.set(path, { status: 429, body: "{}", headers: { "Retry-After": "30" } });
  const clock = new ManualClock();
  const flags = [`--horizon.url=t=${await horizon.start()}`, "--poll.interval=1s"];
  const running = (exporter = await startExporter(await configFrom(flags), {
    logger: pino({ level: "silent" }),
    clock,
  }));
  await running.firstPolls;
  horizon.faults.clear();
  const sent = horizon.requests.length;
  // Another schedule rebuilds the target's runtime and client: the hold asked for 30 s ago still stands.
  await running.reload(async () => configFrom([...flags.slice(0, 1), "--poll.interval=2s"]));
  await running.firstPolls;
  await clock.advance(20_000);
  await running.idle();
  expect(horizon.requests.length).toBe(sent);
  // Past the hold, a second at a time: a run still publishing when the next tick came would have joined it.
  let second = 20;
  while (second < 40 && horizon.requests.length === sent) {
    await clock.advance(1_000);
    second += 1;
    await running.idle();
  }
  expect(second).toBeGreaterThanOrEqual(30);
  expect(horizon.requests.length).toBeGreaterThan(sent);
});
