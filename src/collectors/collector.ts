import type { Endpoint } from "../catalog/metrics.js";
import type { CollectorSamples } from "./samples.js";

export interface PollResult {
  /** Records that failed the schema and were left out. */
  readonly invalidRecords: number;
}

/** One endpoint of one Horizon: fetches into its own state, and turns that state into samples. */
export interface Collector {
  readonly endpoint: Endpoint;
  /** Fetches, validates and folds the response into state; throws a HorizonError on failure. */
  poll(): Promise<PollResult>;
  samples(lastPollSucceeded: boolean): CollectorSamples;
}

export const NO_INVALID_RECORDS: PollResult = { invalidRecords: 0 };
