import {
  targetLabelOf,
  type METRICS,
  type MetricDefinition,
  type RPC_METRICS,
  type TargetLabel,
} from "../catalog/metrics.js";
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

/**
 * The series of several families that change together (one watched account's), held as what they
 * are computed from rather than as a sample per series: with ten thousand accounts, a JS object
 * per series was most of the exporter's heap. Its samples of a family are made only to render a
 * group the store has not rendered before (an unchanged group's lines are copied as bytes) and
 * when the landing page reads them. Like a sample, a group never changes once published, and it
 * holds no histogram.
 */
export interface SeriesGroup {
  /** Every family the group may have series in; groups of one kind share one list. */
  readonly families: readonly MetricDefinition[];
  /** Its samples of one of those families, possibly none, made anew at each call. */
  samplesOf(metric: MetricDefinition): readonly Sample[];
}

/** What the store renders lines from: one series, or a group of series. */
export type SeriesSource = Sample | SeriesGroup;

export function isSeriesGroup(source: SeriesSource): source is SeriesGroup {
  return "families" in source;
}

/** What a piece was rendered from: its sources, and where each source's lines end in the piece. */
export interface PieceSource {
  readonly sources: readonly SeriesSource[];
  readonly ends: Uint32Array;
}

/**
 * One metric's lines, without HELP/TYPE, as pieces of SOURCES_PER_PIECE sources (each in a buffer
 * of its exact size, or in a slab when transient), with what each was rendered from.
 */
export interface RenderedFamily {
  /**
   * Each piece's lines; undefined for a piece with the same lines as the lent rendering's at its
   * place, when that rendering no longer held them (the store keeps a piece's gzip member, and
   * its lines only while plain scrapes ask for them).
   */
  readonly pieces: readonly (Buffer | undefined)[];
  readonly sources: readonly PieceSource[];
}

/** How a rendering is made (see renderSamples). */
export interface RenderOptions {
  /** The lines of the lent rendering's piece `index` of family `name`, where its `pieces` holds them no longer. */
  readonly recover?: (name: string, index: number) => Buffer;
  /**
   * The pieces will be compressed and dropped: they are written into shared slabs, each freed with
   * its last piece, so the lines a poll makes and drops go back to the system whole rather than
   * staying with malloc in fragments.
   */
  readonly transient?: boolean;
}

export type RenderedMetrics = ReadonlyMap<string, RenderedFamily>;

/**
 * Pieces end at source counts, not byte counts, so a changed value moves no later piece's
 * boundary: a piece whose sources did not change renders to the same bytes as last time, and its
 * compressed form can be kept. Each piece is compressed apart from the others, so larger pieces
 * compress better (docs/performance.md, "Measurements") while a changed pool costs the
 * compression of a larger piece.
 */
export const SOURCES_PER_PIECE = 1024;

/** Rendering hands the event loop back this often, so a large poll never stalls a scrape. */
const SOURCES_BETWEEN_YIELDS = 1024;

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
 * Above glibc's mapping threshold as the exporter sets it (MALLOC_MMAP_THRESHOLD_, 1 MiB), so a
 * slab is a mapping of its own, unmapped when freed; and musl maps allocations this large too.
 */
const SLAB_BYTES = 4 * 1024 * 1024;

/** Transient pieces, packed one after the other into slabs (RenderOptions.transient). */
class Slabs {
  private slab: Buffer | undefined;
  private used = 0;

  take(bytes: number): Buffer {
    if (this.slab === undefined || this.used + bytes > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, bytes));
      this.used = 0;
    }
    const piece = this.slab.subarray(this.used, this.used + bytes);
    this.used += bytes;
    return piece;
  }
}

/** The lines of one source in one family: a sample's, or a group's samples of that family. */
function sourceLines(
  targetLabels: Readonly<Record<TargetLabel, string>>,
  metric: MetricDefinition,
  source: SeriesSource,
): string {
  if (!isSeriesGroup(source)) return sampleLines(targetLabels, source);
  let lines = "";
  for (const sample of source.samplesOf(metric)) lines += sampleLines(targetLabels, sample);
  return lines;
}

