import { Cron } from "croner";
import type { Logger } from "pino";
import type { PollErrorReason, PublishedSource } from "../catalog/metrics.js";
import { isTransient, PollError } from "../client/errors.js";
import type { Schedule } from "../config/schedule.js";
import type { Clock } from "../clock.js";
import type { Job, PollContext } from "../job/job.js";
import type { CollectorSamples } from "../exposition/samples.js";
import type { TargetMetrics } from "../exposition/self-metrics.js";
import type { StoreLease } from "../exposition/store.js";

/** What the landing page and /readyz show about one job of one target. */
export interface EndpointStatus {
  readonly target: string;
  readonly endpoint: PublishedSource;
  readonly schedule: string;
  readonly polls: number;
  readonly lastSuccessMs?: number;
  readonly lastError?: { readonly reason: PollErrorReason; readonly message: string; readonly atMs: number };
  readonly runningSinceMs?: number;
}

/** The longest a failing poll waits beyond its schedule: one failing alone (a schema or 4xx answer, which no other
 * poll's recovery cuts short) has fresh data within a period and this long after its upstream heals. */
export const MAX_BACKOFF_MS = 15_000;

/** The time one request of a run may take, retries included: at most the freshness window and every attempt timing
 * out, so a hanging upstream is reported before its data goes stale. */
export function requestBudgetMs(schedule: Schedule, staleAfterIntervals: number, timeoutMs: number, retries: number) {
  return Math.min(staleAfterIntervals * schedule.periodMs, timeoutMs * (retries + 1));
}

/** Beyond a job's own request timeout (Job.requestTimeoutMs): time for the aborted request to settle and be counted,
 * so the run's deadline, armed at the same instant, never fires first. */
const SETTLE_MS = 1_000;

interface JobRunnerOptions {
  readonly target: string;
  readonly job: Job;
  /** Where the job's series go; the runner is its one writer, in order. */
  readonly lease: StoreLease;
  readonly freshnessMs: number;
  /** See requestBudgetMs; a run may take `requestsPerRun` of them, and one without an answer. */
  readonly requestBudgetMs: number;
  readonly metrics: Pick<TargetMetrics, "pollSucceeded" | "pollFailed" | "invalidRecordsRead">;
  readonly publishFailed: () => void;
  readonly log: Logger;
  readonly clock: Clock;
  /** A poll succeeded; `healed` when it failed before. */
  readonly succeeded?: (runner: JobRunner, healed: boolean) => void;
}

/** Runs one job one run at a time within its deadline; counts, logs and backs off a poll's failures, and publishes each
 * run's end. Data gone stale is republished as failed at once, so `stellar_horizon_up` is 0 while a root poll hangs. */
export class JobRunner {
  readonly job: Job;
  readonly schedule: Schedule;
  /** Aborted by stop(): the run in flight ends, and nothing is published any more. */
  private readonly stopping = new AbortController();
  private inFlight: Promise<void> | undefined;
  private status: EndpointStatus;
  /** Of polls; above 0, a success now means the upstream healed. */
  private consecutiveFailures = 0;
  /** Scheduled polls before this instant are skipped: backoff after repeated failures. */
  private notBeforeMs = 0;
  /** A tick was skipped while backing off, and the reason was the upstream's health. */
  private owesTick = false;
  /** The last poll's failure; undefined once one succeeds. */
  private lastFailure: PollError | undefined;
  /** A poll that never succeeded runs for a peer's success no sooner than this, each such run doubling the wait (from
   * MAX_BACKOFF_MS to its period): it finds its endpoint back soon, without asking at every peer's success. */
  private peerRetryNotBeforeMs = 0;
  private peerRetryGapMs = MAX_BACKOFF_MS;
  private publishing: Promise<void> = Promise.resolve();
  private staleTimer: unknown;
  /** The last publication failed: its error was logged. */
  private failingToPublish = false;

  constructor(private readonly options: JobRunnerOptions) {
    this.job = options.job;
    this.schedule = options.job.schedule;
    this.status = { target: options.target, endpoint: this.job.source, schedule: this.schedule.text, polls: 0 };
  }

  snapshot(): EndpointStatus {
    return this.status;
  }

