import dns from "node:dns";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENDPOINTS as ALL_ENDPOINTS } from "../src/catalog/metrics.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";
import { makeLedger, makePool } from "./support/fake-horizon.js";
import { fixtureText } from "./support/fixtures.js";
import { until } from "./support/wait.js";
import { HostileHorizon, hang, hugeBody, redirectLoop, reply, type Misbehaviour } from "./support/hostile-horizon.js";

/** Accounts, their flow, assets, markets and corridors are polled only where some are watched; these targets have none. */
const ENDPOINTS = ALL_ENDPOINTS.filter(
  (endpoint) => !["accounts", "activity", "assets", "markets", "corridors"].includes(endpoint),
);

/** Every unhandled rejection or exception during the whole matrix, which must stay empty. */
const unhandled: unknown[] = [];
const recordUnhandled = (reason: unknown) => unhandled.push(reason);

/** No DNS query leaves the machine: names under .invalid fail the way a missing name does. */
const realLookup = dns.lookup;
function failInvalidNames(): void {
  (dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === "function" ? options : callback) as (error: Error) => void;
    if (!host.endsWith(".invalid")) return (realLookup as (...args: unknown[]) => void)(host, options, callback);
    process.nextTick(() =>
      done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND", hostname: host })),
    );
  };
}

const H = { horizon: "hostile" };
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

let hostile: HostileHorizon;
let logs: LogSink;
let exporter: RunningExporter;

async function scrape(): Promise<Map<string, number>> {
  return parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
}

function errorCount(series: Map<string, number>, endpoint: string, reason: string): number {
  return valueOf(series, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint, reason }) ?? Number.NaN;
}

beforeAll(() => {
  process.on("unhandledRejection", recordUnhandled);
  process.on("uncaughtException", recordUnhandled);
  failInvalidNames();
});

afterAll(() => {
  (dns as { lookup: unknown }).lookup = realLookup;
  process.off("unhandledRejection", recordUnhandled);
  process.off("uncaughtException", recordUnhandled);
  // The process-level check: nothing escaped during the whole matrix.
  expect(unhandled).toEqual([]);
});

/** Every case gets a fresh Horizon and exporter, so no case depends on what an earlier one left behind. */
beforeEach(async () => {
  hostile = new HostileHorizon();
  logs = new LogSink();
  hostile.healthy.addLedgers(5);
  for (let index = 1; index <= 3; index += 1) hostile.healthy.pools.push(makePool(index));
  const url = await hostile.start();
  const dir = mkdtempSync(join(tmpdir(), "she-faults-"));
  writeFileSync(
    join(dir, "config.yml"),
    `targets:\n  - name: hostile\n    url: ${url}\n    timeout: 2s\nhttp: { retries: 0, max_body_size: 1MiB }\nlog: { level: warn }\n`,
  );
  const config = await configFrom([
    `--config.file=${join(dir, "config.yml")}`,
    "--poll.interval=1h",
    "--log.level=warn",
  ]);
  exporter = await startExporter(config, { logger: pino({ level: "warn" }, logs) });
  await exporter.firstPolls;
});

afterEach(async () => {
  await exporter.close();
  await hostile.stop();
});

const problem = (name: string, status: number): Misbehaviour =>
  reply(status, fixtureText(name), { "Content-Type": "application/problem+json; charset=utf-8" });

const GZIPPED_HAL = { "Content-Type": "application/hal+json", "Content-Encoding": "gzip" };

const MATRIX: [string, string, Misbehaviour][] = [
  ["a response that never comes", "timeout", hang],
  [
    "429 with Retry-After",
    "rate_limited",
    reply(429, fixtureText("error-rate_limit_exceeded-horizon-src.json"), {
      "Retry-After": "1",
      "X-Ratelimit-Remaining": "0",
      "X-Ratelimit-Reset": "1",
    }),
  ],
  ["problem+json 500", "http_5xx", problem("error-server_error-horizon-src.json", 500)],
  ["problem+json 503", "http_5xx", problem("error-stale_history-horizon-src.json", 503)],
  ["problem+json 504", "http_5xx", problem("error-timeout-horizon-src.json", 504)],
  ["plain-text 503", "http_5xx", reply(503, "Server capacity exceeded.", { "Content-Type": "text/plain" })],
  [
    "HTML 502 from a proxy",
    "http_5xx",
    reply(502, "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", {
      "Content-Type": "text/html",
    }),
  ],
  ["empty 504", "http_5xx", reply(504, "")],
  [
    "truncated JSON",
    "invalid_json",
    reply(200, '{"_embedded": {"records": [{"id": "00', { "Content-Type": "application/hal+json" }),
  ],
  [
    "valid JSON violating the schema",
    "schema",
    reply(200, JSON.stringify({ hello: "world", _embedded: { records: "nope" } }), {
      "Content-Type": "application/json",
    }),
  ],
  ["a 64 MiB body", "body_too_large", hugeBody(64 * 1024 * 1024)],
  // Horizon gzips HAL bodies; the cap counts the bytes after decoding.
  [
    "a gzip bomb: 64 MiB in 64 KiB",
    "body_too_large",
    reply(200, gzipSync(Buffer.alloc(64 * 1024 * 1024, " ")), GZIPPED_HAL),
  ],
  ["a body that is not the gzip it claims", "network", reply(200, "{}", GZIPPED_HAL)],
  ["a redirect loop", "network", redirectLoop],
  ["a connection reset", "network", (request) => request.socket.destroy()],
];

