import { targetLabelOf, type METRICS, type MetricDefinition, type RPC_METRICS, type TargetLabel } from "../catalog/metrics.js";
import { yieldToEventLoop } from "../event-loop.js";

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
 * label tuple, checked by the compiler, so what is emitted cannot drift from what docs/metrics.md
 * and the dashboards read.
 */
export type Sample = CatalogSample<typeof METRICS> | CatalogSample<typeof RPC_METRICS>;

/** What a piece was rendered from: its samples, and where each sample's lines end in the piece. */
export interface PieceSource {
  readonly samples: readonly Sample[];
  readonly ends: Uint32Array;
}

/**
 * One metric's lines, without HELP/TYPE, as pieces of SAMPLES_PER_PIECE samples, each in a buffer
 * of its exact size, sent one after the other at scrape time, with what each was rendered from.
 */
export interface RenderedFamily {
  readonly pieces: readonly Buffer[];
  readonly sources: readonly PieceSource[];
}

export type RenderedMetrics = ReadonlyMap<string, RenderedFamily>;

/**
 * Pieces end at sample counts, not byte counts, so a changed value moves no later piece's
 * boundary: a piece whose samples did not change renders to the same bytes as last time, and its
 * compressed form can be kept. Each piece is compressed apart from the others, so larger pieces
 * compress better (docs/performance.md, "Measurements") while a changed pool costs the
 * compression of a larger piece.
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
 * A sample object published again renders to the same bytes, as samples are not changed once
 * published; a histogram is the exception (it accumulates in place).
 */
function renderedAs(before: PieceSource | undefined, samples: readonly Sample[], index: number): boolean {
  const sample = samples[index]!;
  return before !== undefined && before.samples[index] === sample && !("histogram" in sample);
}

/**
 * One metric's samples while rendering, gathered a piece at a time. Where a piece's samples are
 * those at the same places of the last rendering's piece, their bytes are copied from it: a poll
 * that changed a few pools formats only their lines, and a piece with none changed is the last
 * one again. Other samples are written line by line, each line as bytes the moment it is
 * formatted (so its string dies young instead of living, with tens of thousands of others, until
 * the family is complete); the piece is copied out at its exact size.
 */
class FamilyWriter {
  readonly pieces: Buffer[] = [];
  readonly sources: PieceSource[] = [];
  /**
   * The piece's samples so far, made only once one differs from the last rendering's at its place:
   * until then they are that rendering's, and a piece with none changed allocates nothing.
   */
  private pending: Sample[] | undefined;
  private count = 0;
  /** Made at the first piece that needs rendering: a family whose pieces are all kept needs none. */
  private scratch: Buffer | undefined;
  private used = 0;

  constructor(
    private readonly targetLabels: Readonly<Record<TargetLabel, string>>,
    private readonly previous: RenderedFamily | undefined,
  ) {}

  /** `remaining` bounds the samples still to come, so a piece's list is made at its size, not grown. */
  add(sample: Sample, remaining: number): void {
    const index = this.count++;
    if (this.pending === undefined && this.previous?.sources[this.pieces.length]?.samples[index] !== sample) {
      this.pending = new Array<Sample>(index + Math.min(SAMPLES_PER_PIECE - index, remaining));
      const before = this.previous?.sources[this.pieces.length]?.samples;
      for (let at = 0; at < index; at += 1) this.pending[at] = before![at]!;
    }
    if (this.pending !== undefined) this.pending[index] = sample;
    if (this.count === SAMPLES_PER_PIECE) this.endPiece();
  }

  finish(): RenderedFamily {
    this.endPiece();
    return { pieces: this.pieces, sources: this.sources };
  }

