import { METRICS, RPC_METRICS, type MetricDefinition, type PublishedSource } from "../catalog/metrics.js";
import type { SampleTap, StoreTarget, TappedSamples } from "../exposition/store.js";
import { isSeriesGroup, type Labels, type Sample, type SeriesGroup, type SeriesSource } from "../exposition/samples.js";
import { PointRing, type Point } from "./ring.js";

/** One series as /metrics shows it; histograms appear as their `_sum` and `_count` series. */
export type StatusSeries = { readonly labels: Labels; readonly value: number };

/** A target's series as a section reads them: as /metrics shows them now, or as their polls last published them. */
export type SeriesReader = { all(metric: string): readonly StatusSeries[] };

/** A value exactly as on /metrics, with the series it comes from (the `horizon` label aside). */
export type Figure = { readonly metric: string; readonly labels?: Labels; readonly value: number };

/** A sparkline's series: a gauge (with these labels), or the mean of a histogram's new observations per poll. */
export interface SparklineSource {
  readonly id: string;
  readonly family: string;
  readonly labels?: Labels;
  readonly histogramMean?: true;
}

/** Sparklines span this long. */
export const HISTORY_WINDOW_MS = 30 * 60_000;

/** Points per sparkline and target: 30 minutes at one poll a second, the fastest schedule; 16 bytes a point. */
export const HISTORY_CAPACITY = 1800;

const EVENTS_COUNTER = RPC_METRICS.contractEvents.name;
/** Points per contract for the page's events rate: the history window at the events schedule's default. */
const RATE_POINTS = 64;

/** The histogram whose quantiles the page shows over a recent window only: an old slow spell must not weigh forever. */
export const QUANTILE_WINDOW_MS = 15 * 60_000;
const WINDOWED_BUCKETS = `${METRICS.corridorDuration.name}_bucket`;

/** A family's series in a publication; a group's are made when first read: 10 000 accounts cost nothing till then. */
class FamilySeries {
  readonly parts: (StatusSeries | SeriesGroup)[] = [];
  private made: readonly StatusSeries[] | undefined;

  constructor(private readonly metric: MetricDefinition) {}

  get series(): readonly StatusSeries[] {
    if (this.made !== undefined) return this.made;
    const series: StatusSeries[] = [];
    for (const part of this.parts) {
      if (!("families" in part)) series.push(part);
      else
        for (const sample of part.samplesOf(this.metric)) if (!("histogram" in sample)) series.push(asSeries(sample));
    }
    return (this.made = series);
  }
}

type SeriesByName = ReadonlyMap<string, FamilySeries>;

/** Pools' info (asset pairs) is kept only for pools the target's accounts hold shares of: cost follows the page. */
const POOL_INFO = METRICS.liquidityPoolInfo.name;

/** The pool of a pool-share balance (asset `pool:<id>`). */
export function poolOf(asset: string | undefined): string | undefined {
  return asset?.startsWith("pool:") ? asset.slice("pool:".length) : undefined;
}

interface EndpointSnapshot {
  readonly live: SeriesByName;
  readonly persistent: SeriesByName;
  readonly freshUntilMs: number;
  /** The live series of its last publication that had any, and when: kept once stale; a section never mixes polls. */
  readonly kept: { readonly live: SeriesByName; readonly atMs: number } | undefined;
}

function newTarget() {
  return {
    endpoints: new Map<PublishedSource, EndpointSnapshot>(),
    rings: new Map<string, PointRing>(),
    /** Per histogram: its `_sum` and `_count` at its last publication, and the mean of what its last growth added. */
    histograms: new Map<string, { readonly sum: number; readonly count: number; readonly mean?: number }>(),
    /** The pools its watched accounts' balances last held shares of. */
    heldPools: new Set<string>(),
    /** WINDOWED_BUCKETS at each publication of the window and the one before. */
    bucketHistory: [] as { readonly atMs: number; readonly series: readonly StatusSeries[] }[],
  };
}
type TargetState = ReturnType<typeof newTarget>;

/** Adds a point to one of the target's rings, made with `capacity` points at its first. */
function push(target: TargetState, id: string, capacity: number, atMs: number, value: number): void {
  let ring = target.rings.get(id);
  if (ring === undefined) target.rings.set(id, (ring = new PointRing(capacity)));
  ring.push(atMs, value);
}

/** A labelled sample is a series as it is: collectors never change a published sample, so it is not copied. */
function asSeries(sample: Exclude<Sample, { histogram: unknown }>): StatusSeries {
  return sample.labels === undefined ? { labels: {}, value: sample.value } : sample;
}

/** A Horizon and a Stellar RPC may share a name; their entries may not. */
const boardKey = ({ label, name }: StoreTarget): string => `${label}=${name}`;

/** The names of a catalog's families, by key: a section's families, for the board to keep. */
export function names<Key extends string>(catalog: Readonly<Record<NoInfer<Key>, MetricDefinition>>, keys: Key[]) {
  return keys.map((key) => catalog[key].name);
}