/**
 * A source published again renders to the same bytes, as samples and groups are not changed once
 * published; a histogram is the exception (it accumulates in place).
 */
function renderedAs(before: PieceSource | undefined, sources: readonly SeriesSource[], index: number): boolean {
  const source = sources[index]!;
  return before !== undefined && before.sources[index] === source && !("histogram" in source);
}

/**
 * One metric's sources while rendering, gathered a piece at a time. Where a piece's sources are
 * those at the same places of the last rendering's piece, their bytes are copied from it: a poll
 * that changed a few pools formats only their lines, and a piece with none changed is the last
 * one again. Other sources are written line by line, each source's lines as bytes the moment they
 * are formatted (so the string dies young instead of living, with tens of thousands of others,
 * until the family is complete); the piece is copied out at its exact size, or into a slab.
 */
class FamilyWriter {
  readonly pieces: (Buffer | undefined)[] = [];
  readonly sources: PieceSource[] = [];
  /**
   * The piece's sources so far, made only once one differs from the last rendering's at its place:
   * until then they are that rendering's, and a piece with none changed allocates nothing.
   */
  private pending: SeriesSource[] | undefined;
  private count = 0;
  /** Made at the first piece that needs rendering: a family whose pieces are all kept needs none. */
  private scratch: Buffer | undefined;
  private used = 0;
  /** Bytes in all pieces so far: a family whose groups have no series of it is left out. */
  private bytes = 0;

  constructor(
    private readonly metric: MetricDefinition,
    private readonly targetLabels: Readonly<Record<TargetLabel, string>>,
    private readonly previous: RenderedFamily | undefined,
    private readonly options: RenderOptions,
    /** Where a transient rendering's pieces go. */
    private readonly slabs: Slabs | undefined,
  ) {}

  /** `remaining` bounds the sources still to come, so a piece's list is made at its size, not grown. */
  add(source: SeriesSource, remaining: number): void {
    const index = this.count++;
    if (this.pending === undefined && this.previous?.sources[this.pieces.length]?.sources[index] !== source) {
      this.pending = new Array<SeriesSource>(index + Math.min(SOURCES_PER_PIECE - index, remaining));
      const before = this.previous?.sources[this.pieces.length]?.sources;
      for (let at = 0; at < index; at += 1) this.pending[at] = before![at]!;
    }
    if (this.pending !== undefined) this.pending[index] = source;
    if (this.count === SOURCES_PER_PIECE) this.endPiece();
  }

  /** The family's pieces, or undefined when they hold no line. */
  finish(): RenderedFamily | undefined {
    this.endPiece();
    return this.bytes === 0 ? undefined : { pieces: this.pieces, sources: this.sources };
  }

  private endPiece(): void {
    if (this.count === 0) return;
    const index = this.pieces.length;
    const before = this.previous?.sources[index];
    let beforePiece = this.previous?.pieces[index];
    // No source differed: the piece is the last rendering's first `count` sources.
    const pending = this.pending;
    if (pending !== undefined) pending.length = this.count;
    const sources: readonly SeriesSource[] =
      pending ?? (this.count === before!.sources.length ? before!.sources : before!.sources.slice(0, this.count));
    this.pending = undefined;
    this.count = 0;
    let same = 0;
    while (same < sources.length && renderedAs(before, sources, same)) same += 1;
    if (same === sources.length && same === before!.sources.length) {
      this.pieces.push(beforePiece);
      this.sources.push(before!);
      // A piece held without its lines has some (the store keeps an empty piece's, which cost nothing).
      this.bytes += beforePiece?.length ?? 1;
      return;
    }
    // The lent piece's lines, to copy its sources' bytes from, or to find the new piece the same.
    if (before !== undefined) beforePiece ??= this.options.recover?.(this.metric.name, index);
    const ends = new Uint32Array(sources.length);
    this.used = 0;
    for (let first = 0; first < sources.length; ) {
      let last = first;
      while (last < sources.length && renderedAs(before, sources, last)) last += 1;
      if (last > first) {
        // A run of sources rendered last time: their bytes, copied at once.
        const from = first === 0 ? 0 : before!.ends[first - 1]!;
        const shift = this.used - from;
        this.write(beforePiece!, from, before!.ends[last - 1]!);
        for (let at = first; at < last; at += 1) ends[at] = before!.ends[at]! + shift;
        first = last;
      } else {
        this.writeText(sourceLines(this.targetLabels, this.metric, sources[first]!));
        ends[first] = this.used;
        first += 1;
      }
    }
    const lent = this.previous?.pieces[index];
    this.pieces.push(this.unlessUnchanged(beforePiece, lent));
    this.sources.push({ sources, ends });
    this.bytes += this.used;
  }

