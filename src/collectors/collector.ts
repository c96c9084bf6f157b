import type { Endpoint, PollEndpoint } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { CollectorSamples } from "../exposition/samples.js";

/** What the poller hands each poll. */
export interface PollContext {
  /** Aborted when the poll reaches its deadline or the exporter stops; pass it to every client call. */
  readonly signal: AbortSignal;
  /**
   * Reports records that failed the schema and were left out, as soon as they are read, so they
   * are counted exactly once even when a later page fails the poll.
   */
  invalidRecords(count: number): void;
}

/**
 * One endpoint of one target (a Horizon, or a Stellar RPC): fetches into its own state, and turns that state into samples.
 * The poller (src/scheduler) runs `poll` on the endpoint's schedule, one at a time, within a
 * deadline; the publisher renders `samples` into the store after every poll. A new surface is a
 * new Collector in its own file; it never talks to the store or the scheduler itself.
 */
export interface Collector<E extends PollEndpoint = Endpoint> {
  readonly endpoint: E;
  /**
   * Fetches, validates and folds the response into state; throws a PollError on failure. State
   * must stay consistent when the poll is aborted between two requests.
   */
  poll(context: PollContext): Promise<void>;
  samples(lastPollSucceeded: boolean): CollectorSamples;
}

/** An endpoint that answers with a single document (root, fee_stats): the latest one is the state. */
export class LatestDocumentCollector<T, E extends PollEndpoint = Endpoint> implements Collector<E> {
  private latest: T | undefined;

  constructor(
    readonly endpoint: E,
    private readonly fetch: (signal: AbortSignal) => Promise<T>,
    private readonly toSamples: (latest: T | undefined, lastPollSucceeded: boolean) => CollectorSamples,
    /** Tells the target's network view what the document says. */
    private readonly learn?: (latest: T) => void,
  ) {}

  async poll({ signal, invalidRecords }: PollContext): Promise<void> {
    try {
      this.latest = await this.fetch(signal);
    } catch (error) {
      // A document failing its schema is a record left out too: counted with the invalid records.
      if (error instanceof PollError && error.reason === "schema") invalidRecords(1);
      throw error;
    }
    this.learn?.(this.latest);
  }

  samples(lastPollSucceeded: boolean): CollectorSamples {
    return this.toSamples(this.latest, lastPollSucceeded);
  }
}
