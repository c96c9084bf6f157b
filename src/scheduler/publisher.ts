import type { Endpoint, PollEndpoint } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import type { Collector } from "../collectors/collector.js";
import type { MetricStore } from "../exposition/store.js";

/**
 * The one writer of a target endpoint's series to the store. Publications land in order (an older
 * one never overwrites a newer one), live series leave when stale, and when the data goes stale
 * before another poll succeeds the endpoint is republished as failed at that moment, so
 * `stellar_horizon_up` turns 0 while a root poll still hangs.
 */
export class EndpointPublisher<E extends PollEndpoint = Endpoint> {
  private publishing: Promise<void> = Promise.resolve();
  private staleTimer: unknown;

  constructor(
    private readonly target: string,
    private readonly collector: Collector<E>,
    private readonly store: MetricStore,
    /** How long the data of a successful poll stays fresh. */
    private readonly freshnessMs: number,
    private readonly clock: Clock,
  ) {}

  get endpoint(): E {
    return this.collector.endpoint;
  }

  succeeded(): Promise<void> {
    this.clock.clearTimeout(this.staleTimer);
    this.staleTimer = this.clock.setTimeout(() => void this.failed(), this.freshnessMs);
    return this.publish(true, this.clock.now() + this.freshnessMs);
  }

  failed(): Promise<void> {
    this.stop();
    return this.publish(false, 0);
  }

  stop(): void {
    this.clock.clearTimeout(this.staleTimer);
    this.staleTimer = undefined;
  }

  private publish(succeeded: boolean, freshUntilMs: number): Promise<void> {
    const samples = this.collector.samples(succeeded);
    const shown = succeeded ? samples : { live: [], persistent: samples.persistent };
    this.publishing = this.publishing.then(() => this.store.publish(this.target, this.endpoint, shown, freshUntilMs));
    return this.publishing;
  }
}
