import { systemClock, type Clock } from "../clock.js";
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
import { GZIP_OPTIONS, type ContentCoding } from "./store.js";

/** The only default metrics `promtool check metrics` (2.x, prom-client 15) rejects: gauges named like counters. Each
 * has a collector of its own, so removing them leaves their untotalled siblings (by type) as they are. */
const PROMTOOL_FLAGGED_DEFAULTS = [
  "nodejs_active_resources_total",
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
];

/** The exporter's own metrics, made from their catalog entries, in one prom-client registry. */
export class OwnRegistry {
  readonly registry = new Registry();

  readonly gauge = (metric: MetricDefinition) => new Gauge(this.configuration(metric));
  readonly counter = (metric: MetricDefinition) => new Counter(this.configuration(metric));
  readonly histogram = (metric: MetricDefinition) =>
    new Histogram({ ...this.configuration(metric), buckets: [...(metric.buckets ?? [])] });

  private configuration(metric: MetricDefinition) {
    const labelNames = metric.perTarget === false ? [...metric.labels] : [targetLabelOf(metric), ...metric.labels];
    return { name: metric.name, help: metric.help, labelNames, registers: [this.registry] };
  }
}

/** How often `nodejs_eventloop_lag_p*_seconds` samples. prom-client's 10 ms timer was most of what an idle exporter
 * spent (docs/performance.md, "Measurements"); 100 ms still sees any stall that long, a shorter one in proportion. */
const EVENT_LOOP_SAMPLE_MS = 100;

/** A kind's catalog: the entries both kinds have, and Horizon's others where the kind has them. */
type TargetCatalog = Record<keyof typeof METRICS & keyof typeof RPC_METRICS, MetricDefinition> &
  Partial<Record<keyof typeof METRICS, MetricDefinition>>;

/** Each target of one kind: requests, polls, failures, freshness, and where the kind has them, plan and rate limit. */
export type TargetMetrics = ReturnType<typeof targetMetrics>;

/** `endpoints` are the `endpoint` values whose error counters start at zero. */
function targetMetrics(registry: OwnRegistry, catalog: TargetCatalog, endpoints: readonly PollEndpoint[]) {
  const label = targetLabelOf(catalog.requestsTotal);
  const optional = (metric: MetricDefinition | undefined) => metric && registry.gauge(metric);
  // Made in this order, which is the order they are rendered in; the rate-limit gauges are keyed as the headers are.
  const own = {
    requests: registry.counter(catalog.requestsTotal),
    requestDuration: registry.histogram(catalog.requestDuration),
    pollDuration: registry.histogram(catalog.pollDuration),
    pollErrors: registry.counter(catalog.pollErrorsTotal),
    invalidRecords: registry.counter(catalog.invalidRecordsTotal),
    lastSuccess: registry.gauge(catalog.lastSuccessTimestamp),
    plannedRequests: optional(catalog.plannedRequestsPerHour),
    requestBudget: optional(catalog.requestBudgetPerHour),
    limit: optional(catalog.rateLimitLimit),
    remaining: optional(catalog.rateLimitRemaining),
    resetSeconds: optional(catalog.rateLimitReset),
    holdsCapped: registry.counter(catalog.rateLimitHoldsCappedTotal),
  };
  return {
    /** Zero-initialises a target's error counters so rate() and alerts see them before the first error. */
    addTarget(target: string): void {
      own.holdsCapped.inc({ [label]: target }, 0);
      for (const endpoint of endpoints) {
        const series = { [label]: target, endpoint };
        own.invalidRecords.inc(series, 0);
        for (const reason of Object.keys(POLL_ERROR_REASONS)) own.pollErrors.inc({ ...series, reason }, 0);
      }
    },

    /** Records a target's request plan, where the kind exports one. */
    requestPlan(target: string, plannedRequestsPerHour: number, requestBudgetPerHour: number): void {
      own.plannedRequests?.set({ [label]: target }, plannedRequestsPerHour);
      own.requestBudget?.set({ [label]: target }, requestBudgetPerHour);
    },

    /** Drops every series of a target that a reload removed. */
    async removeTarget(target: string): Promise<void> {
      for (const metric of Object.values(own)) {
        if (metric === undefined) continue;
        for (const { labels } of (await metric.get()).values) {
          // Histogram buckets share their series' labels but for `le`; removing a series twice is harmless.
          const { le: _bucket, ...series } = labels;
          if (series[label] === target) metric.remove(series);
        }
      }
    },

    observerFor(target: string): RequestObserver<string> {
      const labels = { [label]: target };
      return {
        onRequest: (endpoint, code, durationSeconds) => {
          own.requests.inc({ ...labels, endpoint, code });
          own.requestDuration.observe({ ...labels, endpoint }, durationSeconds);
        },
        onRateLimitHeaders: (headers) => {
          for (const key of ["limit", "remaining", "resetSeconds"] as const) {
            const value = headers[key];
            if (value === undefined) own[key]?.remove(labels);
            else own[key]?.set(labels, value);
          }
        },
        onHoldCapped: () => own.holdsCapped.inc(labels),
      };
    },

    pollSucceeded(target: string, endpoint: PollEndpoint, durationSeconds: number, atMs: number): void {
      own.pollDuration.observe({ [label]: target, endpoint }, durationSeconds);
      own.lastSuccess.set({ [label]: target, endpoint }, atMs / 1000);
    },

    invalidRecordsRead(target: string, endpoint: PollEndpoint, count: number): void {
      own.invalidRecords.inc({ [label]: target, endpoint }, count);
    },

    pollFailed(target: string, endpoint: PollEndpoint, durationSeconds: number, reason: PollErrorReason): void {
      own.pollDuration.observe({ [label]: target, endpoint }, durationSeconds);
      own.pollErrors.inc({ [label]: target, endpoint, reason });
    },
  };
}

