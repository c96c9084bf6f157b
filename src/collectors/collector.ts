import type { PollEndpoint } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples } from "../exposition/samples.js";
import type { PollContext, PollJob } from "../job/job.js";

/** How a single-document poll reads its document, shows it, and tells the target's network view what it says. */
interface LatestDocumentOptions<T> extends Pick<PollJob, "source" | "schedule" | "heartbeat"> {
  fetch(signal: AbortSignal): Promise<T>;
  samples(latest: T | undefined, lastPollSucceeded: boolean): CollectorSamples;
  learn(latest: T): void;
}

/** An endpoint that answers with a single document (root, fee_stats): the latest one is the state. */
export class LatestDocumentCollector<T> implements PollJob {
  readonly role = "poll";
  readonly source: PollEndpoint;
  readonly schedule: Schedule;
  readonly heartbeat: boolean | undefined;
  readonly requestsPerRun = 1;
  private latest: T | undefined;

  constructor(private readonly options: LatestDocumentOptions<T>) {
    this.source = options.source;
    this.schedule = options.schedule;
    this.heartbeat = options.heartbeat;
  }

  async run({ signal, invalidRecords }: PollContext): Promise<void> {
    try {
      this.latest = await this.options.fetch(signal);
    } catch (error) {
      // A document failing its schema is a record left out too: counted with the invalid records.
      if (error instanceof PollError && error.reason === "schema") invalidRecords(1);
      throw error;
    }
    this.options.learn(this.latest);
  }

  samples(lastPollSucceeded: boolean): CollectorSamples {
    return this.options.samples(this.latest, lastPollSucceeded);
  }
}
