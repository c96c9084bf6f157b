import { WHOLE, type Shard } from "../config/shard.js";
import { gzipSync } from "node:zlib";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import {
  ENDPOINTS,
  METRICS,
  POLL_ERROR_REASONS,
  RPC_ENDPOINTS,
  RPC_METRICS,
  targetLabelOf,
  type MetricDefinition,
  type PollEndpoint,
  type PollErrorReason,
} from "../catalog/metrics.js";
import type { RequestObserver } from "../client/http.js";
import type { RateLimitHeaders } from "../client/rate-limit.js";
import { GZIP_OPTIONS, type ContentCoding } from "./store.js";

/**
 * The only default process metrics that `promtool check metrics` rejects: gauges named like
 * counters (`_total`, checked with promtool 2.x against prom-client 15). They are left out of the
 * output rather than unregistered, since prom-client collects them together with other gauges.
 */
const PROMTOOL_FLAGGED_DEFAULTS = new Set([
  "nodejs_active_resources_total",
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
]);

/** How long one collection of the default process metrics is served. */
const PROCESS_METRICS_REUSE_MS = 1000;

/** The exposition text without the named families (their HELP, TYPE and sample lines). */
function withoutFamilies(text: string, names: ReadonlySet<string>): string {
  let skipping = false;
  return text
    .split("\n")
    .filter((line) => {
      if (line.startsWith("# HELP ")) skipping = names.has(line.slice(7, line.indexOf(" ", 7)));
      return !skipping;
    })
    .join("\n");
}

function labelNames(metric: MetricDefinition): string[] {
  return metric.perTarget === false ? [...metric.labels] : [targetLabelOf(metric), ...metric.labels];
}

/** Exposition text, and its gzip member once a scrape asked for one. */
class EncodedText {
  private readonly plain: Buffer;
  private gzip: Buffer | undefined;

  constructor(text: string) {
    this.plain = Buffer.from(text);
  }

  in(coding: ContentCoding): Buffer {
    // A few kilobytes, compressed at once rather than by a round trip through the thread pool.
    return coding === "identity" ? this.plain : (this.gzip ??= gzipSync(this.plain, GZIP_OPTIONS));
  }
}

type OwnMetric = Gauge | Counter | Histogram;

/**
 * A prom-client registry that keeps each family's text from one scrape to the next and renders a
 * family again only after a call on one of its metrics: rendering and compressing all the own
 * series is what every scrape used to pay; a poll changes a few families, so a scrape now pays
 * for those, and still shows current values. Every call counts as a change, reads included: the exporter calls its metrics to record,
 * and a needless render costs only time.
 */
export class OwnRegistry {
  private readonly registry = new Registry();
  private readonly changed = new Set<string>();
  private readonly texts = new Map<string, Promise<EncodedText>>();
  /** The last list of texts: a scrape after no change or registration gets it without asking each family. */
  private last: Promise<readonly EncodedText[]> | undefined;

  gauge(metric: MetricDefinition): Gauge {
    return this.tracked(metric, new Gauge(this.configuration(metric)));
  }

  counter(metric: MetricDefinition): Counter {
    return this.tracked(metric, new Counter(this.configuration(metric)));
  }

  histogram(metric: MetricDefinition): Histogram {
    return this.tracked(metric, new Histogram({ ...this.configuration(metric), buckets: [...(metric.buckets ?? [])] }));
  }

  /** Every family's text, in the order the metrics were made; the same list while nothing changed. */
  render(): Promise<readonly EncodedText[]> {
    if (this.last === undefined || this.changed.size > 0) this.last = this.renderFamilies();
    return this.last;
  }

  private renderFamilies(): Promise<EncodedText[]> {
    return Promise.all(
      this.registry.getMetricsAsArray().map(({ name }) => {
        let text = this.texts.get(name);
        if (text === undefined || this.changed.has(name)) {
          // Noted before rendering, so a change made while the family renders shows at the next scrape.
          this.changed.delete(name);
          text = this.registry.getSingleMetricAsString(name).then((family) => new EncodedText(`${family}\n`));
          this.texts.set(name, text);
        }
        return text;
      }),
    );
  }

