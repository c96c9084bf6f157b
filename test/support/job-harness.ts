import { pino, type Logger } from "pino";
import { systemClock, type Clock } from "../../src/clock.js";
import { ExporterMetrics } from "../../src/exposition/self-metrics.js";
import { MetricStore } from "../../src/exposition/store.js";
import type { Job } from "../../src/job/job.js";
import { JobRunner, requestBudgetMs } from "../../src/scheduler/job-runner.js";

/**
 * One job of target `h` run as its runtime runs it: a runner with its lease, the
 * default freshness (3 periods) and, unless told, a 10 s request timeout with 2 retries.
 */
export function runnerFor(
  job: Job,
  {
    store = new MetricStore(),
    clock = systemClock,
    log = pino({ level: "silent" }),
    metrics = new ExporterMetrics("test"),
    timeoutMs = 10_000,
    retries = 2,
  }: {
    store?: MetricStore;
    clock?: Clock;
    log?: Logger;
    metrics?: ExporterMetrics;
    timeoutMs?: number;
    retries?: number;
  } = {},
): { runner: JobRunner; store: MetricStore; metrics: ExporterMetrics } {
  const runner = new JobRunner({
    target: "h",
    job,
    lease: store.lease("h", job.source),
    freshnessMs: job.role === "poll" ? 3 * job.schedule.periodMs : Infinity,
    requestBudgetMs: requestBudgetMs(job.schedule, 3, timeoutMs, retries),
    metrics: metrics.horizon,
    publishFailed: () => metrics.publishFailed(),
    log,
    clock,
  });
  return { runner, store, metrics };
}
