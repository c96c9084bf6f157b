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
 * The only default metrics `promtool check metrics` (2.x, prom-client 15) rejects: gauges named like counters. Each
 * has a collector of its own, so removing them leaves their untotalled siblings (by type) as they are.
 */
const PROMTOOL_FLAGGED_DEFAULTS = [
  "nodejs_active_resources_total",
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
];

type OwnMetric = Gauge | Counter | Histogram;

/** The exporter's own metrics, made from their catalog entries, in one prom-client registry. */
export class OwnRegistry {
  readonly registry = new Registry();

  gauge(metric: MetricDefinition): Gauge {
    return new Gauge(this.configuration(metric));
  }

  counter(metric: MetricDefinition): Counter {
    return new Counter(this.configuration(metric));
  }

  histogram(metric: MetricDefinition): Histogram {
    return new Histogram({ ...this.configuration(metric), buckets: [...(metric.buckets ?? [])] });
  }

  private configuration(metric: MetricDefinition) {
    const labelNames = metric.perTarget === false ? [...metric.labels] : [targetLabelOf(metric), ...metric.labels];
    return { name: metric.name, help: metric.help, labelNames, registers: [this.registry] };
  }
}

/**
 * How often `nodejs_eventloop_lag_p*_seconds` samples. prom-client's 10 ms timer was most of what an idle exporter
 * spent (docs/performance.md, "Measurements"); 100 ms still sees any stall that long, a shorter one in proportion.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

type HorizonKey = keyof typeof METRICS;
/** A kind's catalog: the entries both kinds have, and Horizon's others where the kind has them. */
type TargetCatalog = Record<HorizonKey & keyof typeof RPC_METRICS, MetricDefinition> &
  Partial<Record<HorizonKey, MetricDefinition>>;

/** Each target of one kind: requests, polls, failures, freshness, and where the kind has them, plan and rate limit. */
export class TargetMetrics {
  private readonly label: string;
  private readonly all: OwnMetric[] = [];
  private readonly requests: Counter;
  private readonly requestDuration: Histogram;
  private readonly pollDuration: Histogram;
  private readonly pollErrors: Counter;
  private readonly invalidRecords: Counter;
  private readonly lastSuccess: Gauge;
  private readonly plannedRequests: Gauge | undefined;
  private readonly requestBudget: Gauge | undefined;
  private readonly rateLimit: Readonly<Record<"limit" | "remaining" | "resetSeconds", Gauge>> | undefined;
  private readonly holdsCapped: Counter;

  constructor(
    registry: OwnRegistry,
    catalog: TargetCatalog,
    /** The `endpoint` values whose error counters start at zero. */
    private readonly endpoints: readonly PollEndpoint[],
  ) {
    this.label = targetLabelOf(catalog.requestsTotal);
    // Made in this order, which is the order they are rendered in.
    const own = <M extends OwnMetric>(metric: M): M => {
      this.all.push(metric);
      return metric;
    };
    const gauge = (metric: MetricDefinition) => own(registry.gauge(metric));
    this.requests = own(registry.counter(catalog.requestsTotal));
    this.requestDuration = own(registry.histogram(catalog.requestDuration));
    this.pollDuration = own(registry.histogram(catalog.pollDuration));
    this.pollErrors = own(registry.counter(catalog.pollErrorsTotal));
    this.invalidRecords = own(registry.counter(catalog.invalidRecordsTotal));
    this.lastSuccess = gauge(catalog.lastSuccessTimestamp);
    this.plannedRequests = catalog.plannedRequestsPerHour && gauge(catalog.plannedRequestsPerHour);
    this.requestBudget = catalog.requestBudgetPerHour && gauge(catalog.requestBudgetPerHour);
    const { rateLimitLimit: limit, rateLimitRemaining: remaining, rateLimitReset: reset } = catalog;
    if (limit && remaining && reset) {
      this.rateLimit = { limit: gauge(limit), remaining: gauge(remaining), resetSeconds: gauge(reset) };
    }
    this.holdsCapped = own(registry.counter(catalog.rateLimitHoldsCappedTotal));
  }

  /** Zero-initialises a target's error counters so rate() and alerts see them before the first error. */
  addTarget(target: string): void {
    this.holdsCapped.inc({ [this.label]: target }, 0);
    for (const endpoint of this.endpoints) {
      this.invalidRecords.inc({ [this.label]: target, endpoint }, 0);
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
    for (const metric of this.all) {
      const { values } = await metric.get();
      const labelSets = new Map<string, Partial<Record<string, string | number>>>();
      for (const { labels } of values) {
        if (labels[this.label] !== target) continue;
        // Histogram buckets share their series' labels but for `le`.
        const { le: _bucket, ...series } = labels;
        labelSets.set(JSON.stringify(series), series);
      }
      for (const labels of labelSets.values()) metric.remove(labels);
    }
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
    this.invalidRecords.inc({ [this.label]: target, endpoint }, count);
  }

  pollFailed(target: string, endpoint: PollEndpoint, durationSeconds: number, reason: PollErrorReason): void {
    this.pollDuration.observe({ [this.label]: target, endpoint }, durationSeconds);
    this.pollErrors.inc({ [this.label]: target, endpoint, reason });
  }
}

/** The exporter's own health: build, configuration reloads, publications, and each kind's target metrics. */
export class ExporterMetrics {
  readonly registry = new OwnRegistry();
  readonly horizon = new TargetMetrics(this.registry, METRICS, ENDPOINTS);
  private readonly configReloadSuccessful = this.registry.gauge(METRICS.configLastReloadSuccessful);
  private readonly configReloadTimestamp = this.registry.gauge(METRICS.configLastReloadSuccessTimestamp);
  private readonly publishFailures = this.registry.counter(METRICS.publishFailuresTotal);
  readonly rpc = new TargetMetrics(this.registry, RPC_METRICS, RPC_ENDPOINTS);

  constructor(version: string, shard: Shard = WHOLE) {
    this.registry.gauge(METRICS.buildInfo).set({ version, node_version: process.version }, 1);
    this.registry.gauge(METRICS.shardInfo).set({ index: String(shard.index), total: String(shard.total) }, 1);
    this.publishFailures.inc(0);
    collectDefaultMetrics({ register: this.registry.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    for (const name of PROMTOOL_FLAGGED_DEFAULTS) this.registry.registry.removeSingleMetric(name);
  }

  configLoaded(successful: boolean): void {
    this.configReloadSuccessful.set(successful ? 1 : 0);
    if (successful) this.configReloadTimestamp.set(Date.now() / 1000);
  }

  publishFailed(): void {
    this.publishFailures.inc();
  }

  /** The own series, then the process metrics, as they are now, in the coding. */
  async render(coding: ContentCoding): Promise<Buffer> {
    const text = Buffer.from(await this.registry.registry.metrics());
    // A few kilobytes: compressed at once, rather than waiting on a busy machine for a thread-pool round trip,
    // and with zlib's default memory level, whose smaller tables cost a fraction of the store's to set up.
    return coding === "gzip" ? gzipSync(text, { level: GZIP_OPTIONS.level }) : text;
  }
}