  private configuration(metric: MetricDefinition) {
    return { name: metric.name, help: metric.help, labelNames: labelNames(metric), registers: [this.registry] };
  }

  /**
   * The metric, noting each method call on it as a change of its family. The methods run with the
   * tracked metric as `this`, so what they hand out bound to it (labels(), timers) is tracked too.
   */
  private tracked<M extends OwnMetric>(definition: MetricDefinition, metric: M): M {
    const changed = this.changed;
    changed.add(definition.name);
    return new Proxy(metric, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          changed.add(definition.name);
          return value.apply(receiver, args);
        };
      },
    });
  }
}

/** Drops every series of `metrics` whose `label` is `value`. */
export async function removeSeries(metrics: readonly OwnMetric[], label: string, value: string): Promise<void> {
  for (const metric of metrics) {
    const { values } = await metric.get();
    const labelSets = new Map<string, Record<string, string | number>>();
    for (const { labels } of values) {
      if (labels[label] !== value) continue;
      // Histogram buckets share their series' labels but for `le`.
      const series = Object.fromEntries(
        Object.entries(labels).filter(
          (entry): entry is [string, string | number] => entry[0] !== "le" && entry[1] !== undefined,
        ),
      );
      labelSets.set(JSON.stringify(series), series);
    }
    for (const labels of labelSets.values()) metric.remove(labels);
  }
}

/**
 * How often the event-loop delay behind `nodejs_eventloop_lag_p*_seconds` is sampled. prom-client's
 * default, every 10 ms, is a timer firing a hundred times a second, most of what an idle exporter
 * spent (docs/performance.md, "Measurements"). Every 100 ms still sees any stall that long, and a
 * shorter one in proportion to its length.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** The self-metrics one kind of target is counted in; what a kind does not have stays absent. */
interface TargetMetricSet {
  readonly requestsTotal: MetricDefinition;
  readonly requestDuration: MetricDefinition;
  readonly pollDuration: MetricDefinition;
  readonly pollErrorsTotal: MetricDefinition;
  readonly lastSuccessTimestamp: MetricDefinition;
  readonly invalidRecordsTotal?: MetricDefinition;
  readonly plannedRequestsPerHour?: MetricDefinition;
  readonly requestBudgetPerHour?: MetricDefinition;
  readonly rateLimit?: {
    readonly limit: MetricDefinition;
    readonly remaining: MetricDefinition;
    readonly resetSeconds: MetricDefinition;
  };
  /** Rate-limit holds cut to the cap. */
  readonly holdsCappedTotal: MetricDefinition;
}

/** The Horizon targets' self-metrics. */
const HORIZON_SELF_METRICS: TargetMetricSet = {
  requestsTotal: METRICS.requestsTotal,
  requestDuration: METRICS.requestDuration,
  pollDuration: METRICS.pollDuration,
  pollErrorsTotal: METRICS.pollErrorsTotal,
  lastSuccessTimestamp: METRICS.lastSuccessTimestamp,
  invalidRecordsTotal: METRICS.invalidRecordsTotal,
  plannedRequestsPerHour: METRICS.plannedRequestsPerHour,
  requestBudgetPerHour: METRICS.requestBudgetPerHour,
  rateLimit: {
    limit: METRICS.rateLimitLimit,
    remaining: METRICS.rateLimitRemaining,
    resetSeconds: METRICS.rateLimitReset,
  },
  holdsCappedTotal: METRICS.rateLimitHoldsCappedTotal,
};

/** The Stellar RPC targets' self-metrics, the stellar_horizon_exporter_rpc_* series. */
const RPC_SELF_METRICS: TargetMetricSet = {
  requestsTotal: RPC_METRICS.requestsTotal,
  requestDuration: RPC_METRICS.requestDuration,
  pollDuration: RPC_METRICS.pollDuration,
  pollErrorsTotal: RPC_METRICS.pollErrorsTotal,
  lastSuccessTimestamp: RPC_METRICS.lastSuccessTimestamp,
  invalidRecordsTotal: RPC_METRICS.invalidRecordsTotal,
  holdsCappedTotal: RPC_METRICS.rateLimitHoldsCappedTotal,
};