  private endPiece(): void {
    if (this.count === 0) return;
    const index = this.pieces.length;
    const before = this.previous?.sources[index];
    const beforePiece = this.previous?.pieces[index];
    // No sample differed: the piece is the last rendering's first `count` samples.
    const pending = this.pending;
    if (pending !== undefined) pending.length = this.count;
    const samples: readonly Sample[] = pending ?? (this.count === before!.samples.length ? before!.samples : before!.samples.slice(0, this.count));
    this.pending = undefined;
    this.count = 0;
    let same = 0;
    while (same < samples.length && renderedAs(before, samples, same)) same += 1;
    if (same === samples.length && same === before!.samples.length) {
      this.pieces.push(beforePiece!);
      this.sources.push(before!);
      return;
    }
    const ends = new Uint32Array(samples.length);
    this.used = 0;
    for (let first = 0; first < samples.length; ) {
      let last = first;
      while (last < samples.length && renderedAs(before, samples, last)) last += 1;
      if (last > first) {
        // A run of samples rendered last time: their bytes, copied at once.
        const from = first === 0 ? 0 : before!.ends[first - 1]!;
        const shift = this.used - from;
        this.write(beforePiece!, from, before!.ends[last - 1]!);
        for (let at = first; at < last; at += 1) ends[at] = before!.ends[at]! + shift;
        first = last;
      } else {
        this.writeText(sampleLines(this.targetLabels, samples[first]!));
        ends[first] = this.used;
        first += 1;
      }
    }
    this.pieces.push(this.unlessUnchanged(beforePiece));
    this.sources.push({ samples, ends });
  }

  /**
   * The piece just written: the last rendering's when the bytes are the same (new sample objects
   * of the same values, as the info series of a pool whose reserves moved), so the buffer held
   * since then stays and no new one is made; else a copy at its exact size.
   */
  private unlessUnchanged(beforePiece: Buffer | undefined): Buffer {
    const scratch = this.scratch!;
    if (beforePiece?.length === this.used && scratch.compare(beforePiece, 0, this.used, 0, this.used) === 0) return beforePiece;
    const piece = Buffer.allocUnsafeSlow(this.used);
    scratch.copy(piece, 0, 0, this.used);
    return piece;
  }

  private writeText(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    this.reserve(3 * text.length);
    this.used += this.scratch!.write(text, this.used);
  }

  private write(bytes: Buffer, start: number, end: number): void {
    this.reserve(end - start);
    this.used += bytes.copy(this.scratch!, this.used, start, end);
  }

  private reserve(bytes: number): void {
    const size = this.scratch?.length ?? 0;
    if (this.used + bytes <= size) return;
    const larger = Buffer.allocUnsafeSlow(Math.max(2 * size, PIECE_SCRATCH_BYTES, this.used + bytes));
    this.scratch?.copy(larger, 0, 0, this.used);
    this.scratch = larger;
  }
}

/**
 * Renders one target's samples; the target label (`horizon`, or `rpc` for a Stellar RPC) comes
 * first so every series of a target lines up. `previous`, the same target's last rendering, lends
 * the pieces whose samples did not change.
 */
export async function renderSamples(target: string, samples: readonly Sample[], previous?: RenderedMetrics): Promise<RenderedMetrics> {
  const escaped = escapeLabelValue(target);
  const targetLabels = { horizon: `horizon="${escaped}"`, rpc: `rpc="${escaped}"` };
  const families = new Map<string, FamilyWriter>();
  for (let index = 0; index < samples.length; index += 1) {
    if ((index + 1) % SAMPLES_BETWEEN_YIELDS === 0) await yieldToEventLoop();
    const sample = samples[index]!;
    const name = sample.metric.name;
    let family = families.get(name);
    if (family === undefined) families.set(name, (family = new FamilyWriter(targetLabels, previous?.get(name))));
    family.add(sample, samples.length - index);
  }
  return new Map([...families].map(([name, family]) => [name, family.finish()]));
}

/**
 * What a collector shows: `live` series leave /metrics when stale, `persistent` ones never do.
 * Arrays, not generators: a generator of tens of thousands of pool samples allocates an iterator
 * result per sample, megabytes of garbage per poll.
 */
export interface CollectorSamples {
  readonly live: readonly Sample[];
  readonly persistent: readonly Sample[];
}
