import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Collector } from "../src/collectors/collector.js";
import { EndpointPublisher } from "../src/scheduler/publisher.js";
import { rootSamples } from "../src/collectors/root.js";
import { ExporterMetrics } from "../src/exposition/self-metrics.js";
import { MetricStore } from "../src/exposition/store.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { EndpointPoller, pollDeadlineMs } from "../src/scheduler/endpoint-poller.js";
import { Scheduler } from "../src/scheduler/scheduler.js";
import { ManualClock } from "./support/manual-clock.js";
import { until } from "./support/wait.js";

describe("the poll deadline", () => {
  it("reports a timeout at the deadline even when the collector ignores the abort, and never overlaps it", async () => {
    const clock = new ManualClock();
    let release: () => void = () => {};
    let polls = 0;
    const stuck: Collector = {
      endpoint: "root",
      poll: () => {
        polls += 1;
        return new Promise<void>((resolve) => (release = resolve));
      },
      samples: (succeeded) => rootSamples(undefined, succeeded),
    };
    const store = new MetricStore();
    const metrics = new ExporterMetrics("test");
    const schedule = parseSchedule("1s") as Schedule;
    const poller = new EndpointPoller({
      target: "h",
      collector: stuck,
      publisher: new EndpointPublisher("h", stuck, store, 3_000, clock),
      schedule,
      deadlineMs: pollDeadlineMs(schedule, 3, 10_000, 2),
      metrics,
      log: pino({ level: "silent" }),
      clock,
      signal: new AbortController().signal,
    });
    const running = poller.run();
    await clock.advance(2_999);
    expect(poller.snapshot().lastError).toBeUndefined();
    await clock.advance(1);
    await until("the timeout to be reported", () => poller.snapshot().lastError);
    expect(poller.snapshot().lastError).toMatchObject({ reason: "timeout", message: "poll did not finish within its 3 s deadline" });
    expect(Buffer.concat(store.render(clock.now())).toString()).toContain('stellar_horizon_up{horizon="h"} 0');
    // The stuck poll still holds the collector: another run joins it instead of starting a second one.
    void poller.run();
    expect(polls).toBe(1);
    release();
    await running;
  });
});

describe("interval schedules", () => {
  it("tick in phase on the clock and skip the ticks a stalled process missed", async () => {
    const clock = new ManualClock(0);
    const ticks: number[] = [];
    const poller = {
      schedule: parseSchedule("10s") as Schedule,
      run: async () => void ticks.push(clock.now()),
      runOnSchedule: async () => void ticks.push(clock.now()),
      idle: async () => undefined,
    } as unknown as EndpointPoller;
    const scheduler = new Scheduler([poller], clock);
    await scheduler.start();
    await clock.advance(25_000);
    expect(ticks).toEqual([0, 10_000, 20_000]);
    // A callback 35 s late (a stalled event loop) runs once, then the schedule keeps its phase.
    clock.stall(40_000);
    await clock.advance(0);
    await clock.advance(10_000);
    expect(ticks).toEqual([0, 10_000, 20_000, 65_000, 70_000]);
    await scheduler.stop();
    await clock.advance(60_000);
    expect(ticks).toHaveLength(5);
  });
});