/**
 * The exporter's view of each target of one kind: requests, polls, failures, freshness, and where
 * the kind has them, invalid records, the request plan and the rate-limit headroom. Series carry
 * the kind's target label (`horizon` or `rpc`).
 */
export class TargetMetrics {
  private readonly label: string;
  private readonly requests: Counter;
  private readonly requestDuration: Histogram;
  private readonly pollDuration: Histogram;
  private readonly pollErrors: Counter;
  private readonly lastSuccess: Gauge;
  private readonly invalidRecords: Counter | undefined;
  private readonly plannedRequests: Gauge | undefined;
  private readonly requestBudget: Gauge | undefined;
  private readonly rateLimit:
    | { readonly limit: Gauge; readonly remaining: Gauge; readonly resetSeconds: Gauge }
    | undefined;
  private readonly holdsCapped: Counter;
  private readonly all: OwnMetric[];

  constructor(
    registry: OwnRegistry,
    set: TargetMetricSet,
    /** The `endpoint` values whose error counters start at zero. */
    private readonly endpoints: readonly PollEndpoint[],
  ) {
    this.label = targetLabelOf(set.requestsTotal);
    this.requests = registry.counter(set.requestsTotal);
    this.requestDuration = registry.histogram(set.requestDuration);
    this.pollDuration = registry.histogram(set.pollDuration);
    this.pollErrors = registry.counter(set.pollErrorsTotal);
    this.invalidRecords = set.invalidRecordsTotal && registry.counter(set.invalidRecordsTotal);
    this.lastSuccess = registry.gauge(set.lastSuccessTimestamp);
    this.plannedRequests = set.plannedRequestsPerHour && registry.gauge(set.plannedRequestsPerHour);
    this.requestBudget = set.requestBudgetPerHour && registry.gauge(set.requestBudgetPerHour);
    this.rateLimit = set.rateLimit && {
      limit: registry.gauge(set.rateLimit.limit),
      remaining: registry.gauge(set.rateLimit.remaining),
      resetSeconds: registry.gauge(set.rateLimit.resetSeconds),
    };
    this.holdsCapped = registry.counter(set.holdsCappedTotal);
    this.all = [
      this.holdsCapped,
      this.requests,
      this.requestDuration,
      this.pollDuration,
      this.pollErrors,
      this.lastSuccess,
      ...[this.invalidRecords, this.plannedRequests, this.requestBudget].filter((metric) => metric !== undefined),
      ...Object.values(this.rateLimit ?? {}),
    ];
  }

  /** Zero-initialises a target's error counters so rate() and alerts see them before the first error. */
  addTarget(target: string): void {
    this.holdsCapped.inc({ [this.label]: target }, 0);
    for (const endpoint of this.endpoints) {
      this.invalidRecords?.inc({ [this.label]: target, endpoint }, 0);
      for (const reason of Object.keys(POLL_ERROR_REASONS))
        this.pollErrors.inc({ [this.label]: target, endpoint, reason }, 0);
    }
  }

  /** Records a target's request plan, where the kind exports one. */
  requestPlan(target: string, plannedRequestsPerHour: number, requestBudgetPerHour: number): void {
    this.plannedRequests?.set({ [this.label]: target }, plannedRequestsPerHour);
    this.requestBudget?.set({ [this.label]: target }, requestBudgetPerHour);
  }

  /** Drops every series of a target that a reload removed. */
  async removeTarget(target: string): Promise<void> {
    await removeSeries(this.all, this.label, target);
  }

  observerFor(target: string): RequestObserver<string> {
    const labels = { [this.label]: target };
    return {
      onRequest: (endpoint, code, durationSeconds) => {
        this.requests.inc({ ...labels, endpoint, code });
        this.requestDuration.observe({ ...labels, endpoint }, durationSeconds);
      },
      onRateLimitHeaders: (headers: RateLimitHeaders) => {
        if (this.rateLimit === undefined) return;
        for (const key of ["limit", "remaining", "resetSeconds"] as const) {
          const value = headers[key];
          if (value === undefined) this.rateLimit[key].remove(labels);
          else this.rateLimit[key].set(labels, value);
        }
      },
      onHoldCapped: () => this.holdsCapped.inc(labels),
    };
  }

