import type { MetricDefinition } from "../catalog/metrics.js";

export type Labels = Readonly<Record<string, string>>;

/** Cumulative observations of one histogram series, in the buckets its catalog entry declares. */
export class HistogramData {
  /** Observations per bucket, not cumulative; the last slot is +Inf. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly upperBounds: readonly number[]) {
    this.counts = new Array<number>(upperBounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let index = this.upperBounds.findIndex((bound) => value <= bound);
    if (index === -1) index = this.upperBounds.length;
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }
}

export type Sample =
  | { readonly metric: MetricDefinition; readonly labels?: Labels; readonly value: number }
  | { readonly metric: MetricDefinition; readonly labels?: Labels; readonly histogram: HistogramData };

/** Sample lines per metric name, without HELP/TYPE, ready to be concatenated at scrape time. */
export type RenderedMetrics = ReadonlyMap<string, string>;

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabelValue(value)}"`);
  return pairs.length > 0 ? `{${pairs.join(",")}}` : "";
}

function histogramLines(name: string, labels: Labels, histogram: HistogramData): string {
  let lines = "";
  let cumulative = 0;
  histogram.upperBounds.forEach((bound, index) => {
    cumulative += histogram.counts[index] ?? 0;
    lines += `${name}_bucket${labelText({ ...labels, le: formatValue(bound) })} ${cumulative}\n`;
  });
  lines += `${name}_bucket${labelText({ ...labels, le: "+Inf" })} ${histogram.count}\n`;
  lines += `${name}_sum${labelText(labels)} ${formatValue(histogram.sum)}\n`;
  lines += `${name}_count${labelText(labels)} ${histogram.count}\n`;
  return lines;
}

/** Renders one target's samples; `horizon` comes first so every series of a target lines up. */
export function renderSamples(horizon: string, samples: readonly Sample[]): RenderedMetrics {
  const rendered = new Map<string, string>();
  for (const sample of samples) {
    const labels = { horizon, ...sample.labels };
    const name = sample.metric.name;
    const lines =
      "histogram" in sample
        ? histogramLines(name, labels, sample.histogram)
        : `${name}${labelText(labels)} ${formatValue(sample.value)}\n`;
    rendered.set(name, (rendered.get(name) ?? "") + lines);
  }
  return rendered;
}

/** What a collector shows: `live` series leave /metrics when stale, `persistent` ones never do. */
export interface CollectorSamples {
  readonly live: readonly Sample[];
  readonly persistent: readonly Sample[];
}
