import type { Logger } from "pino";
import type { Endpoint, PollEndpoint, PollErrorReason } from "../catalog/metrics.js";
import { HorizonError } from "../client/errors.js";
import type { Collector } from "../collectors/collector.js";
import type { MetricStore } from "../collectors/store.js";
import type { Schedule } from "../config/schedule.js";

/** What the landing page and /readyz show about one endpoint of one target. */
export interface EndpointStatus {
  readonly horizon: string;
  readonly endpoint: PollEndpoint;
  readonly schedule: string;
  readonly polls: number;
  readonly lastSuccessMs?: number;
  readonly lastError?: { readonly reason: PollErrorReason; readonly message: string; readonly atMs: number };
}

/** The longest a failing endpoint waits beyond its schedule between polls. */
const MAX_BACKOFF_MS = 5 * 60_000;

/** Where a poller counts its polls: the Horizon or the Stellar RPC self-metrics. */
export interface PollMetrics<E extends PollEndpoint> {
  pollSucceeded(target: string, endpoint: E, durationSeconds: number, invalidRecords: number): void;
  pollFailed(target: string, endpoint: E, durationSeconds: number, reason: PollErrorReason): void;
}

export interface EndpointPollerOptions<E extends PollEndpoint> {
  /** The target's name: a Horizon's, or a Stellar RPC's. */
  readonly horizon: string;
  readonly collector: Collector<E>;
  readonly schedule: Schedule;
  readonly staleAfterIntervals: number;
  readonly store: MetricStore;
  readonly metrics: PollMetrics<E>;
  readonly log: Logger;
  readonly now?: () => number;
}

/**
 * Runs one collector's polls one at a time, counts and logs their failures, and publishes the
 * collector's samples to the store after every poll, successful or not.
 */
export class EndpointPoller<E extends PollEndpoint = Endpoint> {
  private inFlight: Promise<void> | undefined;
  private status: EndpointStatus;
  private consecutiveFailures = 0;
  /** Scheduled polls before this instant are skipped: backoff after repeated failures. */
  private notBeforeMs = 0;
  /** Publications run one after another, so an older one can never land after a newer one. */
  private publishing: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: EndpointPollerOptions<E>) {
    this.now = options.now ?? Date.now;
    this.status = {
      horizon: options.horizon,
      endpoint: options.collector.endpoint,
      schedule: options.schedule.text,
      polls: 0,
    };
    void this.publish(false);
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
    return this.now() < this.notBeforeMs ? Promise.resolve() : this.run();
  }

  /** Resolves when no poll is running; starts none. */
  async idle(): Promise<void> {
    await this.inFlight;
  }

  private async pollOnce(): Promise<void> {
    const { horizon, collector, metrics, log } = this.options;
    const started = performance.now();
    try {
      const { invalidRecords } = await collector.poll();
      const durationSeconds = (performance.now() - started) / 1000;
      metrics.pollSucceeded(horizon, collector.endpoint, durationSeconds, invalidRecords);
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
