import { afterEach, describe, expect, it, vi } from "vitest";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";

/** A cron pattern's period is measured from a fixed start: the same file gives the same freshness whenever it loads. */
const periodAt = (local: Date, pattern: string) => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(local);
  return (parseSchedule(pattern) as Schedule).periodMs;
};

afterEach(() => {
  vi.useRealTimers();
});

describe("a working-hours cron schedule's period", () => {
  it("does not depend on whether the exporter (re)loaded at 10:00 or at 17:40", () => {
    const pattern = "*/15 * 9-17 * * *"; // every 15 s from 09:00 to 17:59
    const morning = periodAt(new Date(2026, 10, 24, 10, 0, 0), pattern);
    const afternoon = periodAt(new Date(2026, 10, 24, 17, 40, 0), pattern);
    // Freshness is stale_after_intervals x period: 45 s in one case, 45 h in the other for the same file.
    expect(afternoon).toBe(morning);
  });
});
