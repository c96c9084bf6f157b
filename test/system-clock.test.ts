import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../src/clock.js";

afterEach(() => {
  vi.useRealTimers();
});

// Node fires a timer longer than 2^31 - 1 ms after 1 ms: a monthly schedule's freshness window would end at once.
describe("the system clock's timers", () => {
  it("wait out a delay longer than Node's longest timer", () => {
    vi.useFakeTimers();
    let fired = 0;
    systemClock.setTimeout(() => (fired += 1), 30 * 86_400_000);
    vi.advanceTimersByTime(1_000);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(30 * 86_400_000 - 1_001);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
  });

  it("clear a long timer in any of its steps", () => {
    vi.useFakeTimers();
    let fired = 0;
    const handle = systemClock.setTimeout(() => (fired += 1), 30 * 86_400_000);
    vi.advanceTimersByTime(25 * 86_400_000);
    systemClock.clearTimeout(handle);
    vi.advanceTimersByTime(10 * 86_400_000);
    expect(fired).toBe(0);
  });

  it("fire a short timer once, on time", () => {
    vi.useFakeTimers();
    let fired = 0;
    systemClock.setTimeout(() => (fired += 1), 500);
    vi.advanceTimersByTime(499);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
  });
});
