import { ALL_METRICS, type MetricDefinition, type PollEndpoint } from "../catalog/metrics.js";
import { renderSamples, type CollectorSamples, type RenderedMetrics } from "./samples.js";

interface Published {
  readonly live: RenderedMetrics;
  readonly persistent: RenderedMetrics;
  /** After this instant the live series are stale and leave the output. */
  readonly freshUntilMs: number;
}

/** One metric family's parts (HELP and TYPE, then each target's lines), as last assembled. */
interface Family {
  readonly parts: readonly Buffer[];
  /** The family must be assembled again at this instant, when a live part goes stale. */
  readonly validUntilMs: number;
}

const TARGET_METRICS = ALL_METRICS.filter((metric) => metric.source !== "exporter");

function headerText(metric: MetricDefinition): string {
  const help = metric.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
  return `# HELP ${metric.name} ${help}\n# TYPE ${metric.name} ${metric.type}\n`;
}

/**
 * Holds every target's series, rendered once per poll, and each metric family's bytes, encoded
 * once per change of that family. A scrape hands out the cached buffers (one HELP/TYPE per
 * family, every target's series together, as the text format requires), so its cost does not
 * depend on how much work the polls did, and a slow Horizon never slows a scrape.
 */
export class MetricStore {
  /** Per endpoint, per target, in the order targets were added. */
  private readonly published = new Map<PollEndpoint, Map<string, Published>>();
  private readonly families = new Map<string, Family>();
  private readonly headers = new Map<string, Buffer>();

  /** Renders the samples, then replaces the target's series of that endpoint in one step. */
  async publish(horizon: string, endpoint: PollEndpoint, samples: CollectorSamples, freshUntilMs: number): Promise<void> {
    const live = await renderSamples(horizon, samples.live);
    const persistent = await renderSamples(horizon, samples.persistent);
    let byTarget = this.published.get(endpoint);
    if (byTarget === undefined) this.published.set(endpoint, (byTarget = new Map()));
    byTarget.set(horizon, { live, persistent, freshUntilMs });
    this.forget(endpoint);
  }

  /**
   * Forgets a target entirely, e.g. when a reload removes it. A Horizon and a Stellar RPC may
   * share a name, so only the endpoints of the one removed are forgotten.
   */
  remove(target: string, endpoints: readonly PollEndpoint[]): void {
    for (const endpoint of endpoints) {
      if (this.published.get(endpoint)?.delete(target)) this.forget(endpoint);
    }
  }

  /** The exposition of every Horizon series, as buffers to be sent one after the other. */
  render(nowMs: number): Buffer[] {
    const chunks: Buffer[] = [];
    for (const metric of TARGET_METRICS) {
      let family = this.families.get(metric.name);
      if (family === undefined || nowMs >= family.validUntilMs) {
        family = this.assemble(metric, nowMs);
        this.families.set(metric.name, family);
      }
      chunks.push(...family.parts);
    }
    return chunks;
  }

  private forget(endpoint: PollEndpoint): void {
    for (const metric of TARGET_METRICS) if (metric.source === endpoint) this.families.delete(metric.name);
  }

  private assemble(metric: MetricDefinition, nowMs: number): Family {
    let validUntilMs = Infinity;
    const lines: Buffer[] = [];
    for (const entry of this.published.get(metric.source as PollEndpoint)?.values() ?? []) {
      const persistent = entry.persistent.get(metric.name);
      if (persistent !== undefined) {
        lines.push(...persistent);
        continue;
      }
      if (nowMs >= entry.freshUntilMs) continue;
      const live = entry.live.get(metric.name);
      if (live === undefined) continue;
      lines.push(...live);
      validUntilMs = Math.min(validUntilMs, entry.freshUntilMs);
    }
    return { parts: lines.length === 0 ? [] : [this.header(metric), ...lines], validUntilMs };
  }

  private header(metric: MetricDefinition): Buffer {
    let bytes = this.headers.get(metric.name);
    if (bytes === undefined) this.headers.set(metric.name, (bytes = Buffer.from(headerText(metric))));
    return bytes;
  }
}
