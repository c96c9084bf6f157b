import { targetLabelOf, type METRICS, type MetricDefinition, type RPC_METRICS, type TargetLabel } from "../catalog/metrics.js";

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

/** Exactly the labels a catalog entry declares (besides `horizon`): each one required, no other allowed. */
export type LabelsOf<M extends MetricDefinition> = { readonly [Name in M["labels"][number]]: string };

type SampleOf<M extends MetricDefinition> = { readonly metric: M } & (M["labels"] extends readonly []
  ? { readonly labels?: undefined }
  : { readonly labels: LabelsOf<M> }) &
  (M["type"] extends "histogram" ? { readonly histogram: HistogramData } : { readonly value: number });

/** A sample of each entry of a catalog that a target publishes (the exporter's own series are prom-client's). */
type CatalogSample<Catalog extends Record<string, MetricDefinition>> = {
  [Key in keyof Catalog]: Catalog[Key]["source"] extends "exporter" ? never : SampleOf<Catalog[Key]>;
}[keyof Catalog];

/**
 * One series of a Horizon or Stellar RPC metric from the catalog. Its labels are that entry's
 * label tuple, checked by the compiler, so what is emitted cannot drift from what README and
 * dashboards read.
 */
export type Sample = CatalogSample<typeof METRICS> | CatalogSample<typeof RPC_METRICS>;

/**
 * A target's lines of one metric, without HELP/TYPE, in one buffer sent as it is at scrape time;
 * `pieces` are views of it, SAMPLES_PER_PIECE samples each.
 */
export interface RenderedFamily {
  readonly whole: Buffer;
  readonly pieces: readonly Buffer[];
}

/** Each metric's rendered lines, by metric name. */
export type RenderedMetrics = ReadonlyMap<string, RenderedFamily>;

/**
 * Pieces end at sample counts, not byte counts, so a changed value moves no later piece's
 * boundary: a piece whose samples did not change renders to the same bytes as last time, and its
 * compressed form can be kept.
 */
const SAMPLES_PER_PIECE = 256;

/** Rendering hands the event loop back this often, so a large poll never stalls a scrape. */
const SAMPLES_BETWEEN_YIELDS = 1024;

const NEEDS_ESCAPE = /[\\\n"]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/[\\\n"]/g, (character) => (character === "\n" ? "\\n" : `\\${character}`));
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** `,name="value"` for each label, ready to follow the target label. */
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

function sampleLines(targetLabels: Readonly<Record<TargetLabel, string>>, sample: Sample): string {
  const labels = targetLabels[targetLabelOf(sample.metric)] + labelPairs(sample.labels);
  const name = sample.metric.name;
  if ("histogram" in sample) return histogramLines(name, labels, sample.histogram);
  return `${name}{${labels}} ${formatValue(sample.value)}\n`;
}

/** A sample's exposition lines, and their length in UTF-8. */
interface RenderedLines {
  readonly text: string;
  readonly bytes: number;
}

/**
 * The lines of samples already rendered, per target. A collector that hands out the same sample
 * object again (a liquidity pool unchanged since the last poll) gets its lines without formatting
 * them again; a sample no longer handed out is forgotten with it.
 */
const renderedLines = new Map<string, WeakMap<Sample, RenderedLines>>();

/** One metric's lines while rendering: the text of each sample, and where each piece ends. */
interface FamilyInProgress {
  readonly lines: string[];
  bytes: number;
  readonly pieceEnds: number[];
}

/** The lines copied into one buffer, written in place so no joined copy of the text lands on the heap. */
function familyOf({ lines, bytes, pieceEnds }: FamilyInProgress): RenderedFamily {
  const whole = Buffer.allocUnsafeSlow(bytes);
  let offset = 0;
  for (const line of lines) offset += whole.write(line, offset);
  let start = 0;
  const pieces = [...pieceEnds, bytes].filter((end) => end > start).map((end) => whole.subarray(start, (start = end)));
  return { whole, pieces };
}

/**
 * Renders one target's samples; the target label (`horizon`, or `rpc` for a Stellar RPC) comes
 * first so every series of a target lines up.
 */
export async function renderSamples(target: string, samples: Iterable<Sample>): Promise<RenderedMetrics> {
  const escaped = escapeLabelValue(target);
  const targetLabels = { horizon: `horizon="${escaped}"`, rpc: `rpc="${escaped}"` };
  let linesOf = renderedLines.get(target);
  if (linesOf === undefined) renderedLines.set(target, (linesOf = new WeakMap()));
  const families = new Map<string, FamilyInProgress>();
  let count = 0;
  for (const sample of samples) {
    if (++count % SAMPLES_BETWEEN_YIELDS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    let lines = linesOf.get(sample);
    if (lines === undefined) {
      const text = sampleLines(targetLabels, sample);
      lines = { text, bytes: Buffer.byteLength(text) };
      // A histogram's observations change in place, so only plain values are kept.
      if ("value" in sample) linesOf.set(sample, lines);
    }
    const name = sample.metric.name;
    let family = families.get(name);
    if (family === undefined) families.set(name, (family = { lines: [], bytes: 0, pieceEnds: [] }));
    family.lines.push(lines.text);
    family.bytes += lines.bytes;
    if (family.lines.length % SAMPLES_PER_PIECE === 0) family.pieceEnds.push(family.bytes);
  }
  return new Map([...families].map(([name, family]) => [name, familyOf(family)]));
}

/** What a collector shows: `live` series leave /metrics when stale, `persistent` ones never do. */
export interface CollectorSamples {
  /** Iterated once; a generator keeps large collections from holding every sample at once. */
  readonly live: Iterable<Sample>;
  readonly persistent: Iterable<Sample>;
}
