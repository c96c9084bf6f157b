import { describe, expect, it } from "vitest";
import { maxHoldMsOf } from "../src/client/http.js";
import { holdOffSeconds, parseRateLimitHeaders } from "../src/client/rate-limit.js";

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
