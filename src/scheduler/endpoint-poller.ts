import type { Logger } from "pino";
import type { Endpoint, PollEndpoint, PollErrorReason } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { Collector, PollContext } from "../collectors/collector.js";
import { EndpointPublisher } from "./publisher.js";
import type { MetricStore } from "../exposition/store.js";
import type { Schedule } from "../config/schedule.js";
import type { Clock } from "../clock.js";

/** What the landing page and /readyz show about one endpoint of one target. */
export interface EndpointStatus {
  readonly target: string;
  readonly endpoint: PollEndpoint;
  readonly schedule: string;
  readonly polls: number;
  readonly lastSuccessMs?: number;
  readonly lastError?: { readonly reason: PollErrorReason; readonly message: string; readonly atMs: number };
  /** When the poll now running started. */
  readonly runningSinceMs?: number;
}

/** The longest a failing endpoint waits beyond its schedule between polls. */
const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * The time a poll (every page, attempt and retry wait) may take: the endpoint's freshness window,
 * and never more than every attempt of one request timing out, so a hanging Horizon is reported
 * before its data goes stale, not half a minute after.
 */
export function pollDeadlineMs(schedule: Schedule, staleAfterIntervals: number, timeoutMs: number, retries: number): number {
  return Math.min(staleAfterIntervals * schedule.periodMs, timeoutMs * (retries + 1));
}

/** Where a poller counts its polls: the Horizon or the Stellar RPC self-metrics. */
export interface PollMetrics<E extends PollEndpoint> {
  pollSucceeded(target: string, endpoint: E, durationSeconds: number): void;
  pollFailed(target: string, endpoint: E, durationSeconds: number, reason: PollErrorReason): void;
  /** Absent where no collector reads records one by one (Stellar RPC). */
  invalidRecordsRead?(target: string, endpoint: E, count: number): void;
}

export interface EndpointPollerOptions<E extends PollEndpoint> {
  /** The target's name: a Horizon's, or a Stellar RPC's. */
  readonly target: string;
  readonly collector: Collector<E>;
  readonly publisher: EndpointPublisher<E>;
  readonly schedule: Schedule;
  readonly deadlineMs: number;
  readonly metrics: PollMetrics<E>;
  readonly log: Logger;
  readonly clock: Clock;
  /** Aborted when the target stops. */
  readonly signal: AbortSignal;
}

/**
 * Runs one collector's polls one at a time, each within its deadline; counts and logs failures,
 * backs off after repeated ones, and tells the publisher how each poll ended.
 */
export class EndpointPoller<E extends PollEndpoint = Endpoint> {
  private inFlight: Promise<void> | undefined;
  private status: EndpointStatus;
  private consecutiveFailures = 0;
  /** Scheduled polls before this instant are skipped: backoff after repeated failures. */
  private notBeforeMs = 0;

  constructor(private readonly options: EndpointPollerOptions<E>) {
    this.status = {
      target: options.target,
      endpoint: options.collector.endpoint,
      schedule: options.schedule.text,
      polls: 0,
    };
  }

  get endpoint(): E {
    return this.options.collector.endpoint;
  }

  get schedule(): Schedule {
    return this.options.schedule;
  }

  snapshot(): EndpointStatus {
    return this.status;
  }

