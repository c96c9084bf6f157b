import type { Endpoint, PollEndpoint } from "../catalog/metrics.js";
import type { CollectorSamples } from "./samples.js";

export interface PollResult {
  /** Records that failed the schema and were left out. */
  readonly invalidRecords: number;
}

/** One endpoint of one target: fetches into its own state, and turns that state into samples. */
export interface Collector<E extends PollEndpoint = Endpoint> {
  readonly endpoint: E;
  /** Fetches, validates and folds the response into state; throws a HorizonError on failure. */
  poll(): Promise<PollResult>;
  samples(lastPollSucceeded: boolean): CollectorSamples;
}

const NO_INVALID_RECORDS: PollResult = { invalidRecords: 0 };

/** An endpoint that answers with a single document (root, fee_stats): the latest one is the state. */
export class LatestDocumentCollector<T, E extends PollEndpoint = Endpoint> implements Collector<E> {
  private latest: T | undefined;

  constructor(
    readonly endpoint: E,
    private readonly fetch: () => Promise<T>,
    private readonly toSamples: (latest: T | undefined, lastPollSucceeded: boolean) => CollectorSamples,
  ) {}

  async poll(): Promise<PollResult> {
    this.latest = await this.fetch();
    return NO_INVALID_RECORDS;
  }

  samples(lastPollSucceeded: boolean): CollectorSamples {
    return this.toSamples(this.latest, lastPollSucceeded);
  }
}