  pollSucceeded(target: string, endpoint: PollEndpoint, durationSeconds: number, atMs: number): void {
    this.pollDuration.observe({ [this.label]: target, endpoint }, durationSeconds);
    this.lastSuccess.set({ [this.label]: target, endpoint }, atMs / 1000);
  }

  invalidRecordsRead(target: string, endpoint: PollEndpoint, count: number): void {
    this.invalidRecords?.inc({ [this.label]: target, endpoint }, count);
  }

  pollFailed(target: string, endpoint: PollEndpoint, durationSeconds: number, reason: PollErrorReason): void {
    this.pollDuration.observe({ [this.label]: target, endpoint }, durationSeconds);
    this.pollErrors.inc({ [this.label]: target, endpoint, reason });
  }
}

/** The exporter's own health: build, configuration reloads, publications, and each kind's target metrics. */
export class ExporterMetrics {
  readonly registry = new OwnRegistry();
  /**
   * prom-client's default process and Node.js metrics, apart: collecting them (event-loop delay
   * percentiles, memory, handles) costs about a millisecond, so scrapes within a second of each
   * other share one collection, while the exporter's own series are always current.
   */
  private readonly processRegistry = new Registry();
  private processText: { readonly text: Promise<EncodedText>; readonly atMs: number } | undefined;
  /**
   * The own series and the process metrics joined into one buffer per coding, kept while neither
   * changed: a scrape then writes one buffer rather than one per family.
   */
  private joined:
    | {
        readonly own: readonly EncodedText[];
        readonly process: EncodedText;
        readonly bytes: Partial<Record<ContentCoding, Buffer>>;
      }
    | undefined;
  readonly horizon = new TargetMetrics(this.registry, HORIZON_SELF_METRICS, ENDPOINTS);
  private readonly configReloadSuccessful = this.registry.gauge(METRICS.configLastReloadSuccessful);
  private readonly configReloadTimestamp = this.registry.gauge(METRICS.configLastReloadSuccessTimestamp);
  private readonly publishFailures = this.registry.counter(METRICS.publishFailuresTotal);
  readonly rpc = new TargetMetrics(this.registry, RPC_SELF_METRICS, RPC_ENDPOINTS);

  constructor(version: string, shard: Shard = WHOLE) {
    this.registry.gauge(METRICS.buildInfo).set({ version, node_version: process.version }, 1);
    this.registry.gauge(METRICS.shardInfo).set({ index: String(shard.index), total: String(shard.total) }, 1);
    this.publishFailures.inc(0);
    collectDefaultMetrics({ register: this.processRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  configLoaded(successful: boolean): void {
    this.configReloadSuccessful.set(successful ? 1 : 0);
    if (successful) this.configReloadTimestamp.set(Date.now() / 1000);
  }

  publishFailed(): void {
    this.publishFailures.inc();
  }

  /** The own series, then the process metrics, in the coding. */
  async render(coding: ContentCoding): Promise<Buffer[]> {
    const nowMs = performance.now();
    if (this.processText === undefined || nowMs - this.processText.atMs >= PROCESS_METRICS_REUSE_MS) {
      const text = this.processRegistry
        .metrics()
        .then((all) => new EncodedText(withoutFamilies(all, PROMTOOL_FLAGGED_DEFAULTS)));
      this.processText = { text, atMs: nowMs };
    }
    const [own, process] = await Promise.all([this.registry.render(), this.processText.text]);
    if (this.joined?.own !== own || this.joined.process !== process) this.joined = { own, process, bytes: {} };
    // gzip: the families' members one after another, one valid gzip stream (RFC 1952 §2.2).
    return [(this.joined.bytes[coding] ??= Buffer.concat([...own, process].map((text) => text.in(coding))))];
  }
}
