import { ALL_METRICS, type Endpoint, type MetricDefinition } from "../catalog/metrics.js";
import { renderSamples, type CollectorSamples, type RenderedMetrics } from "./samples.js";

interface Published {
  readonly live: RenderedMetrics;
  readonly persistent: RenderedMetrics;
  /** After this instant the live series are stale and leave the output. */
  readonly freshUntilMs: number;
}

const HORIZON_METRICS = ALL_METRICS.filter((metric) => metric.source !== "exporter");

function header(metric: MetricDefinition): string {
  const help = metric.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
  return `# HELP ${metric.name} ${help}\n# TYPE ${metric.name} ${metric.type}\n`;
}

/**
 * Holds every target's series, rendered once per poll. A scrape only concatenates them in
 * catalog order (one HELP/TYPE per family, as the text format requires), so its cost does not
 * depend on how much work the polls did, and a slow Horizon never slows a scrape.
 */
export class MetricStore {
  /** Per endpoint, per target, in the order targets were added. */
  private readonly published = new Map<Endpoint, Map<string, Published>>();
  private cache: { body: string; validUntilMs: number } | undefined;

  publish(horizon: string, endpoint: Endpoint, samples: CollectorSamples, freshUntilMs: number): void {
    let byTarget = this.published.get(endpoint);
    if (byTarget === undefined) this.published.set(endpoint, (byTarget = new Map()));
    byTarget.set(horizon, {
      live: renderSamples(horizon, samples.live),
      persistent: renderSamples(horizon, samples.persistent),
      freshUntilMs,
    });
    this.cache = undefined;
  }

  /** Forgets a target entirely, e.g. when a reload removes it. */
  remove(horizon: string): void {
    for (const byTarget of this.published.values()) byTarget.delete(horizon);
    this.cache = undefined;
  }

  render(nowMs: number): string {
    if (this.cache !== undefined && nowMs < this.cache.validUntilMs) return this.cache.body;
    let validUntilMs = Infinity;
    let body = "";
    for (const metric of HORIZON_METRICS) {
      let lines = "";
      for (const entry of this.published.get(metric.source as Endpoint)?.values() ?? []) {
        const persistent = entry.persistent.get(metric.name);
        if (persistent !== undefined) lines += persistent;
        else if (nowMs < entry.freshUntilMs) {
          const live = entry.live.get(metric.name);
          if (live !== undefined) {
            lines += live;
            validUntilMs = Math.min(validUntilMs, entry.freshUntilMs);
          }
        }
      }
      if (lines !== "") body += header(metric) + lines;
    }
    this.cache = { body, validUntilMs };
    return body;
  }
}
