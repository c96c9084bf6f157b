import type { Logger } from "pino";
import type { Endpoint, PollErrorReason } from "../catalog/metrics.js";
import { HorizonError } from "../client/errors.js";
import type { Collector, PollContext } from "../collectors/collector.js";
import type { ExporterMetrics } from "../collectors/exporter.js";
import type { MetricStore } from "../collectors/store.js";
import type { Schedule } from "../config/schedule.js";

/** What the landing page and /readyz show about one endpoint of one target. */
export interface EndpointStatus {
  readonly horizon: string;
  readonly endpoint: Endpoint;
  readonly schedule: string;
  readonly polls: number;
  readonly lastSuccessMs?: number;
  readonly lastError?: { readonly reason: PollErrorReason; readonly message: string; readonly atMs: number };
}

/** The longest a failing endpoint waits beyond its schedule between polls. */
const MAX_BACKOFF_MS = 5 * 60_000;

export interface EndpointPollerOptions {
  readonly horizon: string;
  readonly collector: Collector;
  readonly schedule: Schedule;
  readonly staleAfterIntervals: number;
  readonly store: MetricStore;
  readonly metrics: ExporterMetrics;
  readonly log: Logger;
  readonly now?: () => number;
  /** Aborted when the exporter stops. */
  readonly signal?: AbortSignal;
}

/**
 * Runs one collector's polls one at a time, counts and logs their failures, and publishes the
 * collector's samples to the store after every poll, successful or not.
 */
export class EndpointPoller {
  private inFlight: Promise<void> | undefined;
  private status: EndpointStatus;
  private consecutiveFailures = 0;
  /** Scheduled polls before this instant are skipped: backoff after repeated failures. */
  private notBeforeMs = 0;
  /** Publications run one after another, so an older one can never land after a newer one. */
  private publishing: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: EndpointPollerOptions) {
    this.now = options.now ?? Date.now;
    this.status = {
      horizon: options.horizon,
      endpoint: options.collector.endpoint,
      schedule: options.schedule.text,
      polls: 0,
    };
  }

  get endpoint(): Endpoint {
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
    return this.now() < this.notBeforeMs ? Promise.resolve() : this.run();
  }

  /** Resolves when no poll is running; starts none. */
  async idle(): Promise<void> {
    await this.inFlight;
  }

  private async pollOnce(): Promise<void> {
    const { horizon, collector, metrics, log } = this.options;
    const started = performance.now();
    let invalidRecords = 0;
    const context: PollContext = {
      signal: this.options.signal ?? new AbortController().signal,
      invalidRecords: (count) => {
        invalidRecords += count;
        metrics.invalidRecordsRead(horizon, collector.endpoint, count);
      },
    };
    try {
      await collector.poll(context);
      const durationSeconds = (performance.now() - started) / 1000;
      metrics.pollSucceeded(horizon, collector.endpoint, durationSeconds);
      if (invalidRecords > 0) {
        log.warn({ endpoint: collector.endpoint, invalidRecords }, "left out records that do not match Horizon's schema");
      }
      this.consecutiveFailures = 0;
      this.notBeforeMs = 0;
      await this.publish(true);
      // Counted once its data is in the store, so /readyz never runs ahead of /metrics.
      this.status = { ...this.status, polls: this.status.polls + 1, lastSuccessMs: this.now() };
    } catch (error) {
      const failure =
        error instanceof HorizonError ? error : new HorizonError("internal", error instanceof Error ? error.message : String(error));
      metrics.pollFailed(horizon, collector.endpoint, (performance.now() - started) / 1000, failure.reason);
      log.warn({ endpoint: collector.endpoint, reason: failure.reason, status: failure.details.status, error: failure.message }, "poll failed");
      this.backOff();
      await this.publish(false);
      this.status = {
        ...this.status,
        polls: this.status.polls + 1,
        lastError: { reason: failure.reason, message: failure.message, atMs: this.now() },
      };
    }
  }

  /**
   * Each further consecutive failure doubles the wait beyond the schedule (with jitter, so
   * exporters sharing an upstream do not retry in step), up to MAX_BACKOFF_MS.
   */
  private backOff(): void {
    this.consecutiveFailures += 1;
    const periodMs = this.options.schedule.periodMs;
    const extraMs = Math.min(periodMs * (2 ** (this.consecutiveFailures - 1) - 1), MAX_BACKOFF_MS);
    this.notBeforeMs = this.now() + extraMs * (0.5 + Math.random() / 2);
  }

  private publish(succeeded: boolean): Promise<void> {
    const { horizon, collector, schedule, staleAfterIntervals, store } = this.options;
    const samples = collector.samples(succeeded);
    const freshUntilMs = succeeded ? this.now() + staleAfterIntervals * schedule.periodMs : 0;
    const shown = succeeded ? samples : { live: [], persistent: samples.persistent };
    this.publishing = this.publishing.then(() => store.publish(horizon, collector.endpoint, shown, freshUntilMs));
    return this.publishing;
  }
}
