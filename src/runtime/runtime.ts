import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { TargetLabel } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import type { RequestObserver } from "../client/http.js";
import type { ExporterConfig } from "../config/config.js";
import { comparisonKey } from "../config/secret.js";
import type { TargetUrl } from "../config/target-url.js";
import type { ExporterMetrics, TargetMetrics } from "../exposition/self-metrics.js";
import type { MetricStore, StoreLease } from "../exposition/store.js";
import { JobRunner, requestBudgetMs } from "../scheduler/job-runner.js";
import { JobPublisher } from "../scheduler/publisher.js";
import { Scheduler } from "../scheduler/scheduler.js";
import type { Job, JobPlan } from "./job.js";
import { NetworkView, type NetworkObserver } from "./network.js";

/** What every target of every kind is named, reached and timed by. */
export interface KindTarget {
  readonly name: string;
  readonly url: TargetUrl;
  readonly timeoutMs: number;
}

/** How a kind's client is observed and stopped: the runtime's, for every request it sends. */
export interface ClientParts {
  readonly observer: RequestObserver<string>;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly log: Logger;
}

/** What a kind's jobs are built with: the target's one client and network view. */
export interface JobParts<Client> {
  readonly client: Client;
  readonly network: NetworkView;
  readonly log: Logger;
  readonly clock: Clock;
}

/**
 * A kind of target (Horizon, Stellar RPC): its client, its jobs and its self-metrics. Everything
 * else (scheduling, deadlines, publishing, reloads, stopping) is the runtime's, the same for all.
 */
export interface TargetKind<Target extends KindTarget, Client> {
  /** The label naming the kind's targets on their series; also how the status board tells kinds apart. */
  readonly label: TargetLabel;
  /** What the landing page calls a target of this kind. */
  title(target: Target): string;
  metrics(metrics: ExporterMetrics): TargetMetrics;
  client(target: Target, config: ExporterConfig, parts: ClientParts): Client;
  /** The target's jobs under a configuration; a reload keeps each job whose key is unchanged. */
  jobs(target: Target, config: ExporterConfig, parts: JobParts<Client>): JobPlan[];
  /** Requests per hour the plan sends and the target allows, where the kind has a budget. */
  requestPlan?(target: Target, config: ExporterConfig): { readonly planned: number; readonly budget: number };
  /** The client's request `endpoint` label of a job's answers, when it is not the job's source. */
  readonly requestSources?: Readonly<Record<string, Job["source"]>>;
}

export interface RuntimeServices {
  readonly store: MetricStore;
  readonly metrics: ExporterMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Told what each target's network view learns (the agreement between targets). */
  readonly networkObserver?: (label: TargetLabel, name: string) => NetworkObserver;
}

/**
 * Stops everything of one target. Each of its runs, requests in flight and retry waits listens to
 * it, so a busy target legitimately passes Node's default warning threshold of 10 listeners.
 */
function targetAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(100, controller.signal);
  return controller;
}

/** One running job: its runner, publisher, lease on the store, and what stops it alone. */
interface RunningJob {
  readonly key: string;
  readonly runner: JobRunner;
  readonly publisher: JobPublisher;
  readonly lease: StoreLease;
  readonly abort: AbortController;
  /** Stops listening to the runtime's stop, once the job stopped alone. */
  readonly detach: () => void;
}

/** The parts of a runtime the exporter and the status pages see, whatever its kind. */
export interface Runtime {
  readonly key: string;
  readonly label: TargetLabel;
  readonly name: string;
  readonly title: string;
  readonly url: string;
  readonly runners: readonly JobRunner[];
  start(): Promise<void>;
  reconfigure(config: ExporterConfig): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Everything one target does: its client, network view, and a runner per job on one scheduler.
 * Built without side effects, so a reload can build every runtime before it stops any; started,
 * it owns everything it began, and once stopped nothing it owns starts, schedules or publishes
 * again: its AbortController stops the runs and requests, its leases on the store are retired.
 */
export class TargetRuntime<Target extends KindTarget, Client> implements Runtime {
  readonly key: string;
  readonly label: TargetLabel;
  readonly name: string;
  readonly title: string;
  readonly url: string;
  private readonly abort = targetAbortController();
  private readonly scheduler: Scheduler;
  private readonly network: NetworkView;
  private readonly client: Client;
  private readonly log: Logger;
  private readonly metrics: TargetMetrics;
  private jobs = new Map<Job["source"], RunningJob>();
  private config: ExporterConfig;

