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

const NEEDS_ESCAPE = /[\\\n"]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/[\\\n"]/g, (character) => (character === "\n" ? "\\n" : `\\${character}`));
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** `,name="value"` for each label, ready to follow the `horizon` label. */
function labelPairs(labels: Labels | undefined): string {
  let text = "";
  if (labels === undefined) return text;
  for (const name in labels) text += `,${name}="${escapeLabelValue(labels[name]!)}"`;
  return text;
}

function histogramLines(name: string, labels: string, histogram: HistogramData): string {
  let lines = "";
  let cumulative = 0;
  histogram.upperBounds.forEach((bound, index) => {
    cumulative += histogram.counts[index] ?? 0;
    lines += `${name}_bucket{${labels},le="${formatValue(bound)}"} ${cumulative}\n`;
  });
  lines += `${name}_bucket{${labels},le="+Inf"} ${histogram.count}\n`;
  lines += `${name}_sum{${labels}} ${formatValue(histogram.sum)}\n`;
  lines += `${name}_count{${labels}} ${histogram.count}\n`;
  return lines;
}

/**
 * Lines already rendered for a sample object. Collectors hand back the very same sample objects
 * for state that did not change (e.g. an unmodified liquidity pool), so those are not rendered
 * again. Histograms change in place, so they are never remembered.
 */
const renderedLines = new WeakMap<Sample, { readonly horizonLabel: string; readonly lines: string }>();

function sampleLines(horizonLabel: string, sample: Sample): string {
  const remembered = renderedLines.get(sample);
  if (remembered !== undefined && remembered.horizonLabel === horizonLabel) return remembered.lines;
  const labels = horizonLabel + labelPairs(sample.labels);
  const name = sample.metric.name;
  if ("histogram" in sample) return histogramLines(name, labels, sample.histogram);
  const lines = `${name}{${labels}} ${formatValue(sample.value)}\n`;
  renderedLines.set(sample, { horizonLabel, lines });
  return lines;
}

/** Renders one target's samples; `horizon` comes first so every series of a target lines up. */
export function renderSamples(horizon: string, samples: readonly Sample[]): RenderedMetrics {
  const horizonLabel = `horizon="${escapeLabelValue(horizon)}"`;
  const rendered = new Map<string, string>();
  for (const sample of samples) {
    const name = sample.metric.name;
    rendered.set(name, (rendered.get(name) ?? "") + sampleLines(horizonLabel, sample));
  }
  return rendered;
}

/** What a collector shows: `live` series leave /metrics when stale, `persistent` ones never do. */
export interface CollectorSamples {
  readonly live: readonly Sample[];
  readonly persistent: readonly Sample[];
}
