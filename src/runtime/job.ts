import type { PollEndpoint } from "../catalog/metrics.js";
import type { Collector, PollContext } from "../collectors/collector.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples } from "../exposition/samples.js";

/**
 * One thing a target runtime does on a schedule: a poll, or a probe run. The scheduler runs it, one
 * run at a time, within a deadline that follows `requestsPerRun`; the runtime publishes `samples`
 * to the store after every run, under the job's source. A job keeps its own state between runs
 * and reads what other jobs learnt only through the target's NetworkView.
 */
interface JobBase {
  readonly schedule: Schedule;
  /**
   * Requests one run sends in steady state: the request plan adds them up per hour, and a run may
   * take this many request budgets before its deadline.
   */
  readonly requestsPerRun: number;
  /**
   * Fetches and folds the answers into the job's state; throws a PollError on failure. The state
   * must stay consistent when the signal aborts the run between two requests.
   */
  run(context: PollContext): Promise<void>;
  /** The job's series; `lastRunSucceeded` false publishes the persistent ones only. */
  samples(lastRunSucceeded: boolean): CollectorSamples;
}

/**
 * A poll: counted in the poll self-metrics under its source as `endpoint`, backed off after
 * repeated failures, and its live series go stale when no poll succeeds in time.
 */
export interface PollJob extends JobBase {
  readonly role: "poll";
  readonly source: PollEndpoint;
  /**
   * The target's cheapest poll, which never backs off: while the others wait, it notices the
   * moment the upstream heals, and its success lets them retry at once.
   */
  readonly heartbeat?: true;
  /**
   * Its series hold counters only until its first run (corridors): published at zero at start, so
   * the first run's outcome is an increase Prometheus sees, as a probe's is.
   */
  readonly countersAtStart?: true;
}

/**
 * A probe run: it counts its own outcomes in its own series (all persistent), so it is neither
 * counted as a poll nor backed off; its first run waits one period, for the polls to teach it the
 * network.
 */
export interface ProbeJob extends JobBase {
  readonly role: "probe";
  readonly source: "tx_probe";
}

export type Job = PollJob | ProbeJob;

/** A job to build, and what decides whether a reload keeps the running one. */
export interface JobPlan {
  readonly source: Job["source"];
  /** Everything the job is built from; equal keys across a reload keep the job, its state and counters. */
  readonly key: string;
  create(): Job;
}

/** A collector run as a poll job. */
export function pollJob(
  collector: Collector<PollEndpoint>,
  schedule: Schedule,
  requestsPerRun: number,
  heartbeat = false,
): PollJob {
  return {
    role: "poll",
    source: collector.endpoint,
    schedule,
    requestsPerRun,
    ...(heartbeat ? { heartbeat: true as const } : {}),
    run: (context) => collector.poll(context),
    samples: (lastRunSucceeded) => collector.samples(lastRunSucceeded),
  };
}
