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
  /** Aborted at the run's deadline or when the exporter stops; pass it to every client call. */
  readonly signal: AbortSignal;
  /** Counts records left out by the schema as they are read, so a later failing page cannot lose them. */
  invalidRecords(count: number): void;
  /** Call after every page or batch read: a run fails only when one whole request budget brings no answer. */
  progressed(): void;
}

/** One thing a target runtime does on a schedule: a poll (src/collectors/) or a probe run (src/probers/). It keeps its
 * own state between runs and reads what other jobs learnt only through the NetworkView. */
interface JobBase {
  readonly schedule: Schedule;
  /** Requests a run sends in steady state: counted in the request plan, and a run's deadline in request budgets. */
  readonly requestsPerRun: number;
  /** Set by a job whose requests are each sent once and whose timeouts are outcomes, not failures (corridors): its
   * run's deadline then lets every request reach this timeout on its own, the retries' budget notwithstanding. */
  readonly requestTimeoutMs?: number;
  /** Throws a PollError on failure; the state must stay consistent when the signal aborts between two requests. */
  run(context: PollContext): Promise<void>;
  /** The job's series; `lastRunSucceeded` false publishes the persistent ones only. */
  samples(lastRunSucceeded: boolean): CollectorSamples;
}

/** A poll: counted in the poll self-metrics, backed off after failures, its live series stale when none succeeds. */
export interface PollJob extends JobBase {
  readonly role: "poll";
  readonly source: PollEndpoint;
  /** The target's cheapest poll never backs off: it notices the upstream healing and lets the others retry at once. */
  readonly heartbeat?: boolean;
  /** Its series hold counters only until its first run (corridors), published at zero at start as a probe's are. */
  readonly countersAtStart?: true;
}

/** A probe run counts its outcomes in its own, persistent series, so it is neither counted as a poll nor backed off;
 * its first run waits one period, for the polls to teach it the network. */
export interface ProbeJob extends JobBase {
  readonly role: "probe";
  readonly source: "tx_probe";
}

export type Job = PollJob | ProbeJob;

/** What a job table line hands a job's constructor. */
export type JobTiming = Pick<JobBase, "schedule" | "requestsPerRun">;

/** What every poll class shares: its role, and the timing it was built with. */
export abstract class Poll {
  readonly role = "poll";
  readonly schedule: Schedule;
  readonly requestsPerRun: number;

  constructor(timing: JobTiming) {
    this.schedule = timing.schedule;
    this.requestsPerRun = timing.requestsPerRun;
  }
}

/** What a kind's job table builds a job from. */
export interface JobParts<Target, Client> {
  readonly target: Target;
  readonly config: ExporterConfig;
  readonly client: Client;
  readonly network: NetworkView;
  readonly log: Logger;
  readonly clock: Clock;
}

export type HorizonJobParts = JobParts<TargetConfig, HorizonClient>;
export type RpcJobParts = JobParts<RpcTargetConfig, RpcClient>;
