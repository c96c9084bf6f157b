import { targetLabelOf, type METRICS, type MetricDefinition, type RPC_METRICS } from "../catalog/metrics.js";
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
    const index = this.upperBounds.findIndex((bound) => value <= bound);
    this.counts[index === -1 ? this.upperBounds.length : index]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** Exactly the labels a catalog entry declares (besides the target's): each one required, no other allowed. */
export type LabelsOf<M extends MetricDefinition> = { readonly [Name in M["labels"][number]]: string };

type SampleOf<M extends MetricDefinition> = { readonly metric: M } & (M["labels"] extends readonly []
  ? { readonly labels?: undefined }
  : { readonly labels: LabelsOf<M> }) &
  (M["type"] extends "histogram" ? { readonly histogram: HistogramData } : { readonly value: number });

/** A sample of each entry of a catalog that a target publishes (the exporter's own series are prom-client's). */
type CatalogSample<Catalog extends Record<string, MetricDefinition>> = {
  [Key in keyof Catalog]: Catalog[Key]["source"] extends "exporter" ? never : SampleOf<Catalog[Key]>;
}[keyof Catalog];

/** One series of a catalog metric, its labels checked by the compiler so they cannot drift from docs and dashboards. */
export type Sample = CatalogSample<typeof METRICS> | CatalogSample<typeof RPC_METRICS>;

/** Several families' series that change together (one account's), held as their inputs to save heap; no histogram. */
export interface SeriesGroup {
  /** Every family the group may have series in; groups of one kind share one list. */
  readonly families: readonly MetricDefinition[];
  /** Its samples of one of those families, possibly none, made anew at each call. */
  samplesOf(metric: MetricDefinition): readonly Sample[];
}

export type SeriesSource = Sample | SeriesGroup;
export function isSeriesGroup(source: SeriesSource): source is SeriesGroup {
  return "families" in source;
}

/** Sources rendered between two turns of the event loop, so a large publication never stalls a scrape. */
const SOURCES_PER_SLICE = 256;

export function escapeLabelValue(value: string): string {
  if (!/[\\\n"]/.test(value)) return value;
  return value.replace(/[\\\n"]/g, (character) => (character === "\n" ? "\\n" : `\\${character}`));
}

/** String() already writes NaN as the text format does, but not the infinities. */
const formatValue = (value: number) => (value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value));

/** `targetLabel` is the target's label pair, e.g. `horizon="sdf"`, first so every series of a target lines up. */
function sampleLines(targetLabel: string, sample: Sample): string {
  const pairs: Labels | undefined = sample.labels;
  let labels = targetLabel;
  for (const name in pairs) labels += `,${name}="${escapeLabelValue(pairs[name]!)}"`;
  const name = sample.metric.name;
  if (!("histogram" in sample)) return `${name}{${labels}} ${formatValue(sample.value)}\n`;
  const { upperBounds, counts, sum, count } = sample.histogram;
  let lines = "";
  let cumulative = 0;
  // The +Inf bucket's cumulative count is every observation's.
  [...upperBounds, Infinity].forEach((bound, index) => {
    cumulative += counts[index] ?? 0;
    lines += `${name}_bucket{${labels},le="${formatValue(bound)}"} ${cumulative}\n`;
  });
  return `${lines}${name}_sum{${labels}} ${formatValue(sum)}\n${name}_count{${labels}} ${count}\n`;
}

/** Each family's sources, in order: a sample under its metric, a group under each of its families. */
export function sourcesByFamily(sources: readonly SeriesSource[]): Map<MetricDefinition, SeriesSource[]> {
  const families = new Map<MetricDefinition, SeriesSource[]>();
  for (const source of sources) {
    for (const metric of isSeriesGroup(source) ? source.families : [source.metric]) {
      const list = families.get(metric);
      if (list === undefined) families.set(metric, [source]);
      else list.push(source);
    }
  }
  return families;
}

/** One target's lines of one family, without HELP and TYPE, in slices small enough to die young in V8's heap. */
export async function* familyLines(
  target: string,
  metric: MetricDefinition,
  sources: readonly SeriesSource[],
): AsyncGenerator<string> {
  const targetLabel = `${targetLabelOf(metric)}="${escapeLabelValue(target)}"`;
  let lines = "";
  for (let index = 0; index < sources.length; index += 1) {
    if (index > 0 && index % SOURCES_PER_SLICE === 0) {
      if (lines !== "") yield lines;
      lines = "";
      await yieldToEventLoop();
    }
    const source = sources[index]!;
    if (!isSeriesGroup(source)) lines += sampleLines(targetLabel, source);
    else for (const sample of source.samplesOf(metric)) lines += sampleLines(targetLabel, sample);
  }
  if (lines !== "") yield lines;
}

/** What a collector shows: `live` series leave /metrics when stale, `persistent` never do; arrays allocate less. */
export interface CollectorSamples<Source extends SeriesSource = SeriesSource> {
  readonly live: readonly Source[];
  readonly persistent: readonly Source[];
  /** Changes whenever what the samples show does: an unchanged version under the same lease is not rendered again. */
  readonly version?: number;
}
