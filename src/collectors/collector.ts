import { PollError } from "../client/errors.js";
import type { CollectorSamples } from "../exposition/samples.js";
import type { PollJob } from "../job/job.js";

/** How a single-document poll reads its document, shows it, and tells the target's network view what it says. */
interface LatestDocument<T> extends Pick<PollJob, "source" | "schedule" | "heartbeat"> {
  fetch(signal: AbortSignal): Promise<T>;
  samples(latest: T | undefined, lastPollSucceeded: boolean): CollectorSamples;
  learn(latest: T): void;
}

/** A poll of an endpoint that answers with a single document (root, fee_stats): the latest one is the state. */
export function latestDocumentJob<T>({ fetch, samples, learn, ...job }: LatestDocument<T>): PollJob {
  let latest: T | undefined;
  return {
    role: "poll",
    requestsPerRun: 1,
    ...job,
    async run({ signal, invalidRecords }) {
      latest = await fetch(signal).catch((error: unknown) => {
        // A document failing its schema is a record left out too: counted with the invalid records.
        if (error instanceof PollError && error.reason === "schema") invalidRecords(1);
        throw error;
      });
      learn(latest);
    },
    samples: (lastPollSucceeded) => samples(latest, lastPollSucceeded),
  };
}