function labelsMatch(labels: Labels, wanted: Labels | undefined): boolean {
  for (const name in wanted) if (labels[name] !== wanted[name]) return false;
  return true;
}

/** The first series of a family with these labels (among others), as a figure. */
export function figure(read: SeriesReader, metric: string, labels?: Labels): Figure | undefined {
  const found = read.all(metric).find((series) => labelsMatch(series.labels, labels));
  return found && { metric, labels, value: found.value };
}

/** The landing page's view of the store: the few families it shows, as fresh as /metrics has them, and history. */
export class StatusBoard implements SampleTap {
  private readonly targets = new Map<string, TargetState>();

  constructor(
    private readonly families: ReadonlySet<string>,
    private readonly sparklines: readonly SparklineSource[],
    private readonly now: () => number = Date.now,
  ) {}

  /** The pools' info is wanted only while some target's watched accounts hold pool shares. */
  wants(metric: MetricDefinition): boolean {
    if (this.families.has(metric.name)) return true;
    return metric.name === POOL_INFO && [...this.targets.values()].some((target) => target.heldPools.size > 0);
  }

  published(on: StoreTarget, endpoint: PublishedSource, samples: TappedSamples, freshUntilMs: number): void {
    const key = boardKey(on);
    let target = this.targets.get(key);
    if (target === undefined) this.targets.set(key, (target = newTarget()));
    this.updateHeldPools(target, samples);
    const atMs = this.now();
    const live = this.snapshot(target, samples.live);
    const kept = live.size > 0 ? { live, atMs } : target.endpoints.get(endpoint)?.kept;
    const next = { live, persistent: this.snapshot(target, samples.persistent), freshUntilMs, kept };
    target.endpoints.set(endpoint, next);
    // A failed poll publishes no live samples and grows no histogram, so it adds no points.
    this.record(target, next, this.updateMeans(target, next), atMs);
    this.recordRates(target, next, atMs);
    this.recordBuckets(target, next, atMs);
  }

  /** A target leaves with its last source, a job with its kept series; a job restarted alone keeps the history. */
  removed(on: StoreTarget, endpoint: PublishedSource): void {
    const key = boardKey(on);
    const target = this.targets.get(key);
    target?.endpoints.delete(endpoint);
    if (target?.endpoints.size === 0) this.targets.delete(key);
  }

  /** A family's series as /metrics shows them at `nowMs` (live ones while fresh). */
  series(target: StoreTarget, name: string, nowMs: number): readonly StatusSeries[] {
    for (const entry of this.targets.get(boardKey(target))?.endpoints.values() ?? []) {
      const family = entry.persistent.get(name) ?? (nowMs < entry.freshUntilMs ? entry.live.get(name) : undefined);
      if (family !== undefined) return family.series;
    }
    return [];
  }

  /** A family's series as last published, even once stale: what an operator needs while a target is down. */
  lastKnown(target: StoreTarget, name: string) {
    for (const { kept } of this.targets.get(boardKey(target))?.endpoints.values() ?? []) {
      const family = kept?.live.get(name);
      if (kept !== undefined && family !== undefined) return { series: family.series, atMs: kept.atMs };
    }
    return undefined;
  }

  latestMean(target: StoreTarget, family: string): number | undefined {
    return this.targets.get(boardKey(target))?.histograms.get(family)?.mean;
  }

  history(target: StoreTarget, id: string, nowMs: number): Point[] {
    const ring = this.targets.get(boardKey(target))?.rings.get(id);
    return ring?.since(nowMs - HISTORY_WINDOW_MS) ?? [];
  }

  /** The per-second increase of a contract's events; undefined before two points. A drop is a restarted counter (its
   * job restarted on a reload), counted from 0 as PromQL's rate() does. */
  eventRate(target: StoreTarget, contract: string, nowMs: number): number | undefined {
    const points = this.history(target, `rate:${EVENTS_COUNTER}:${contract}`, nowMs);
    const first = points[0];
    const last = points.at(-1);
    if (first === undefined || last === undefined || last.atMs <= first.atMs) return undefined;
    let increase = 0;
    for (let index = 1; index < points.length; index += 1) {
      const { value } = points[index]!;
      const before = points[index - 1]!.value;
      increase += value >= before ? value - before : value;
    }
    return increase / ((last.atMs - first.atMs) / 1000);
  }

  /** WINDOWED_BUCKETS' increase over the QUANTILE_WINDOW_MS before `nowMs`, as PromQL's increase() (reset: from 0). */
  windowBuckets(target: StoreTarget, nowMs: number): StatusSeries[] {
    const history = this.targets.get(boardKey(target))?.bucketHistory ?? [];
    const latest = history.at(-1);
    if (latest === undefined) return [];
    const baseline = history.findLast(({ atMs }) => atMs <= nowMs - QUANTILE_WINDOW_MS);
    const before = new Map(baseline?.series.map(({ labels, value }) => [JSON.stringify(labels), value]));
    return latest.series.map(({ labels, value }) => {
      const base = before.get(JSON.stringify(labels)) ?? 0;
      return { labels, value: value >= base ? value - base : value };
    });
  }

