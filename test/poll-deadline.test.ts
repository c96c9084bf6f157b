import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { rootSamples } from "../src/collectors/root.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { METRICS } from "../src/catalog/metrics.js";
import type { ExporterConfig, TargetConfig } from "../src/config/config.js";
import type { Job } from "../src/job/job.js";
import { requestsPerPoll } from "../src/scheduler/request-plan.js";
import { schedule } from "../src/scheduler/job-runner.js";
import { ManualClock } from "./support/manual-clock.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { runnerFor } from "./support/job-harness.js";
import { until } from "./support/wait.js";

describe("the poll deadline", () => {
  it("reports a timeout at the deadline even when the collector ignores the abort, and never overlaps it", async () => {
    const clock = new ManualClock();
    let release: () => void = () => {};
    let polls = 0;
    const schedule = parseSchedule("1s") as Schedule;
    const stuck: Job = {
      role: "poll",
      source: "root",
      schedule,
      requestsPerRun: 1,
      run: () => {
        polls += 1;
        return new Promise<void>((resolve) => (release = resolve));
      },
      samples: (succeeded) => rootSamples(undefined, succeeded),
    };
    const { runner: poller, store } = runnerFor(stuck, { clock });
    const running = poller.run();
    await clock.advance(2_999);
    expect(poller.snapshot().lastError).toBeUndefined();
    await clock.advance(1);
    await until("the timeout to be reported", () => poller.snapshot().lastError);
    expect(poller.snapshot().lastError).toMatchObject({
      reason: "timeout",
      message: "run did not finish within its 3 s deadline (1 requests planned)",
    });
    expect((await store.scrape(clock.now(), "identity")).toString()).toContain('stellar_horizon_up{horizon="h"} 0');
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
      runOnSchedule: async () => void ticks.push(clock.now()),
    };
    const unschedule = schedule(poller, clock);
    // The first tick is a period away: a poll's first run at once is the runtime's.
    await clock.advance(0);
    expect(ticks).toEqual([]);
    await clock.advance(25_000);
    expect(ticks).toEqual([10_000, 20_000]);
    // A callback 35 s late (a stalled event loop) runs once, then the schedule keeps its phase.
    clock.stall(40_000);
    await clock.advance(0);
    await clock.advance(10_000);
    expect(ticks).toEqual([10_000, 20_000, 65_000, 70_000]);
    unschedule();
    await clock.advance(60_000);
    expect(ticks).toHaveLength(4);
  });
});

describe("a deadline that follows the request plan", () => {
  /** A pools poll of `pages` pages, page `n` answered `pageMs(n)` after it was asked for, on the clock. */
  function pagedJob(clock: ManualClock, pages: number, pageMs: (page: number) => number): Job {
    let done = 0;
    return {
      role: "poll",
      source: "liquidity_pools",
      schedule: parseSchedule("15s") as Schedule,
      requestsPerRun: pages,
      run: async ({ signal, progressed }) => {
        for (done = 0; done < pages; done += 1) {
          await new Promise<void>((resolve, reject) => {
            const timer = clock.setTimeout(resolve, pageMs(done));
            signal.addEventListener("abort", () => (clock.clearTimeout(timer), reject(signal.reason)), { once: true });
          });
          progressed();
        }
      },
      samples: () => ({ live: [{ metric: METRICS.liquidityPools, value: done }], persistent: [] }),
    };
  }

  it("lets a 20 000-pool poll of 101 pages at 400 ms a page finish, and still fails one whose upstream stops answering", async () => {
    // The request plan of 20 000 pools: 100 full pages, and one to learn the last was the last.
    expect(
      requestsPerPoll(
        "liquidity_pools",
        { schedules: {}, accounts: [] } as unknown as TargetConfig,
        { liquidityPools: { ids: [], max: 20_000 } } as unknown as ExporterConfig,
      ),
    ).toBe(101);
    const clock = new ManualClock(0);
    const slow = runnerFor(
      pagedJob(clock, 101, () => 400),
      { clock },
    );
    const runner = slow.runner;
    const running = runner.run();
    // 40.4 s in all: past the 30 s a single request may take (10 s timeout, 3 attempts).
    for (let page = 0; page < 101; page += 1) await clock.advance(400);
    await running;
    expect(runner.snapshot()).toMatchObject({ polls: 1, lastSuccessMs: 40_400 });
    expect(runner.snapshot().lastError).toBeUndefined();
    expect(
      valueOf(
        parseExposition((await slow.store.scrape(clock.now(), "identity")).toString()),
        "stellar_horizon_liquidity_pools",
        { horizon: "h" },
      ),
    ).toBe(101);

    // The same poll on an upstream that stops answering after 3 pages fails one budget (30 s) after the last answer.
    const clock2 = new ManualClock(0);
    const hung = runnerFor(
      pagedJob(clock2, 101, (page) => (page < 3 ? 400 : 3_600_000)),
      { clock: clock2 },
    );
    const stalled = hung.runner;
    const stalling = stalled.run();
    await clock2.advance(1_200);
    await clock2.advance(30_000 - 1);
    expect(stalled.snapshot().lastError).toBeUndefined();
    await clock2.advance(1);
    await stalling;
    expect(stalled.snapshot().lastError).toMatchObject({ reason: "timeout", message: "no answer within 30 s" });
  });
});

describe("a publication that fails", () => {
  it("is counted and logged once, never rejects a run, and the next one publishes", async () => {
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    let value = 0;
    const job: Job = {
      role: "poll",
      source: "root",
      schedule: parseSchedule("1s") as Schedule,
      requestsPerRun: 1,
      run: async () => void (value += 1),
      samples: (succeeded) => {
        if (value <= 2) throw new Error(`rendering broke on poll ${value}`);
        return rootSamples(undefined, succeeded);
      },
    };
    const { runner, store, metrics } = runnerFor(job, { log });
    await runner.run();
    await runner.run();
    const own = async () => parseExposition((await metrics.render("identity")).toString());
    expect(valueOf(await own(), "stellar_horizon_exporter_publish_failures_total")).toBe(2);
    expect(lines.filter((line) => line.includes("publishing to the metric store failed"))).toHaveLength(1);
    await runner.run();
    expect((await store.scrape(Date.now(), "identity")).toString()).toContain('stellar_horizon_up{horizon="h"} 1');
    expect(runner.snapshot().polls).toBe(3);
  });
});
