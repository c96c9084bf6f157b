import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { TargetLabel } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import type { Holds, HttpOptions } from "../client/http.js";
import type { ExporterConfig } from "../config/config.js";
import type { TargetBasics } from "../config/targets.js";
import { comparisonKey } from "../config/secret.js";
import type { ExporterMetrics, TargetMetrics } from "../exposition/self-metrics.js";
import type { MetricStore } from "../exposition/store.js";
import { JobRunner, requestBudgetMs, schedule } from "../scheduler/job-runner.js";
import type { Job, JobParts } from "../job/job.js";
import { NetworkView, type NetworkObserver } from "../job/network.js";

/** How a kind's client is observed and stopped: the runtime's, for every request it sends. */
type ClientParts = Required<Pick<HttpOptions<string>, "observer" | "signal" | "clock" | "log" | "hold">>;

/** One line of a kind's job table, as node_exporter's registerCollector: a new surface is a job file and one line. */
export interface JobEntry<Target, Client> {
  readonly source: Job["source"];
  /** Network-level series come from shard 0 alone: on another shard the job does not run. */
  readonly networkLevel?: true;
  enabled?(target: Target, config: ExporterConfig): boolean;
  /** Global settings the job is built from: a reload that changes them restarts this job alone. */
  settings?(config: ExporterConfig): unknown;
  create(parts: JobParts<Target, Client>): Job;
}

/** The entries of `table` a target runs under a configuration, each with the key a reload compares. */
export function jobsOf<Target, Client>(
  table: readonly JobEntry<Target, Client>[],
  target: Target,
  config: ExporterConfig,
) {
  return table
    .filter((entry) => (!entry.networkLevel || config.shard.index === 0) && (entry.enabled?.(target, config) ?? true))
    .map((entry) => ({ entry, key: JSON.stringify(entry.settings?.(config) ?? null) }));
}

/** A kind of target (Horizon, Stellar RPC); scheduling, publishing, reloads and stopping are the runtime's. */
export interface TargetKind<Target extends TargetBasics, Client> {
  /** Names the kind's targets on their series; also how the status board tells kinds apart. */
  readonly label: TargetLabel;
  /** What the landing page calls a target of this kind. */
  title(target: Target): string;
  client(target: Target, config: ExporterConfig, parts: ClientParts): Client;
  readonly jobs: readonly JobEntry<Target, Client>[];
  /** Requests per hour the plan sends and the target allows, where the kind has a budget. */
  requestPlan?(target: Target, config: ExporterConfig): { readonly planned: number; readonly budget: number };
}

export interface RuntimeServices {
  readonly store: MetricStore;
  readonly metrics: ExporterMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Rate-limit holds, kept for a target its reload rebuilds. */
  readonly holds: Holds;
  /** Per target, the request plan over its budget last warned of: a reload that keeps it does not warn again. */
  readonly plansWarned: Map<string, string>;
  /** Told what each target's network view learns (the agreement between targets). */
  readonly networkObserver?: (label: TargetLabel, name: string) => NetworkObserver;
}

type RunningJob = { readonly key: string; readonly runner: JobRunner; readonly unschedule: () => void };

/** Whose rate limit a target's requests count against: its URL's and credentials'. Any header may be one (an API key):
 * targets of one URL with other headers have limits of their own. Fingerprints keep every secret out of the key. */