  private recordBuckets(target: TargetState, published: EndpointSnapshot, atMs: number): void {
    const buckets = (published.persistent.get(WINDOWED_BUCKETS) ?? published.live.get(WINDOWED_BUCKETS))?.series;
    if (buckets === undefined) return;
    target.bucketHistory.push({ atMs, series: buckets });
    // One publication at or before the window's start stays, as the baseline.
    while ((target.bucketHistory[1]?.atMs ?? Infinity) <= atMs - QUANTILE_WINDOW_MS) target.bucketHistory.shift();
  }

  /** One point per contract: its events summed over their other labels. */
  private recordRates(target: TargetState, published: EndpointSnapshot, atMs: number): void {
    const sums = new Map<string, number>();
    for (const { labels, value } of published.persistent.get(EVENTS_COUNTER)?.series ?? []) {
      const contract = labels.contract ?? "";
      sums.set(contract, (sums.get(contract) ?? 0) + value);
    }
    for (const [contract, sum] of sums) push(target, `rate:${EVENTS_COUNTER}:${contract}`, RATE_POINTS, atMs, sum);
  }

  /** A publication of the balances replaces the pools they held shares of before. */
  private updateHeldPools(target: TargetState, samples: TappedSamples): void {
    const balance = METRICS.accountBalance.name;
    let published = false;
    const pools = new Set<string>();
    const add = (sample: Sample) => {
      if (sample.metric.name !== balance) return;
      published = true;
      const { asset }: Labels = sample.labels ?? {};
      const pool = poolOf(asset);
      if (pool !== undefined) pools.add(pool);
    };
    for (const source of [...samples.live, ...samples.persistent]) {
      if (!isSeriesGroup(source)) add(source);
      else for (const metric of source.families) if (metric.name === balance) source.samplesOf(metric).forEach(add);
    }
    if (published) target.heldPools = pools;
  }

  /** The wanted sources by family: a group's series made when read, or at once for the pools' info. */
  private snapshot(target: TargetState, sources: readonly SeriesSource[]): Map<string, FamilySeries> {
    const byName = new Map<string, FamilySeries>();
    const add = (metric: MetricDefinition, name: string, part: StatusSeries | SeriesGroup) => {
      let family = byName.get(name);
      if (family === undefined) byName.set(name, (family = new FamilySeries(metric)));
      family.parts.push(part);
    };
    const addSample = (sample: Sample) => {
      // Of the pools' info, only the held pools' series.
      const { pool_id }: Labels = sample.labels ?? {};
      if (sample.metric.name === POOL_INFO && (pool_id === undefined || !target.heldPools.has(pool_id))) return;
      // Copied now: the collector keeps adding observations to the same object.
      if ("histogram" in sample) {
        const { metric, labels = {}, histogram } = sample;
        add(metric, `${metric.name}_sum`, { labels, value: histogram.sum });
        add(metric, `${metric.name}_count`, { labels, value: histogram.count });
        // The cumulative `_bucket` series, as /metrics shows them: a quantile needs them.
        let cumulative = 0;
        histogram.counts.forEach((count, index) => {
          cumulative += count;
          const le = histogram.upperBounds[index]?.toString() ?? "+Inf";
          add(metric, `${metric.name}_bucket`, { labels: { ...labels, le }, value: cumulative });
        });
      } else add(sample.metric, sample.metric.name, asSeries(sample));
    };
    for (const source of sources) {
      if (!isSeriesGroup(source)) addSample(source);
      else
        for (const metric of source.families) {
          if (metric.name === POOL_INFO) source.samplesOf(metric).forEach(addSample);
          else if (this.families.has(metric.name)) add(metric, metric.name, source);
        }
    }
    return byName;
  }

  /** Updates the means of the histograms that grew, and returns them. */
  private updateMeans(target: TargetState, published: EndpointSnapshot): Map<string, number> {
    const grown = new Map<string, number>();
    for (const byName of [published.persistent, published.live]) {
      for (const [name, sums] of byName) {
        if (!name.endsWith("_sum")) continue;
        const family = name.slice(0, -"_sum".length);
        const sum = sums.series[0]?.value;
        const count = byName.get(`${family}_count`)?.series[0]?.value;
        if (sum === undefined || count === undefined) continue;
        const previous = target.histograms.get(family) ?? { sum: 0, count: 0 };
        let mean = previous.mean;
        if (count > previous.count) {
          mean = (sum - previous.sum) / (count - previous.count);
          grown.set(family, mean);
        }
        target.histograms.set(family, { sum, count, mean });
      }
    }
    return grown;
  }

  private record(target: TargetState, published: EndpointSnapshot, grown: ReadonlyMap<string, number>, atMs: number) {
    for (const { id, family, labels, histogramMean } of this.sparklines) {
      const value = histogramMean
        ? grown.get(family)
        : published.live.get(family)?.series.find((series) => labelsMatch(series.labels, labels))?.value;
      if (value !== undefined) push(target, id, HISTORY_CAPACITY, atMs, value);
    }
  }
}