  /** Runs once; a call while a run is going joins it instead of overlapping. Never rejects. */
  run(): Promise<void> {
    if (this.stopping.signal.aborted) return Promise.resolve();
    this.inFlight ??= this.runOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** A scheduled tick: runs unless a run is going or the job is backing off. */
  runOnSchedule(): Promise<void> {
    if (this.options.clock.now() < this.notBeforeMs) {
      this.owesTick = this.lastFailureHealable();
      return Promise.resolve();
    }
    return this.run();
  }

  /** Resolves when no run is going; starts none. */
  async idle(): Promise<void> {
    await this.inFlight;
  }

  /** Aborts the run in flight and, once it has settled, retires the lease: nothing is published again. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.options.clock.clearTimeout(this.staleTimer);
    await this.idle();
    this.options.lease.retire();
  }

  /** Another poll of the target succeeded (`healed`: after failing). One backed off for an unwell upstream or a hold
   * runs now if it skipped a tick; one never successful runs once its backoff allows, lest a rare poll wait a period
   * for data, ever less often while it keeps failing, and at once when the upstream healed. */
  peerSucceeded(healed: boolean): void {
    if (!this.lastFailureHealable()) return;
    // A peer's success after a rate limit says the hold is over, whether or not that peer had failed.
    const over = healed || this.lastFailure?.reason === "rate_limited";
    if (over) this.notBeforeMs = 0;
    const owed = over && this.owesTick;
    if (owed) this.owesTick = false;
    const nowMs = this.options.clock.now();
    const due = healed || nowMs >= this.peerRetryNotBeforeMs;
    const retry = this.status.lastSuccessMs === undefined && due && nowMs >= this.notBeforeMs;
    if (retry) {
      this.peerRetryNotBeforeMs = nowMs + this.peerRetryGapMs;
      this.peerRetryGapMs = Math.min(2 * this.peerRetryGapMs, Math.max(MAX_BACKOFF_MS, this.schedule.periodMs));
    }
    if (owed || retry) void this.run();
  }

  /** The last failure was the upstream's health or its rate limit: another poll's success says either is over. */
  private lastFailureHealable(): boolean {
    const failure = this.lastFailure;
    return failure !== undefined && (isTransient(failure) || failure.reason === "rate_limited");
  }

  private async runOnce(): Promise<void> {
    const { job, clock } = this.options;
    const startedMs = clock.now();
    this.status = { ...this.status, runningSinceMs: startedMs };
    const controller = new AbortController();
    const onStop = () => controller.abort(this.stopping.signal.reason);
    this.stopping.signal.addEventListener("abort", onStop, { once: true });
    let lastAnswerMs = startedMs;
    const context: PollContext = {
      signal: controller.signal,
      invalidRecords: (count) => {
        if (job.role === "poll") this.options.metrics.invalidRecordsRead(this.options.target, job.source, count);
      },
      progressed: () => {
        lastAnswerMs = clock.now();
      },
    };
    const deadline = this.deadline(startedMs, () => lastAnswerMs, controller);
    const running = job.run(context);
    try {
      await Promise.race([running, deadline.reached]);
      await this.succeeded((clock.now() - startedMs) / 1000);
    } catch (error) {
      // A stop says nothing about the upstream; any other failure is reported at once, even while the job still runs.
      if (!this.stopping.signal.aborted) await this.failed(error, (clock.now() - startedMs) / 1000);
      // An aborted run settles promptly; waiting for it keeps the job to one run at a time.
      await running.catch(() => undefined);
    } finally {
      deadline.cancel();
      this.stopping.signal.removeEventListener("abort", onStop);
    }
  }

  /** Rejects and aborts the run once `requestsPerRun` request budgets passed since the start, or one since the last
   * answer (`progressed()`): a long paged poll on a slow upstream finishes, a hung one is reported as a short one. */
  private deadline(startedMs: number, lastAnswerMs: () => number, controller: AbortController) {
    const { job, clock, requestBudgetMs } = this.options;
    const ownMs = job.requestTimeoutMs === undefined ? 0 : job.requestTimeoutMs + SETTLE_MS;
    const budgetMs = Math.max(requestBudgetMs, ownMs);
    const capMs = Math.max(1, job.requestsPerRun) * budgetMs;
    let timer: unknown;
    const reached = new Promise<never>((_resolve, reject) => {
      const fail = (message: string) => {
        const failure = new PollError("timeout", message);
        controller.abort(failure);
        reject(failure);
      };
      const check = () => {
        const nowMs = clock.now();
        const remainingMs = startedMs + capMs - nowMs;
        const quietMs = lastAnswerMs() + budgetMs - nowMs;
        if (remainingMs <= 0)
          return fail(
            `run did not finish within its ${capMs / 1000} s deadline (${job.requestsPerRun} requests planned)`,
          );
        if (quietMs <= 0) return fail(`no answer within ${budgetMs / 1000} s`);
        timer = clock.setTimeout(check, Math.min(remainingMs, quietMs));
      };
      check();
    });
    reached.catch(() => undefined);
    return { reached, cancel: () => clock.clearTimeout(timer) };
  }

  private async succeeded(durationSeconds: number): Promise<void> {
    const { target, job, metrics, clock } = this.options;
    if (job.role === "poll") metrics.pollSucceeded(target, job.source, durationSeconds, clock.now());
    const healed = this.consecutiveFailures > 0;
    this.consecutiveFailures = 0;
    this.notBeforeMs = 0;
    this.owesTick = false;
    this.lastFailure = undefined;
    if (job.role === "poll") this.options.succeeded?.(this, healed);
    await this.publishFresh();
    // Counted once its data is in the store, so /readyz never runs ahead of /metrics.
    this.ended({ lastSuccessMs: clock.now() });
  }

  private async failed(error: unknown, durationSeconds: number): Promise<void> {
    const { target, job, metrics, log, clock } = this.options;
    const message = error instanceof Error ? error.message : String(error);
    const failure = error instanceof PollError ? error : new PollError("internal", message);
    if (job.role === "poll") {
      metrics.pollFailed(target, job.source, durationSeconds, failure.reason);
      log.warn(
        { endpoint: job.source, reason: failure.reason, status: failure.details.status, error: failure.message },
        "poll failed",
      );
      this.lastFailure = failure;
      this.consecutiveFailures += 1;
      // Each further failure doubles the wait beyond the schedule; jittered, so exporters sharing an upstream differ.
      const extraMs = Math.min(this.schedule.periodMs * (2 ** (this.consecutiveFailures - 1) - 1), MAX_BACKOFF_MS);
      if (!job.heartbeat) this.notBeforeMs = clock.now() + extraMs * (0.5 + Math.random() / 2);
      await this.publishStale();
    } else {
      log.error({ source: job.source, reason: failure.reason, error: failure.message }, "run failed");
      await this.publishFresh();
    }
    this.ended({ lastError: { reason: failure.reason, message: failure.message, atMs: clock.now() } });
  }

  private ended(outcome: Pick<EndpointStatus, "lastSuccessMs" | "lastError">): void {
    const { runningSinceMs: _, ...rest } = this.status;
    this.status = { ...rest, polls: this.status.polls + 1, ...outcome };
  }

  /** Publishes the job's series as fresh for `freshnessMs`, then as stale unless another run succeeds first. */
  publishFresh(): Promise<void> {
    const { clock, freshnessMs } = this.options;
    clock.clearTimeout(this.staleTimer);
    if (Number.isFinite(freshnessMs) && !this.stopping.signal.aborted)
      this.staleTimer = clock.setTimeout(() => void this.publishStale(), freshnessMs);
    return this.publish(true, clock.now() + freshnessMs);
  }

  private publishStale(): Promise<void> {
    this.options.clock.clearTimeout(this.staleTimer);
    return this.publish(false, 0);
  }

  /** A failed publication is counted and logged (once until one succeeds again); the next one is tried all the same. */
  private publish(succeeded: boolean, freshUntilMs: number): Promise<void> {
    if (this.stopping.signal.aborted) return this.publishing;
    const { job, lease, log, publishFailed } = this.options;
    // Taken now, so each publication shows the state as the run left it; a throw fails the publication in its turn.
    let shown: CollectorSamples | undefined;
    let failure: unknown;
    try {
      const samples = job.samples(succeeded);
      shown = succeeded ? samples : { live: [], persistent: samples.persistent };
    } catch (error) {
      failure = error;
    }
    this.publishing = this.publishing.then(async () => {
      try {
        if (shown === undefined) throw failure;
        await lease.publish(shown, freshUntilMs);
        this.failingToPublish = false;
      } catch (error) {
        publishFailed();
        if (!this.failingToPublish)
          log.error(
            { source: job.source, error: String(error) },
            "publishing to the metric store failed; the next run publishes again",
          );
        this.failingToPublish = true;
      }
    });
    return this.publishing;
  }
}

/** Ticks a runner on its schedule until the function returned is called: a fixed interval on the injectable clock, so
 * tests can drive it, a croner pattern on croner's wall clock. */
export function schedule(runner: Pick<JobRunner, "schedule" | "runOnSchedule">, clock: Clock): () => void {
  const { pattern, intervalSeconds } = runner.schedule;
  if (intervalSeconds === undefined) {
    const cron = new Cron(pattern, { protect: true, catch: true }, () => void runner.runOnSchedule());
    return () => cron.stop();
  }
  // In phase from now; a tick during a run joins it, and ticks missed while the process stalled are skipped.
  const intervalMs = intervalSeconds * 1000;
  let dueMs = clock.now();
  let timer: unknown;
  const arm = () => {
    dueMs += intervalMs;
    const lateMs = clock.now() - dueMs;
    if (lateMs > 0) dueMs += Math.ceil(lateMs / intervalMs) * intervalMs;
    timer = clock.setTimeout(() => {
      arm();
      void runner.runOnSchedule();
    }, dueMs - clock.now());
  };
  arm();
  return () => clock.clearTimeout(timer);
}
