import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import { CourteousHttp, type Hold, Holds, maxHoldMsOf } from "../src/client/http.js";
import { holdOffSeconds, parseRateLimitHeaders } from "../src/client/rate-limit.js";
import { ExporterMetrics } from "../src/exposition/self-metrics.js";
import { MetricStore } from "../src/exposition/store.js";
import { HORIZON } from "../src/runtime/horizon.js";
import { TargetRuntime } from "../src/runtime/runtime.js";
import { configFrom } from "./support/exporter-harness.js";
import { ManualClock } from "./support/manual-clock.js";

const NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);
const parse = (headers: Record<string, string>) => parseRateLimitHeaders(new Headers(headers), NOW_MS);

describe("rate-limit headers are read as seconds, Unix epochs or HTTP dates", () => {
  it.each([
    ["seconds", "42", 42],
    ["a Unix epoch", String(NOW_MS / 1000 + 90), 90],
    ["a Unix epoch in the past", String(NOW_MS / 1000 - 90), 0],
    ["an HTTP date", "Wed, 25 Nov 2026 12:02:00 GMT", 120],
    [
      "an HTTP date in the year 9999",
      "Fri, 31 Dec 9999 23:59:59 GMT",
      (Date.UTC(9999, 11, 31, 23, 59, 59) - NOW_MS) / 1000,
    ],
  ])("X-RateLimit-Reset and Retry-After as %s", (_name, value, seconds) => {
    expect(parse({ "X-RateLimit-Reset": value, "Retry-After": value })).toEqual({
      resetSeconds: seconds,
      retryAfterSeconds: seconds,
    });
  });

  it.each(["-5", "Infinity", "1e400", "soon", ""])("ignores %j", (value) => {
    expect(parse({ "X-RateLimit-Reset": value, "Retry-After": value })).toEqual({});
  });
});

describe("what the server asks to hold back for", () => {
  it("Retry-After only on the statuses it is defined for (429, 503)", () => {
    expect(holdOffSeconds({ retryAfterSeconds: 86_400 }, 200)).toBeUndefined();
    expect(holdOffSeconds({ retryAfterSeconds: 20 }, 503)).toBe(20);
    expect(holdOffSeconds({ retryAfterSeconds: 20 }, 429)).toBe(20);
    expect(holdOffSeconds({}, 429)).toBe(30);
  });

  it("an exhausted window until its reset, on any status", () => {
    expect(holdOffSeconds({ remaining: 0, resetSeconds: 7 }, 200)).toBe(7);
    expect(holdOffSeconds({ remaining: 1, resetSeconds: 7 }, 200)).toBeUndefined();
  });

  it("is capped at one hour, or the target's longest freshness window if longer", () => {
    const every = (seconds: number) => ({ periodMs: seconds * 1000 });
    expect(maxHoldMsOf({ schedules: { root: every(15), ledgers: every(5) }, staleAfterIntervals: 3 })).toBe(3_600_000);
    expect(maxHoldMsOf({ schedules: { root: every(15), accounts: every(3600) }, staleAfterIntervals: 3 })).toBe(
      3 * 3_600_000,
    );
  });
});

