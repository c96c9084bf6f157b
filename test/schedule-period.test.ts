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

const HOUR_S = 3_600;
const DAY_S = 24 * HOUR_S;

describe("a cron schedule running more than 121 times a week", () => {
  it.each([
    // Every 15 s of weekday working hours: 10,800 runs a week, the longest gap Friday 17:59:45 to Monday 09:00.
    ["*/15 * 9-17 * * 1-5", 2 * DAY_S + 15 * HOUR_S + 15],
    // The near misses: every day (the night is the longest gap), and 120 and 123 runs a week on either side of the
    // 121 runs once measured, each gap Wednesday's last run to Monday 09:00.
    ["*/15 * 9-17 * * *", 15 * HOUR_S + 15],
    ["0 0-39 9 * * 1-3", 4 * DAY_S + 23 * HOUR_S + 21 * 60],
    ["0 0-40 9 * * 1-3", 4 * DAY_S + 23 * HOUR_S + 20 * 60],
    // Every second, all week: the one gap is a second.
    ["* * * * * *", 1],
  ])("%s has its longest gap over the whole week as its period", (pattern, seconds) => {
    expect((parseSchedule(pattern) as Schedule).periodMs).toBe(seconds * 1000);
  });
});

describe("a cron schedule in a time zone with daylight saving time", () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  // Node reads TZ again when it is set: runs at 02:30 skip the hour clocks spring over on a Sunday of March.
  it.each([
    ["Europe/Berlin", "0 30 2 * * *", DAY_S],
    ["Europe/Berlin", "0 30 2 * * 0", 7 * DAY_S + HOUR_S],
    ["America/New_York", "0 0 2 * * 0", 7 * DAY_S + HOUR_S],
  ])("in %s, %s runs on the day the clocks spring forward: its period is not doubled", (tz, pattern, seconds) => {
    process.env.TZ = tz;
    expect((parseSchedule(pattern) as Schedule).periodMs).toBe(seconds * 1000);
  });
});
