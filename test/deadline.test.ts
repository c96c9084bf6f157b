import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ENDPOINTS } from "../src/catalog/metrics.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom, stopStarted } from "./support/exporter-harness.js";
import { hang, HostileHorizon } from "./support/hostile-horizon.js";
import { ManualClock } from "./support/manual-clock.js";
import { until } from "./support/wait.js";

const H = { horizon: "hung" };
/** The target watches no accounts, assets or markets and probes no corridor, so every other endpoint is polled. */
const POLLED = ENDPOINTS.filter(
  (endpoint) => !["accounts", "activity", "assets", "markets", "corridors"].includes(endpoint),
);
const LIVE_GAUGES = [
  "stellar_horizon_core_latest_ledger",
  "stellar_horizon_fee_stats_last_ledger",
  "stellar_horizon_ledger_sequence",
  "stellar_horizon_liquidity_pools",
];

class LogSink extends Writable {
  lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString().split("\n"))
      if (line.trim()) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

let horizon: HostileHorizon;
let exporter: RunningExporter | undefined;

afterEach(async () => {
  await stopStarted(exporter, horizon);
  exporter = undefined;
});

async function start(
  args: string[],
  clock?: ManualClock,
): Promise<{ logs: LogSink; scrape: () => Promise<Map<string, number>> }> {
  horizon = new HostileHorizon();
  horizon.healthy.addLedgers(5);
  const url = await horizon.start();
  const logs = new LogSink();
  const config = await configFrom([`--horizon.url=hung=${url}`, ...args]);
  exporter = await startExporter(config, { logger: pino({ level: "warn" }, logs), ...(clock ? { clock } : {}) });
  await exporter.firstPolls;
  const scrape = async () => parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
  return { logs, scrape };
}

const timeouts = (series: Map<string, number>, endpoint: string) =>
  valueOf(series, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint, reason: "timeout" }) ?? 0;

/** Every endpoint counted at least one timeout, each logged once, and up is 0. */
function hangReported(series: Map<string, number>): boolean {
  return valueOf(series, "stellar_horizon_up", H) === 0 && POLLED.every((endpoint) => timeouts(series, endpoint) >= 1);
}

function expectEachTimeoutLoggedOnce(series: Map<string, number>, logs: LogSink): void {
  for (const endpoint of POLLED) {
    const lines = logs.lines.filter(
      (line) => line.msg === "poll failed" && line.endpoint === endpoint && line.reason === "timeout",
    );
    expect(lines.length, endpoint).toBe(timeouts(series, endpoint));
  }
}

/** The next good polls restore everything, and every ledger is counted exactly once. */
async function expectExactRecovery(
  scrape: () => Promise<Map<string, number>>,
  poll: () => Promise<void>,
): Promise<void> {
  horizon.misbehaviour = undefined;
  horizon.healthy.addLedgers(3);
  const after = await until("recovery", async () => {
    await poll();
    const series = await scrape();
    return valueOf(series, "stellar_horizon_up", H) === 1 &&
      LIVE_GAUGES.every((gauge) => valueOf(series, gauge, H) !== undefined)
      ? series
      : undefined;
  });
  expect(valueOf(after, "stellar_horizon_ledger_sequence", H)).toBe(8);
  expect(valueOf(after, "stellar_horizon_ledgers_total", H)).toBe(4);
  expect(valueOf(after, "stellar_horizon_ledgers_skipped_total", H)).toBe(0);
}

