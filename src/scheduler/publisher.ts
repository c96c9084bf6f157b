import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { CollectorSamples } from "../exposition/samples.js";
import type { StoreLease } from "../exposition/store.js";
import type { Job } from "../job/job.js";

/**
 * The one writer of a job's series to the store, in order. When the data goes stale before another run succeeds, the
 * job is republished as failed at once, so `stellar_horizon_up` turns 0 while a root poll still hangs. A failed
 * publication is counted and logged (once until one succeeds again); the next one is tried all the same.
 */
export class JobPublisher {
  private publishing: Promise<void> = Promise.resolve();
  private staleTimer: unknown;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly job: Job,
    private readonly lease: StoreLease,
    /** How long the data of a successful run stays fresh. */
    private readonly freshnessMs: number,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly publishFailed: () => void,
  ) {}

  succeeded(): Promise<void> {
    this.clock.clearTimeout(this.staleTimer);
    if (Number.isFinite(this.freshnessMs) && !this.stopped)
      this.staleTimer = this.clock.setTimeout(() => void this.failed(), this.freshnessMs);
    return this.publish(true, this.clock.now() + this.freshnessMs);
  }

  failed(): Promise<void> {
    this.clock.clearTimeout(this.staleTimer);
    return this.publish(false, 0);
  }

  /** No timer of this publisher fires again, and nothing more is published. */
  stop(): void {
    this.stopped = true;
    this.clock.clearTimeout(this.staleTimer);
  }

  private publish(succeeded: boolean, freshUntilMs: number): Promise<void> {
    if (this.stopped) return this.publishing;
    // Taken now, so each publication shows the state as the run left it.
    let shown: CollectorSamples | undefined;
    let failure: unknown;
    try {
      const samples = this.job.samples(succeeded);
      shown = succeeded ? samples : { live: [], persistent: samples.persistent };
    } catch (error) {
      failure = error;
    }
    this.publishing = this.publishing.then(async () => {
      try {
        if (shown === undefined) throw failure;
        await this.lease.publish(shown, freshUntilMs);
        this.failing = false;
      } catch (error) {
        this.publishFailed();
        if (!this.failing)
          this.log.error(
            { source: this.job.source, error: String(error) },
            "publishing to the metric store failed; the next run publishes again",
          );
        this.failing = true;
      }
    });
    return this.publishing;
  }
}