function holdKey(label: TargetLabel, { url, headers }: TargetBasics): string {
  // Header names are case-insensitive, and their order says nothing.
  const named = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value] as const);
  const credentials = comparisonKey(named.sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${label} ${url.href.fingerprint()} ${credentials}`;
}

/** A runtime of any kind, as the exporter and the status pages see it. */
export type Runtime = TargetRuntime<TargetBasics, unknown>;

/** Everything one target does: its client, network view, and a scheduled runner per job. Built without side effects,
 * so a reload can build every runtime before it stops any; once stopped, nothing it owns runs or publishes. */
export class TargetRuntime<Target extends TargetBasics, Client> {
  readonly key: string;
  readonly label: TargetLabel;
  readonly name: string;
  readonly title: string;
  readonly url: string;
  private readonly abort = new AbortController();
  private readonly network: NetworkView;
  private readonly client: Client;
  private readonly log: Logger;
  private readonly metrics: TargetMetrics;
  private jobs = new Map<Job["source"], RunningJob>();

  constructor(
    private readonly kind: TargetKind<Target, Client>,
    private readonly target: Target,
    private config: ExporterConfig,
    private readonly services: RuntimeServices,
  ) {
    // Each of the target's requests in flight and retry waits listens to it: more than Node's default 10 listeners.
    setMaxListeners(100, this.abort.signal);
    // What rebuilds the runtime and its client: the target's settings and the HTTP ones (the hold cap's freshness too).
    const { retries, maxBodyBytes, staleAfterIntervals } = config;
    this.key = `${kind.label}:${comparisonKey({ target, retries, maxBodyBytes, staleAfterIntervals })}`;
    this.label = kind.label;
    this.name = target.name;
    this.title = kind.title(target);
    this.url = target.url.display;
    this.log = services.logger.child({ [kind.label]: target.name });
    this.metrics = services.metrics[kind.label];
    this.network = new NetworkView(services.networkObserver?.(kind.label, target.name));
    this.client = kind.client(target, config, {
      observer: this.metrics.observerFor(target.name),
      signal: this.abort.signal,
      clock: services.clock,
      log: this.log,
      hold: services.holds.of(holdKey(kind.label, target)),
    });
  }

  get runners(): JobRunner[] {
    return [...this.jobs.values()].map((job) => job.runner);
  }

  /** Starts every job; resolves when every poll's first run has ended. */
  async start(): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.metrics.addTarget(this.name);
    await Promise.all(this.plan(this.config).map((plan) => this.startJob(plan.entry, plan.key)));
  }

  /** Applies a configuration of the same runtime key: only jobs whose keys changed restart, jobs gone stop. */
  async reconfigure(config: ExporterConfig): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.config = config;
    const plans = this.plan(config);
    const keys = new Map(plans.map((plan) => [plan.entry.source, plan.key]));
    const changed = plans.filter((plan) => this.jobs.get(plan.entry.source)?.key !== plan.key);
    const leaving = [...this.jobs.values()].filter((job) => keys.get(job.runner.job.source) !== job.key);
    await Promise.all(leaving.map((job) => this.stopJob(job)));
    for (const plan of changed) void this.startJob(plan.entry, plan.key);
    if (changed.length > 0 || leaving.length > 0) {
      const restarted = changed.map((plan) => plan.entry.source);
      this.log.info({ restarted, stopped: leaving.length - changed.length }, "jobs reconfigured");
    }
  }

  /** Aborts the runs in flight and stops scheduling and publishing, for good. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all([...this.jobs.values()].map((job) => this.stopJob(job)));
    await this.metrics.removeTarget(this.name);
  }

  /** Checks a configuration's request plan against the budget, and lists the jobs it runs. */
  private plan(config: ExporterConfig) {
    const requests = this.kind.requestPlan?.(this.target, config);
    if (requests !== undefined) {
      this.metrics.requestPlan(this.name, requests.planned, requests.budget);
      const { plansWarned } = this.services;
      const target = `${this.label}:${this.name}`;
      const over = requests.planned > requests.budget ? `${requests.planned}/${requests.budget}` : undefined;
      if (over === undefined) plansWarned.delete(target);
      else if (plansWarned.get(target) !== over) {
        plansWarned.set(target, over);
        this.log.warn(
          { plannedRequestsPerHour: requests.planned, requestBudgetPerHour: requests.budget },
          "schedules plan more requests per hour than this target's budget: " +
            "lengthen the poll intervals, track fewer pools or watch fewer accounts",
        );
      }
    }
    return jobsOf(this.kind.jobs, this.target, config);
  }

  private startJob(entry: JobEntry<Target, Client>, key: string): Promise<void> {
    if (this.abort.signal.aborted) return Promise.resolve();
    const { store, clock, metrics } = this.services;
    const { retries, staleAfterIntervals } = this.config;
    const { target, config, client, network, log } = this;
    const job = entry.create({ target, config, client, network, log, clock });
    const runner = new JobRunner({
      target: this.name,
      job,
      lease: store.lease(this.name, job.source, this.label),
      freshnessMs: job.role === "poll" ? staleAfterIntervals * job.schedule.periodMs : Infinity,
      requestBudgetMs: requestBudgetMs(job.schedule, staleAfterIntervals, this.target.timeoutMs, retries),
      metrics: this.metrics,
      publishFailed: () => metrics.publishFailed(),
      log: this.log,
      clock,
      // A poll succeeded: the others of the target that failed on a passing hiccup need not wait their period.
      succeeded: (by, healed) => {
        for (const { runner } of this.jobs.values()) if (runner !== by) runner.peerSucceeded(healed);
      },
    });
    this.jobs.set(job.source, { key, runner, unschedule: schedule(runner, clock) });
    // A probe shows its counters from the start, at zero; its first run waits a period, a poll's runs now.
    if (job.role === "probe" || job.countersAtStart) void runner.publishFresh();
    return job.role === "poll" ? runner.run() : Promise.resolve();
  }

  private async stopJob(job: RunningJob): Promise<void> {
    if (this.jobs.get(job.runner.job.source) === job) this.jobs.delete(job.runner.job.source);
    job.unschedule();
    await job.runner.stop();
  }
}