  /**
   * The piece just written: when its bytes are the last rendering's (new sample objects of the
   * same values, as the info series of a pool whose reserves moved), that rendering's buffer, so
   * the one held since then stays and no new one is made (or undefined, as that rendering's, when
   * it held its lines no longer); else a copy at its exact size, or in a slab. `beforePiece` is the last
   * rendering's lines, recovered if need be; `lent`, what that rendering held.
   */
  private unlessUnchanged(beforePiece: Buffer | undefined, lent: Buffer | undefined): Buffer | undefined {
    if (this.used === 0) return beforePiece?.length === 0 ? lent : Buffer.alloc(0);
    const scratch = this.scratch!;
    if (beforePiece?.length === this.used && scratch.compare(beforePiece, 0, this.used, 0, this.used) === 0)
      return lent;
    const piece = this.slabs?.take(this.used) ?? Buffer.allocUnsafeSlow(this.used);
    scratch.copy(piece, 0, 0, this.used);
    return piece;
  }

  private writeText(text: string): void {
    if (text.length === 0) return;
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
 * Renders one target's sources; the target label (`horizon`, or `rpc` for a Stellar RPC) comes
 * first so every series of a target lines up. A group's lines go to each of its families, in the
 * order of the sources. `previous`, the same target's last rendering, lends the pieces whose
 * sources did not change. A family with no line (every group without series of it) is left out.
 */
export async function renderSamples(
  target: string,
  sources: readonly SeriesSource[],
  previous?: RenderedMetrics,
  options: RenderOptions = {},
): Promise<RenderedMetrics> {
  const escaped = escapeLabelValue(target);
  const targetLabels = { horizon: `horizon="${escaped}"`, rpc: `rpc="${escaped}"` };
  const slabs = options.transient ? new Slabs() : undefined;
  const families = new Map<string, FamilyWriter>();
  const familyOf = (metric: MetricDefinition) => {
    let family = families.get(metric.name);
    if (family === undefined)
      families.set(
        metric.name,
        (family = new FamilyWriter(metric, targetLabels, previous?.get(metric.name), options, slabs)),
      );
    return family;
  };
  for (let index = 0; index < sources.length; index += 1) {
    if ((index + 1) % SOURCES_BETWEEN_YIELDS === 0) await yieldToEventLoop();
    const source = sources[index]!;
    const remaining = sources.length - index;
    if (isSeriesGroup(source)) for (const metric of source.families) familyOf(metric).add(source, remaining);
    else familyOf(source.metric).add(source, remaining);
  }
  const rendered = new Map<string, RenderedFamily>();
  for (const [name, family] of families) {
    const lines = family.finish();
    if (lines !== undefined) rendered.set(name, lines);
  }
  return rendered;
}

/**
 * What a collector shows: `live` series leave /metrics when stale, `persistent` ones never do.
 * Arrays, not generators: a generator of tens of thousands of pool samples allocates an iterator
 * result per sample, megabytes of garbage per poll.
 */
export interface CollectorSamples<Source extends SeriesSource = SeriesSource> {
  readonly live: readonly Source[];
  readonly persistent: readonly Source[];
}
