import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import { rootSamples } from "../src/collectors/root.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { ExporterMetrics } from "../src/exposition/self-metrics.js";
import { MetricStore } from "../src/exposition/store.js";
import type { Job } from "../src/job/job.js";
import { JobRunner, requestBudgetMs } from "../src/scheduler/job-runner.js";
import { ManualClock } from "./support/manual-clock.js";

describe("the end of a rate-limit hold (docs/metrics.md, 'Rate-limit holds')", () => {
  it("'once one poll succeeds, the polls that failed for the hold run at once, not after their backoff'", async () => {
    const clock = new ManualClock(0);
    const store = new MetricStore();
    const metrics = new ExporterMetrics("test");
    const schedule = parseSchedule("5s") as Schedule;
    let held = false;
    let feeStatsRuns = 0;
    const jobs: Job[] = [
      // The heartbeat, whose ticks did not fall inside the hold: it never failed.
      {
        role: "poll",
        source: "root",
        heartbeat: true,
        schedule,
        requestsPerRun: 1,
        run: async () => {},
        samples: (ok) => rootSamples(undefined, ok),
      },
      {
        role: "poll",
        source: "fee_stats",
        schedule,
        requestsPerRun: 1,
        run: async () => {
          feeStatsRuns += 1;
          if (held) throw new PollError("rate_limited", "holding back for 20 s more, as the server asked");
        },
        samples: () => ({ live: [], persistent: [] }),
      },
    ];
    const runners: JobRunner[] = [];
    for (const job of jobs)
      runners.push(
        new JobRunner({
          target: "h",
          job,
          lease: store.lease("h", job.source),
          freshnessMs: 3 * schedule.periodMs,
          requestBudgetMs: requestBudgetMs(schedule, 3, 10_000, 2),
          metrics: metrics.horizon,
          publishFailed: () => metrics.publishFailed(),
          log: pino({ level: "silent" }),
          clock,
          // As TargetRuntime wires it.
          succeeded: (by, healed) => {
            for (const runner of runners) if (runner !== by) runner.peerSucceeded(healed);
          },
        }),
      );
    const [root, feeStats] = runners as [JobRunner, JobRunner];
    await root.run();
    await feeStats.run();
    expect(feeStats.snapshot().lastSuccessMs).toBe(0);
    held = true;
    // fee_stats fails for the hold three times in a row: backed off (7.5 to 15 s beyond its schedule).
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await feeStats.run();
      await clock.advance(100);
    }
    expect(feeStatsRuns).toBe(4);
    // Its next tick comes while it backs off: skipped, and owed.
    await feeStats.runOnSchedule();
    expect(feeStatsRuns).toBe(4);
    // The hold ends; the next poll to succeed is root's, which never failed.
    held = false;
    await root.run();
    await feeStats.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await feeStats.idle();
    expect(feeStatsRuns).toBe(5);
    expect(feeStats.snapshot().lastSuccessMs).toBe(clock.now());
  });
});