describe("a Horizon that accepts connections and never answers", () => {
  it("with a 1 s schedule: within 5 s up is 0 and every endpoint counted a timeout, logged once", async () => {
    const { logs, scrape } = await start(["--poll.interval=1s"]);
    expect(valueOf(await scrape(), "stellar_horizon_up", H)).toBe(1);
    horizon.misbehaviour = hang;
    const hungAt = performance.now();
    const during = await until(
      "up 0 and a timeout on every endpoint",
      async () => {
        const series = await scrape();
        return hangReported(series) ? series : undefined;
      },
      { timeoutMs: 5_000 },
    );
    expect(performance.now() - hungAt).toBeLessThan(5_000);
    for (const gauge of LIVE_GAUGES) expect(valueOf(during, gauge, H), gauge).toBeUndefined();
    expectEachTimeoutLoggedOnce(during, logs);
    // A generous bound: /metrics never waits for the hung polls.
    const scrapeStarted = performance.now();
    await scrape();
    expect(performance.now() - scrapeStarted).toBeLessThan(1_000);

    await expectExactRecovery(scrape, async () => undefined);
  }, 30_000);

  it("with the default 15 s schedule: within 45 s on the injectable clock", async () => {
    const clock = new ManualClock();
    const { logs, scrape } = await start([], clock);
    expect(valueOf(await scrape(), "stellar_horizon_up", H)).toBe(1);
    horizon.misbehaviour = hang;
    const requestsBefore = horizon.requestCount;

    await clock.advance(15_000);
    await until("the scheduled polls to reach the hung Horizon", () =>
      horizon.requestCount >= requestsBefore + POLLED.length ? true : undefined,
    );
    // 44 s after the last good poll the data is still fresh and the polls still running.
    await clock.advance(29_000);
    let series = await scrape();
    expect(valueOf(series, "stellar_horizon_up", H)).toBe(1);
    expect(POLLED.map((endpoint) => timeouts(series, endpoint))).toEqual(POLLED.map(() => 0));
    const page = await (await fetch(`${exporter!.url}/`)).text();
    expect(page).toMatch(/running for \d+ s/);

    await clock.advance(1_000);
    series = await until(
      "up 0 and a timeout on every endpoint at 45 s",
      async () => {
        const values = await scrape();
        return hangReported(values) ? values : undefined;
      },
      { timeoutMs: 5_000 },
    );
    expect(POLLED.map((endpoint) => timeouts(series, endpoint))).toEqual(POLLED.map(() => 1));
    for (const gauge of LIVE_GAUGES) expect(valueOf(series, gauge, H), gauge).toBeUndefined();
    expectEachTimeoutLoggedOnce(series, logs);

    await expectExactRecovery(scrape, () => clock.advance(15_000));
  }, 30_000);

  it("a poll running past the data's freshness turns up to 0 at that moment, before its deadline", async () => {
    const clock = new ManualClock();
    const file = join(mkdtempSync(join(tmpdir(), "she-deadline-")), "config.yml");
    // 20 s × 3 attempts: the deadline is the freshness window, 45 s from the poll's start at 15 s.
    writeFileSync(file, "http: { timeout: 20s }\n");
    const { scrape } = await start([`--config.file=${file}`], clock);
    horizon.misbehaviour = hang;
    const requestsBefore = horizon.requestCount;
    await clock.advance(15_000);
    await until("the scheduled polls to reach the hung Horizon", () =>
      horizon.requestCount >= requestsBefore + POLLED.length ? true : undefined,
    );
    await clock.advance(29_999);
    expect(valueOf(await scrape(), "stellar_horizon_up", H)).toBe(1);
    await clock.advance(1);
    // Publishing (rendering, compressing) takes real time after the stale timer fires.
    let series = await until(
      "up 0 at 45 s",
      async () => {
        const values = await scrape();
        return valueOf(values, "stellar_horizon_up", H) === 0 ? values : undefined;
      },
      { timeoutMs: 5_000 },
    );
    expect(timeouts(series, "root")).toBe(0);

    await clock.advance(15_000);
    series = await until(
      "the deadline at 60 s",
      async () => {
        const values = await scrape();
        return POLLED.every((endpoint) => timeouts(values, endpoint) === 1) ? values : undefined;
      },
      { timeoutMs: 5_000 },
    );
    expect(valueOf(series, "stellar_horizon_up", H)).toBe(0);
  }, 30_000);
});
