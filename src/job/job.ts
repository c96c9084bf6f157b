import type { Logger } from "pino";
import type { PollEndpoint } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import type { HorizonClient } from "../client/horizon-client.js";
import type { RpcClient } from "../client/rpc-client.js";
import type { ExporterConfig, TargetConfig } from "../config/config.js";
import type { RpcTargetConfig } from "../config/rpc-targets.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples } from "../exposition/samples.js";
import type { NetworkView } from "./network.js";

/** What the job runner hands each run of a job. */
export interface PollContext {
  /** Aborted when the run reaches its deadline or the exporter stops; pass it to every client call. */
  readonly signal: AbortSignal;
  /**
   * Reports records that failed the schema and were left out, as soon as they are read, so they
   * are counted exactly once even when a later page fails the poll.
   */
  invalidRecords(count: number): void;
  /**
   * An answer to one of the run's requests arrived: a run of many requests fails only when no
   * answer comes for one whole request budget, so call it after every page or batch read.
   */
  progressed(): void;
}

/**
 * One thing a target runtime does on a schedule: a poll, or a probe run. A collector is a job: it
 * lives in one file under src/collectors/ (a probe under src/probers/), and its kind's job table
 * (src/runtime/horizon.ts, rpc.ts) builds it. The scheduler runs it, one run at a time, within a
 * deadline that follows `requestsPerRun`; the runtime publishes `samples` to the store after
 * every run, under the job's source. A job keeps its own state between runs and reads what other
 * jobs learnt only through the target's NetworkView.
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
  readonly heartbeat?: boolean;
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

/** When a job runs and how many requests a run sends: what its table line hands its constructor. */
export type JobTiming = Pick<JobBase, "schedule" | "requestsPerRun">;

/** What a kind's job table builds a job from: the target, the configuration and the target's one client and view. */
export interface JobParts<Target, Client> {
  readonly target: Target;
  readonly config: ExporterConfig;
  readonly client: Client;
  readonly network: NetworkView;
  readonly log: Logger;
  readonly clock: Clock;
}

/** What a Horizon's jobs are built from. */
export type HorizonJobParts = JobParts<TargetConfig, HorizonClient>;

/** What a Stellar RPC's jobs are built from. */
export type RpcJobParts = JobParts<RpcTargetConfig, RpcClient>;
