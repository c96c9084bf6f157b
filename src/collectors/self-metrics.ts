import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import {
  ENDPOINTS,
  METRICS,
  POLL_ERROR_REASONS,
  targetLabelOf,
  type Endpoint,
  type MetricDefinition,
  type PollErrorReason,
  type RequestPurpose,
} from "../catalog/metrics.js";
import type { RequestObserver } from "../client/horizon-client.js";
import type { RateLimitHeaders } from "../client/rate-limit.js";

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

export function gauge(registry: Registry, metric: MetricDefinition): Gauge {
  return new Gauge({ name: metric.name, help: metric.help, labelNames: labelNames(metric), registers: [registry] });
}

export function counter(registry: Registry, metric: MetricDefinition): Counter {
  return new Counter({ name: metric.name, help: metric.help, labelNames: labelNames(metric), registers: [registry] });
}

export function histogram(registry: Registry, metric: MetricDefinition): Histogram {
  return new Histogram({
    name: metric.name,
    help: metric.help,
    labelNames: labelNames(metric),
    buckets: [...(metric.buckets ?? [])],
    registers: [registry],
  });
}

/** Drops every series of `metrics` whose `label` is `value`. */
export async function removeSeries(metrics: readonly (Gauge | Counter | Histogram)[], label: string, value: string): Promise<void> {
  for (const metric of metrics) {
    const { values } = await metric.get();
    const labelSets = new Map<string, Record<string, string | number>>();
    for (const { labels } of values) {
      if (labels[label] !== value) continue;
      // Histogram buckets share their series' labels but for `le`.
      const series = Object.fromEntries(
        Object.entries(labels).filter((entry): entry is [string, string | number] => entry[0] !== "le" && entry[1] !== undefined),
      );
      labelSets.set(JSON.stringify(series), series);
    }
    for (const labels of labelSets.values()) metric.remove(labels);
  }
}

/** The exporter's own health: requests it sent, polls that failed, and Horizon's rate-limit headroom. */
export class ExporterMetrics {
  readonly registry = new Registry();
  /**
   * prom-client's default process and Node.js metrics, apart: collecting them (event-loop delay
   * percentiles, memory, handles) costs about a millisecond, so scrapes within a second of each
   * other share one collection, while the exporter's own series are always current.
   */
  private readonly processRegistry = new Registry();
  private processText: { readonly text: string; readonly atMs: number } | undefined;
  private readonly requests = counter(this.registry, METRICS.requestsTotal);
  private readonly requestDuration = histogram(this.registry, METRICS.requestDuration);
  private readonly pollDuration = histogram(this.registry, METRICS.pollDuration);
  private readonly pollErrors = counter(this.registry, METRICS.pollErrorsTotal);
  private readonly invalidRecords = counter(this.registry, METRICS.invalidRecordsTotal);
  private readonly lastSuccess = gauge(this.registry, METRICS.lastSuccessTimestamp);
  private readonly plannedRequests = gauge(this.registry, METRICS.plannedRequestsPerHour);
  private readonly requestBudget = gauge(this.registry, METRICS.requestBudgetPerHour);
  private readonly configReloadSuccessful = gauge(this.registry, METRICS.configLastReloadSuccessful);
  private readonly configReloadTimestamp = gauge(this.registry, METRICS.configLastReloadSuccessTimestamp);
  private readonly rateLimit = {
    limit: gauge(this.registry, METRICS.rateLimitLimit),
    remaining: gauge(this.registry, METRICS.rateLimitRemaining),
    resetSeconds: gauge(this.registry, METRICS.rateLimitReset),
  } as const;

  private readonly perTargetMetrics = [
    this.requests,
    this.requestDuration,
    this.pollDuration,
    this.pollErrors,
    this.invalidRecords,
    this.lastSuccess,
    this.plannedRequests,
    this.requestBudget,
    ...Object.values(this.rateLimit),
  ];

  constructor(version: string) {
    gauge(this.registry, METRICS.buildInfo).set({ version, node_version: process.version }, 1);
    collectDefaultMetrics({ register: this.processRegistry });
  }

  configLoaded(successful: boolean): void {
    this.configReloadSuccessful.set(successful ? 1 : 0);
    if (successful) this.configReloadTimestamp.set(Date.now() / 1000);
  }

  /**
   * Zero-initialises a target's error counters so rate() and alerts see them before the first
   * error, and records its request plan.
   */
  addTarget(horizon: string, plannedRequestsPerHour: number, requestBudgetPerHour: number): void {
    this.plannedRequests.set({ horizon }, plannedRequestsPerHour);
    this.requestBudget.set({ horizon }, requestBudgetPerHour);
    for (const endpoint of ENDPOINTS) {
      this.invalidRecords.inc({ horizon, endpoint }, 0);
      for (const reason of Object.keys(POLL_ERROR_REASONS)) this.pollErrors.inc({ horizon, endpoint, reason }, 0);
    }
  }

  /** Drops every series of a target that a reload removed. */
  async removeTarget(horizon: string): Promise<void> {
    await removeSeries(this.perTargetMetrics, "horizon", horizon);
  }

  observerFor(horizon: string): RequestObserver {
    return {
      onRequest: (endpoint: RequestPurpose, code: string, durationSeconds: number) => {
        this.requests.inc({ horizon, endpoint, code });
        this.requestDuration.observe({ horizon, endpoint }, durationSeconds);
      },
      onRateLimitHeaders: (headers: RateLimitHeaders) => {
        for (const key of ["limit", "remaining", "resetSeconds"] as const) {
          const value = headers[key];
          if (value === undefined) this.rateLimit[key].remove({ horizon });
          else this.rateLimit[key].set({ horizon }, value);
        }
      },
    };
  }

  pollSucceeded(horizon: string, endpoint: Endpoint, durationSeconds: number): void {
    this.pollDuration.observe({ horizon, endpoint }, durationSeconds);
    this.lastSuccess.set({ horizon, endpoint }, Date.now() / 1000);
  }

  invalidRecordsRead(horizon: string, endpoint: Endpoint, count: number): void {
    this.invalidRecords.inc({ horizon, endpoint }, count);
  }

  pollFailed(horizon: string, endpoint: Endpoint, durationSeconds: number, reason: PollErrorReason): void {
    this.pollDuration.observe({ horizon, endpoint }, durationSeconds);
    this.pollErrors.inc({ horizon, endpoint, reason });
  }

  async render(): Promise<string> {
    const own = await this.registry.metrics();
    const nowMs = performance.now();
    if (this.processText === undefined || nowMs - this.processText.atMs >= PROCESS_METRICS_REUSE_MS) {
      this.processText = { text: withoutFamilies(await this.processRegistry.metrics(), PROMTOOL_FLAGGED_DEFAULTS), atMs: nowMs };
    }
    return own + this.processText.text;
  }
}
