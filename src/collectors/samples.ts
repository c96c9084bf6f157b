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
 * Each metric's lines, without HELP/TYPE, as pieces of SAMPLES_PER_PIECE samples, each in a
 * buffer of its exact size, sent one after the other at scrape time.
 */
export type RenderedMetrics = ReadonlyMap<string, readonly Buffer[]>;

/**
 * Pieces end at sample counts, not byte counts, so a changed value moves no later piece's
 * boundary: a piece whose samples did not change renders to the same bytes as last time, and its
 * compressed form can be kept. Each piece is compressed apart from the others, so larger pieces
 * compress better (measured on 10 000 pools at zlib's fastest level: 31.3% of the plain bytes
 * with 256 samples, 30.1% with 1 024; the whole body at the default level, 28.8%) while a
 * changed pool costs the compression of a larger piece.
 */
export const SAMPLES_PER_PIECE = 1024;

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

/** What a piece is written into at first: small, for the many families of a few series; it doubles as needed. */
const PIECE_SCRATCH_BYTES = 4 * 1024;

/**
 * One metric's lines while rendering, written as bytes the moment each is formatted, so a line's
 * string dies young instead of living, with tens of thousands of others, until the family is
 * complete (which made the garbage collector promote them and the heap grow). Each piece is
 * copied out at its exact size once complete, and the scratch buffer is written again.
 */
class FamilyWriter {
  readonly pieces: Buffer[] = [];
  private scratch = Buffer.allocUnsafeSlow(PIECE_SCRATCH_BYTES);
  private used = 0;
  private samples = 0;

  append(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const most = 3 * text.length;
    if (this.used + most > this.scratch.length) {
      const larger = Buffer.allocUnsafeSlow(Math.max(2 * this.scratch.length, this.used + most));
      this.scratch.copy(larger, 0, 0, this.used);
      this.scratch = larger;
    }
    this.used += this.scratch.write(text, this.used);
    if (++this.samples % SAMPLES_PER_PIECE === 0) this.endPiece();
  }

  finish(): Buffer[] {
    this.endPiece();
    return this.pieces;
  }

  private endPiece(): void {
    if (this.used === 0) return;
    const piece = Buffer.allocUnsafeSlow(this.used);
    this.scratch.copy(piece, 0, 0, this.used);
    this.pieces.push(piece);
    this.used = 0;
  }
}

/**
 * Renders one target's samples; the target label (`horizon`, or `rpc` for a Stellar RPC) comes
 * first so every series of a target lines up.
 */
export async function renderSamples(target: string, samples: Iterable<Sample>): Promise<RenderedMetrics> {
  const escaped = escapeLabelValue(target);
  const targetLabels = { horizon: `horizon="${escaped}"`, rpc: `rpc="${escaped}"` };
  const families = new Map<string, FamilyWriter>();
  let count = 0;
  for (const sample of samples) {
    if (++count % SAMPLES_BETWEEN_YIELDS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const name = sample.metric.name;
    let family = families.get(name);
    if (family === undefined) families.set(name, (family = new FamilyWriter()));
    family.append(sampleLines(targetLabels, sample));
  }
  return new Map([...families].map(([name, family]) => [name, family.finish()]));
}

/** What a collector shows: `live` series leave /metrics when stale, `persistent` ones never do. */
export interface CollectorSamples {
  /** Iterated once; a generator keeps large collections from holding every sample at once. */
  readonly live: Iterable<Sample>;
  readonly persistent: Iterable<Sample>;
}