  constructor(
    private readonly kind: TargetKind<Target, Client>,
    private readonly target: Target,
    config: ExporterConfig,
    private readonly services: RuntimeServices,
  ) {
    this.config = config;
    // What rebuilds the runtime and its client when it changes: the target's own settings, and the HTTP settings.
    this.key = `${kind.label}:${comparisonKey({ target, retries: config.retries, maxBodyBytes: config.maxBodyBytes })}`;
    this.label = kind.label;
    this.name = target.name;
    this.title = kind.title(target);
    this.url = target.url.display;
    this.log = services.logger.child({ [kind.label]: target.name });
    this.metrics = kind.metrics(services.metrics);
    this.scheduler = new Scheduler(services.clock);
    this.network = new NetworkView(services.networkObserver?.(kind.label, target.name));
    const observer = this.metrics.observerFor(target.name);
    this.client = kind.client(target, config, {
      observer: {
        onRequest: (endpoint, code, durationSeconds) => {
          observer.onRequest(endpoint, code, durationSeconds);
          if (code !== "error")
            this.jobs.get(kind.requestSources?.[endpoint] ?? (endpoint as Job["source"]))?.runner.progressed();
        },
        onRateLimitHeaders: (headers) => observer.onRateLimitHeaders(headers),
        onHoldCapped: () => observer.onHoldCapped?.(),
      },
      signal: this.abort.signal,
      clock: services.clock,
      log: this.log,
    });
  }

  get runners(): JobRunner[] {
    return [...this.jobs.values()].map((job) => job.runner);
  }

  /** Starts every job; resolves when every poll's first run has ended. */
  async start(): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.metrics.addTarget(this.name);
    this.planRequests(this.config);
    const plans = this.plans(this.config);
    await Promise.all(plans.map((plan) => this.startJob(plan)));
  }

  /**
   * Applies a configuration whose runtime key is this one's: only the jobs whose keys changed
   * restart (a new `pools.max` restarts the pools poll, and nothing else), jobs gone stop.
   */
  async reconfigure(config: ExporterConfig): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.config = config;
    this.planRequests(config);
    const plans = this.plans(config);
    const wanted = new Set(plans.map((plan) => plan.source));
    const changed = plans.filter((plan) => this.jobs.get(plan.source)?.key !== plan.key);
    const leaving = [...this.jobs.values()].filter(
      (job) => !wanted.has(job.runner.job.source) || changed.some((plan) => plan.source === job.runner.job.source),
    );
    await Promise.all(leaving.map((job) => this.stopJob(job)));
    for (const plan of changed) void this.startJob(plan);
    if (changed.length > 0 || leaving.length > 0) {
      this.log.info(
        { restarted: changed.map((plan) => plan.source), stopped: leaving.length - changed.length },
        "jobs reconfigured",
      );
    }
  }

  /** Aborts the runs in flight and stops scheduling and publishing, for good. */
  async stop(): Promise<void> {
    this.abort.abort();
    const jobs = [...this.jobs.values()];
    await Promise.all(jobs.map((job) => this.stopJob(job)));
    await this.scheduler.stop();
    await this.metrics.removeTarget(this.name);
  }

  private plans(config: ExporterConfig): JobPlan[] {
    return this.kind.jobs(this.target, config, {
      client: this.client,
      network: this.network,
      log: this.log,
      clock: this.services.clock,
    });
  }

  private planRequests(config: ExporterConfig): void {
    const plan = this.kind.requestPlan?.(this.target, config);
    if (plan === undefined) return;
    this.metrics.requestPlan(this.name, plan.planned, plan.budget);
    if (plan.planned > plan.budget) {
      this.log.warn(
        { plannedRequestsPerHour: plan.planned, requestBudgetPerHour: plan.budget },
        "schedules plan more requests per hour than this target's budget: lengthen the poll intervals, track fewer pools or watch fewer accounts",
      );
    }
  }

  private startJob(plan: JobPlan): Promise<void> {
    if (this.abort.signal.aborted) return Promise.resolve();
    const { store, clock, metrics } = this.services;
    const { retries, staleAfterIntervals } = this.config;
    const job = plan.create();
    const abort = targetAbortController();
    const stopped = () => abort.abort(this.abort.signal.reason);
    this.abort.signal.addEventListener("abort", stopped, { once: true });
    const lease = store.lease(this.name, job.source, this.label);
    const freshnessMs = job.role === "poll" ? staleAfterIntervals * job.schedule.periodMs : Infinity;
    const publisher = new JobPublisher(job, lease, freshnessMs, clock, this.log, () => metrics.publishFailed());
    const runner = new JobRunner({
      target: this.name,
      job,
      publisher,
      requestBudgetMs: requestBudgetMs(job.schedule, staleAfterIntervals, this.target.timeoutMs, retries),
      metrics: this.metrics,
      log: this.log,
      clock,
      signal: abort.signal,
      // A poll that failed and now succeeds: the upstream healed, the others need not wait.
      succeeded: (by) => {
        for (const other of this.jobs.values()) if (other.runner !== by) other.runner.upstreamRecovered();
      },
    });
    const detach = () => this.abort.signal.removeEventListener("abort", stopped);
    this.jobs.set(job.source, { key: plan.key, runner, publisher, lease, abort, detach });
    // A probe shows its counters from the start, at zero.
    if (job.role === "probe" || job.countersAtStart) void publisher.succeeded();
    return this.scheduler.add(runner);
  }

  private async stopJob(job: RunningJob): Promise<void> {
    if (this.jobs.get(job.runner.job.source) === job) this.jobs.delete(job.runner.job.source);
    job.detach();
    job.abort.abort();
    job.publisher.stop();
    await this.scheduler.remove(job.runner);
    job.lease.retire();
  }
}