  /** Polls once; a call while a poll is running joins it instead of overlapping. Never rejects. */
  run(): Promise<void> {
    this.inFlight ??= this.pollOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** A scheduled tick: polls unless a run is in flight or the endpoint is backing off. */
  runOnSchedule(): Promise<void> {
    return this.options.clock.now() < this.notBeforeMs ? Promise.resolve() : this.run();
  }

  /** Resolves when no poll is running; starts none. */
  async idle(): Promise<void> {
    await this.inFlight;
  }

  private async pollOnce(): Promise<void> {
    const { target, collector, metrics, log, clock, deadlineMs } = this.options;
    const startedMs = clock.now();
    this.status = { ...this.status, runningSinceMs: startedMs };
    const controller = new AbortController();
    const onStop = () => controller.abort(this.options.signal.reason);
    this.options.signal.addEventListener("abort", onStop, { once: true });
    let invalidRecords = 0;
    const context: PollContext = {
      signal: controller.signal,
      invalidRecords: (count) => {
        invalidRecords += count;
        metrics.invalidRecordsRead?.(target, collector.endpoint, count);
      },
    };
    let timer: unknown;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = clock.setTimeout(() => {
        const failure = new PollError("timeout", `poll did not finish within its ${deadlineMs / 1000} s deadline`);
        controller.abort(failure);
        reject(failure);
      }, deadlineMs);
    });
    const polling = collector.poll(context);
    try {
      await Promise.race([polling, deadline]);
      if (invalidRecords > 0) log.warn({ endpoint: collector.endpoint, invalidRecords }, "left out records that do not match Horizon's schema");
      await this.succeeded((clock.now() - startedMs) / 1000);
    } catch (error) {
      // A poll cut short because its target stops says nothing about Horizon: nothing to count or log.
      // Any other failure is reported at once, even at the deadline, whatever the collector still does.
      if (!this.options.signal.aborted) await this.failed(error, (clock.now() - startedMs) / 1000);
      // An aborted poll settles promptly; waiting for it keeps the collector to one poll at a time.
      await polling.catch(() => undefined);
    } finally {
      clock.clearTimeout(timer);
      this.options.signal.removeEventListener("abort", onStop);
    }
  }

  private async succeeded(durationSeconds: number): Promise<void> {
    const { target, collector, metrics, publisher, clock } = this.options;
    metrics.pollSucceeded(target, collector.endpoint, durationSeconds);
    this.consecutiveFailures = 0;
    this.notBeforeMs = 0;
    await publisher.succeeded();
    // Counted once its data is in the store, so /readyz never runs ahead of /metrics.
    const { runningSinceMs: _, ...rest } = this.status;
    this.status = { ...rest, polls: this.status.polls + 1, lastSuccessMs: clock.now() };
  }

  private async failed(error: unknown, durationSeconds: number): Promise<void> {
    const { target, collector, metrics, publisher, log, clock } = this.options;
    const failure =
      error instanceof PollError ? error : new PollError("internal", error instanceof Error ? error.message : String(error));
    metrics.pollFailed(target, collector.endpoint, durationSeconds, failure.reason);
    log.warn({ endpoint: collector.endpoint, reason: failure.reason, status: failure.details.status, error: failure.message }, "poll failed");
    this.backOff();
    await publisher.failed();
    const { runningSinceMs: _, ...rest } = this.status;
    this.status = { ...rest, polls: this.status.polls + 1, lastError: { reason: failure.reason, message: failure.message, atMs: clock.now() } };
  }

  /**
   * Each further consecutive failure doubles the wait beyond the schedule (with jitter, so
   * exporters sharing an upstream do not retry in step), up to MAX_BACKOFF_MS.
   */
  private backOff(): void {
    this.consecutiveFailures += 1;
    const periodMs = this.options.schedule.periodMs;
    const extraMs = Math.min(periodMs * (2 ** (this.consecutiveFailures - 1) - 1), MAX_BACKOFF_MS);
    this.notBeforeMs = this.options.clock.now() + extraMs * (0.5 + Math.random() / 2);
  }
}

/** What a target's pollers share: where they publish, their limits, and when they stop. */
export interface TargetPolling<E extends PollEndpoint> {
  readonly name: string;
  readonly schedules: Readonly<Record<E, Schedule>>;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly staleAfterIntervals: number;
  readonly store: MetricStore;
  readonly metrics: PollMetrics<E>;
  readonly log: Logger;
  readonly clock: Clock;
  readonly signal: AbortSignal;
}

/** A poller and its publisher for each of a target's collectors, on the target's schedules and deadlines. */
export function pollersFor<E extends PollEndpoint>(
  collectors: readonly Collector<E>[],
  target: TargetPolling<E>,
): { pollers: EndpointPoller<E>[]; publishers: EndpointPublisher<E>[] } {
  const { name, schedules, timeoutMs, retries, staleAfterIntervals, store, metrics, log, clock, signal } = target;
  const publishers: EndpointPublisher<E>[] = [];
  const pollers = collectors.map((collector) => {
    const schedule = schedules[collector.endpoint];
    const publisher = new EndpointPublisher<E>(name, collector, store, staleAfterIntervals * schedule.periodMs, clock);
    publishers.push(publisher);
    return new EndpointPoller<E>({
      target: name,
      collector,
      publisher,
      schedule,
      deadlineMs: pollDeadlineMs(schedule, staleAfterIntervals, timeoutMs, retries),
      metrics,
      log,
      clock,
      signal,
    });
  });
  return { pollers, publishers };
}