/** The exporter's own health: build, configuration reloads, publications, and each kind's target metrics. */
export class ExporterMetrics {
  readonly registry = new OwnRegistry();
  readonly horizon = targetMetrics(this.registry, METRICS, ENDPOINTS);
  private readonly configReloadSuccessful = this.registry.gauge(METRICS.configLastReloadSuccessful);
  private readonly configReloadTimestamp = this.registry.gauge(METRICS.configLastReloadSuccessTimestamp);
  private readonly publishFailures = this.registry.counter(METRICS.publishFailuresTotal);
  readonly rpc = targetMetrics(this.registry, RPC_METRICS, RPC_ENDPOINTS);

  constructor(
    version: string,
    shard: Shard = WHOLE,
    private readonly clock: Clock = systemClock,
  ) {
    this.registry.gauge(METRICS.buildInfo).set({ version, node_version: process.version }, 1);
    this.registry.gauge(METRICS.shardInfo).set({ index: String(shard.index), total: String(shard.total) }, 1);
    this.publishFailures.inc(0);
    collectDefaultMetrics({ register: this.registry.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    for (const name of PROMTOOL_FLAGGED_DEFAULTS) this.registry.registry.removeSingleMetric(name);
  }

  configLoaded(successful: boolean): void {
    this.configReloadSuccessful.set(successful ? 1 : 0);
    if (successful) this.configReloadTimestamp.set(this.clock.now() / 1000);
  }

  publishFailed(): void {
    this.publishFailures.inc();
  }

  /** The own series, then the process metrics, as they are now, in the coding. */
  async render(coding: ContentCoding): Promise<Buffer> {
    const text = Buffer.from(await this.registry.registry.metrics());
    // A few kilobytes: compressed at once rather than after a thread-pool round trip, with zlib's default memory
    // level, whose smaller tables cost a fraction of the store's to set up.
    return coding === "gzip" ? gzipSync(text, { level: GZIP_OPTIONS.level }) : text;
  }
}