describe("after a hold, one request asks first", () => {
  /** Requests wait here until the test answers them, with a status and headers. */
  const waiting: ServerResponse[] = [];
  const server = createServer((_request, response) => waiting.push(response));
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((closed) => server.close(closed)));

  const answer = (status: number, headers: Record<string, string> = {}) => {
    const response = waiting.shift();
    if (response === undefined) throw new Error("no request is waiting");
    response.writeHead(status, { "Content-Type": "application/json", ...headers }).end("{}");
  };
  async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
    for (const started = Date.now(); !condition(); await new Promise((turn) => setImmediate(turn))) {
      if (Date.now() - started > timeoutMs) throw new Error("timed out waiting for the server to see a request");
    }
  }
  /** Three endpoints' requests, due at once, and how each ends: `ok` or the poll error's reason. */
  const threeDue = (http: CourteousHttp<string>) =>
    ["root", "ledgers", "fee_stats"].map((endpoint) =>
      http.json(endpoint, url, undefined).then(
        () => "ok",
        (error: { reason?: string }) => error.reason ?? String(error),
      ),
    );

  it("sends nothing more while the server still limits, and everything once it answers", async () => {
    const clock = new ManualClock();
    const http = new CourteousHttp<string>({ url, timeoutMs: 60_000, retries: 0, maxBodyBytes: 1 << 16, clock }, "*/*");
    const limited = http.json("root", url, undefined).catch((error: { reason?: string }) => error.reason);
    await until(() => waiting.length === 1);
    answer(429, { "Retry-After": "30" });
    expect(await limited).toBe("rate_limited");

    // The hold ends and three endpoints fall due: one request goes; the server, still limiting, answers 429 again.
    clock.stall(30_000);
    let outcomes = threeDue(http);
    await until(() => waiting.length === 1);
    answer(429, { "Retry-After": "30" });
    expect(await Promise.all(outcomes)).toEqual(["rate_limited", "rate_limited", "rate_limited"]);
    expect(waiting).toHaveLength(0);

    // The next hold ends: the first request is answered, and then the others go.
    clock.stall(30_000);
    outcomes = threeDue(http);
    await until(() => waiting.length === 1);
    answer(200);
    await until(() => waiting.length === 2);
    answer(200);
    answer(200);
    expect(await Promise.all(outcomes)).toEqual(["ok", "ok", "ok"]);
  });

  /** A client the server held back for one second, the second now over. */
  async function afterOneSecondHold(timeoutMs: number) {
    const clock = new ManualClock();
    const http = new CourteousHttp<string>({ url, timeoutMs, retries: 0, maxBodyBytes: 1 << 16, clock }, "*/*");
    const limited = http.json("root", url, undefined).catch(() => {});
    await until(() => waiting.length === 1);
    answer(429, { "Retry-After": "1" });
    await limited;
    clock.stall(1_000);
    return { clock, http };
  }

  it("a request waiting behind the first gives up when its poll is aborted", async () => {
    const { http } = await afterOneSecondHold(60_000);
    const first = http.json("root", url, undefined);
    await until(() => waiting.length === 1);
    const poll = new AbortController();
    const behind = http.json("ledgers", url, undefined, poll.signal).catch((error: Error) => error.message);
    poll.abort(new PollError("timeout", "the poll reached its deadline"));
    expect(await behind).toBe("the poll reached its deadline");
    expect(waiting).toHaveLength(1);
    answer(200);
    expect(await first).toEqual({});
  });

  it("when the first request after a hold gets no answer, the next one goes first again", async () => {
    const { clock, http } = await afterOneSecondHold(5_000);
    const outcomes = threeDue(http);
    await until(() => waiting.length === 1);
    // The first times out unanswered: one more goes alone, the third still waits.
    await clock.advance(5_000);
    await until(() => waiting.length === 2);
    await expect(until(() => waiting.length === 3, 300)).rejects.toThrow(/timed out/);
    waiting.shift()!.destroy();
    answer(200);
    await until(() => waiting.length === 1);
    answer(200);
    expect(await Promise.all(outcomes)).toEqual(["timeout", "ok", "ok"]);
  });
});

describe("targets of one URL", () => {
  it("share a hold with the same headers (under any name), not with other credentials; no key shows them", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "she-holds-")), "config.yml");
    const target = (name: string, headers: string) =>
      `  - { name: ${name}, url: "http://127.0.0.1:9", headers: ${headers} }\n`;
    writeFileSync(
      file,
      "targets:\n" +
        target("a", '{ X-Api-Key: "key-of-a-123" }') +
        target("a-again", '{ x-api-key: "key-of-a-123" }') +
        target("b", '{ X-Api-Key: "key-of-b-456" }') +
        target("anonymous", "{}"),
    );
    const config = await configFrom([`--config.file=${file}`]);
    const keys: string[] = [];
    const holds = new (class extends Holds {
      override of(key: string): Hold {
        keys.push(key);
        return super.of(key);
      }
    })();
    const services = {
      store: new MetricStore(),
      metrics: new ExporterMetrics("test"),
      logger: pino({ level: "silent" }),
      clock: new ManualClock(),
      holds,
      plansWarned: new Map(),
    };
    for (const each of config.targets) new TargetRuntime(HORIZON, each, config, services);
    const [a, again, b, anonymous] = keys.map((key) => holds.of(key));
    expect(again).toBe(a);
    expect(new Set([a, b, anonymous]).size).toBe(3);
    for (const key of keys) expect(key).not.toMatch(/key-of|127\.0\.0\.1/);
  });
});