describe("fault matrix: the whole Horizon misbehaves, then recovers", () => {
  it.each(MATRIX)("%s → reason %s", async (_name, reason, misbehaviour) => {
    const before = await scrape();
    expect(valueOf(before, "stellar_horizon_up", H)).toBe(1);
    for (const gauge of LIVE_GAUGES) expect(valueOf(before, gauge, H), gauge).toBeDefined();
    const ledgersBefore = valueOf(before, "stellar_horizon_ledgers_total", H);
    const firstLog = logs.lines.length;

    hostile.misbehaviour = misbehaviour;
    const polling = exporter.pollAll();
    // /metrics answers promptly while the polls are stuck on the misbehaving Horizon.
    const scrapeStarted = performance.now();
    await scrape();
    expect(performance.now() - scrapeStarted).toBeLessThan(1_000);
    await polling;

    const during = await scrape();
    expect(valueOf(during, "stellar_horizon_up", H)).toBe(0);
    for (const gauge of LIVE_GAUGES) expect(valueOf(during, gauge, H), gauge).toBeUndefined();
    expect(valueOf(during, "stellar_horizon_ledgers_total", H)).toBe(ledgersBefore);
    for (const endpoint of ENDPOINTS) {
      expect(errorCount(during, endpoint, reason) - errorCount(before, endpoint, reason), endpoint).toBe(1);
    }
    const failures = logs.lines.slice(firstLog).filter((line) => line.msg === "poll failed");
    expect(failures).toHaveLength(ENDPOINTS.length);
    expect(new Set(failures.map((line) => line.endpoint))).toEqual(new Set(ENDPOINTS));
    for (const line of failures) {
      expect(line).toMatchObject({ horizon: "hostile", reason });
      expect(String(line.error).length).toBeLessThan(250);
    }

    hostile.misbehaviour = undefined;
    const requestsBeforeRecovery = hostile.requestCount;
    hostile.healthy.addLedgers(1);
    const after = await until("recovery", async () => {
      await exporter.pollAll();
      const series = await scrape();
      return LIVE_GAUGES.every((gauge) => valueOf(series, gauge, H) !== undefined) &&
        valueOf(series, "stellar_horizon_up", H) === 1
        ? series
        : undefined;
    });
    expect(valueOf(after, "stellar_horizon_ledgers_total", H)).toBe(ledgersBefore! + 1);
    if (reason === "rate_limited") {
      // Held back for Retry-After: the polls during the hold sent nothing.
      expect(valueOf(after, "stellar_horizon_exporter_requests_total", { ...H, endpoint: "root", code: "429" })).toBe(
        1,
      );
    }
    expect(hostile.requestCount).toBeGreaterThan(requestsBeforeRecovery);
  });
});

describe("faults of the Horizon's data", () => {
  it("a ledger sequence falling below half the latest resynchronises; one a little behind is waited for", async () => {
    hostile.healthy.addLedgers(95);
    await exporter.pollAll();
    const ledgersRead = valueOf(await scrape(), "stellar_horizon_ledgers_total", H)!;
    // A Horizon two ledgers behind (one behind a load balancer, say): nothing read again, nothing resynchronised.
    const [last, beforeLast] = [hostile.healthy.ledgers.pop()!, hostile.healthy.ledgers.pop()!];
    await exporter.pollAll();
    hostile.healthy.ledgers.push(beforeLast, last);
    hostile.healthy.addLedgers(1);
    await exporter.pollAll();
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledger_resyncs_total", H)).toBe(0);
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(ledgersRead + 1);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(101);

    hostile.healthy.ledgers = [1, 2, 3].map((sequence) => makeLedger(sequence, {}, 7));
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledger_resyncs_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(3);
  });

  it("pool paging that never ends stops at the cap", async () => {
    for (let index = 4; index <= 1200; index += 1) hostile.healthy.pools.push(makePool(index));
    const before = hostile.healthy.requestsTo("/liquidity_pools").length;
    await exporter.pollAll();
    expect(hostile.healthy.requestsTo("/liquidity_pools").length - before).toBe(1);
    expect(valueOf(await scrape(), "stellar_horizon_liquidity_pools", H)).toBe(200);
  });
  // A cursor that never advances: see "fails the poll with reason paging" in exporter.integration.test.ts.
});

/** A loopback port that was free a moment ago, so connecting to it is refused. */
describe("unreachable Horizons", () => {
  it.each([
    // Port 1 (tcpmux) has no listener, and listen(0) never hands it out: a port freed for the test could be taken by
    // the exporter's own listener or another test file's server.
    ["connection refused", async () => "http://127.0.0.1:1/", /ECONNREFUSED/],
    ["a name that does not resolve", async () => "http://horizon.invalid/", /ENOTFOUND/],
  ])("%s", async (_name, urlOf, message) => {
    const url = await urlOf();
    const sink = new LogSink();
    const config = await configFrom([`--horizon.url=gone=${url}`, "--poll.interval=1h"]);
    const unreachable = await startExporter(config, { logger: pino({ level: "warn" }, sink) });
    try {
      await unreachable.firstPolls;
      const values = parseExposition(await (await fetch(`${unreachable.url}/metrics`)).text());
      expect(valueOf(values, "stellar_horizon_up", { horizon: "gone" })).toBe(0);
      for (const endpoint of ENDPOINTS) {
        expect(
          valueOf(values, "stellar_horizon_exporter_poll_errors_total", {
            horizon: "gone",
            endpoint,
            reason: "network",
          }),
        ).toBe(1);
      }
      expect(sink.lines.filter((line) => line.msg === "poll failed").map((line) => String(line.error))).toEqual(
        ENDPOINTS.map(() => expect.stringMatching(message)),
      );
    } finally {
      await unreachable.close();
    }
  });
});
