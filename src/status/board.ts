import type { MetricDefinition, PublishedSource } from "../catalog/metrics.js";
import type { SampleTap, StoreTarget, TappedSamples } from "../exposition/store.js";
import { isSeriesGroup, type Labels, type Sample, type SeriesGroup, type SeriesSource } from "../exposition/samples.js";
import { PointRing, type Point } from "./ring.js";

/** One series as /metrics shows it; histograms appear as their `_sum` and `_count` series. */
export interface StatusSeries {
  readonly labels: Labels;
  readonly value: number;
}

/** A target's series as a section reads them: as /metrics shows them now, or as their polls last published them. */
export interface SeriesReader {
  all(metric: string): readonly StatusSeries[];
}

/** A value exactly as on /metrics, with the series it comes from (the `horizon` label aside). */
export interface Figure {
  readonly metric: string;
  readonly labels?: Labels;
  readonly value: number;
}

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

/**
 * Counters whose per-second rate the page shows, family → the label their series are summed by; each
 * value of the label keeps RATE_POINTS points, enough for the history window at the events schedule's default.
 */
const RATE_FAMILIES: Readonly<Record<string, string>> = { stellar_rpc_contract_events_total: "contract" };
const RATE_POINTS = 64;

/** Histograms whose quantiles the page shows over a recent window only, so an old slow spell does not weigh forever. */
export const QUANTILE_WINDOW_MS = 15 * 60_000;
export const WINDOWED_HISTOGRAMS: readonly string[] = ["stellar_horizon_corridor_duration_seconds"];

/**
 * A family's series in a publication: its samples, and the groups whose series are made only when read (once),
 * so 10 000 watched accounts cost the board no object per series until a page asks for them.
 */
class FamilySeries {
  private readonly parts: (StatusSeries | SeriesGroup)[] = [];
  private made: readonly StatusSeries[] | undefined;

  constructor(private readonly metric: MetricDefinition) {}

  add(part: StatusSeries | SeriesGroup): void {
    this.parts.push(part);
  }

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

/**
 * A family of which the board keeps only the series another family of the same target refers to (the pools a
 * watched account holds shares of), so its cost follows what the page shows, not how many series the family has.
 */
export interface ReferencedFamily {
  readonly family: string;
  /** The family whose series name the ones to keep. */
  readonly referrer: string;
  /** What a referrer's series refers to, if anything. */
  referenceOf(labels: Labels): string | undefined;
  /** What a series of the family is, to match with the references. */
  keyOf(labels: Labels): string | undefined;
}

interface EndpointSnapshot {
  readonly live: SeriesByName;
  readonly persistent: SeriesByName;
  readonly freshUntilMs: number;
}

interface TargetState {
  readonly endpoints: Map<PublishedSource, EndpointSnapshot>;
  readonly rings: Map<string, PointRing>;
  /** A histogram's `_sum` and `_count` at its previous publication, for the mean of what is new. */
  readonly histogramTotals: Map<string, { readonly sum: number; readonly count: number }>;
  /** Per histogram family, the mean of the observations its latest poll added. */
  readonly latestMeans: Map<string, number>;
  /**
   * Per endpoint, the live series of its last publication that had any (a failed poll has none), and when: kept
   * once stale, each family as that one poll left it, so a section never mixes two polls.
   */
  readonly lastKnown: Map<PublishedSource, { readonly live: SeriesByName; readonly atMs: number }>;
  /** Per referenced family, what the target's referrer series last named. */
  readonly references: Map<string, ReadonlySet<string>>;
  /** Per WINDOWED_HISTOGRAMS family, its `_bucket` series at each publication of the window and the one before. */
  readonly bucketHistory: Map<string, { readonly atMs: number; readonly series: readonly StatusSeries[] }[]>;
}

/** A labelled sample is a series as it is: collectors never change a published sample, so it is not copied. */
function asSeries(sample: Exclude<Sample, { histogram: unknown }>): StatusSeries {
  return sample.labels === undefined ? { labels: {}, value: sample.value } : sample;
}

/** A Horizon and a Stellar RPC may share a name; their entries may not. */
function boardKey({ label, name }: StoreTarget): string {
  return `${label}=${name}`;
}

/** `{ key: value }`, or nothing when the value is undefined: an optional field spread into a report. */
export function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

export function labelsMatch(labels: Labels, wanted: Labels | undefined): boolean {
  for (const name in wanted) if (labels[name] !== wanted[name]) return false;
  return true;
}

/**
 * The landing page's view of the store: the latest samples of the few families it shows (never per-pool
 * series), under the store's freshness rule, plus a fixed-size history per sparkline.
 */
export class StatusBoard implements SampleTap {
  private readonly targets = new Map<string, TargetState>();
  private readonly referenced: ReadonlyMap<string, ReferencedFamily>;

  constructor(
    private readonly families: ReadonlySet<string>,
    private readonly sparklines: readonly SparklineSource[],
    private readonly now: () => number = Date.now,
    referenced: readonly ReferencedFamily[] = [],
  ) {
    this.referenced = new Map(referenced.map((family) => [family.family, family]));
  }

  /** A referenced family is wanted only while some target's series refer to any of it. */
  wants(metric: MetricDefinition): boolean {
    if (this.families.has(metric.name)) return true;
    if (!this.referenced.has(metric.name)) return false;
    for (const target of this.targets.values()) if ((target.references.get(metric.name)?.size ?? 0) > 0) return true;
    return false;
  }

  published(on: StoreTarget, endpoint: PublishedSource, samples: TappedSamples, freshUntilMs: number): void {
    const key = boardKey(on);
    let target = this.targets.get(key);
    if (target === undefined) {
      target = {
        endpoints: new Map(),
        rings: new Map(),
        histogramTotals: new Map(),
        latestMeans: new Map(),
        lastKnown: new Map(),
        references: new Map(),
        bucketHistory: new Map(),
      };
      this.targets.set(key, target);
    }
    this.updateReferences(target, samples);
    const next = {
      live: this.snapshot(target, samples.live),
      persistent: this.snapshot(target, samples.persistent),
      freshUntilMs,
    };
    target.endpoints.set(endpoint, next);
    if (next.live.size > 0) target.lastKnown.set(endpoint, { live: next.live, atMs: this.now() });
    // A failed poll publishes no live samples and grows no histogram, so it adds no points.
    this.record(target, next, this.updateMeans(target, next));
    this.recordRates(target, next);
    this.recordBuckets(target, next);
  }

  /**
   * A target leaves with its last source; a job restarted alone keeps the target's history (its new lease takes
   * over). A job that leaves takes its last known series along: what is no longer watched is not shown.
   */
  removed(on: StoreTarget, endpoint: PublishedSource): void {
    const key = boardKey(on);
    const target = this.targets.get(key);
    target?.endpoints.delete(endpoint);
    target?.lastKnown.delete(endpoint);
    if (target?.endpoints.size === 0) this.targets.delete(key);
  }

  /** A family's series as /metrics shows them at `nowMs`: persistent ones always, live ones while fresh. */
  series(target: StoreTarget, name: string, nowMs: number): readonly StatusSeries[] {
    for (const entry of this.targets.get(boardKey(target))?.endpoints.values() ?? []) {
      const persistent = entry.persistent.get(name);
      if (persistent !== undefined) return persistent.series;
      if (nowMs < entry.freshUntilMs) {
        const live = entry.live.get(name);
        if (live !== undefined) return live.series;
      }
    }
    return [];
  }

  /** A family's series as last published, even once stale: what an operator needs while a target is down. */
  lastKnown(target: StoreTarget, name: string): { readonly series: readonly StatusSeries[]; atMs: number } | undefined {
    for (const { live, atMs } of this.targets.get(boardKey(target))?.lastKnown.values() ?? []) {
      const family = live.get(name);
      if (family !== undefined) return { series: family.series, atMs };
    }
    return undefined;
  }

  latestMean(target: StoreTarget, family: string): number | undefined {
    return this.targets.get(boardKey(target))?.latestMeans.get(family);
  }

  history(target: StoreTarget, id: string, nowMs: number): Point[] {
    return (
      this.targets
        .get(boardKey(target))
        ?.rings.get(id)
        ?.since(nowMs - HISTORY_WINDOW_MS) ?? []
    );
  }

  /** The per-second increase of a RATE_FAMILIES counter's series labelled `value`; undefined before two points. */
  rate(target: StoreTarget, family: string, value: string, nowMs: number): number | undefined {
    const points = this.history(target, `rate:${family}:${value}`, nowMs);
    const first = points[0];
    const last = points.at(-1);
    if (first === undefined || last === undefined || last.atMs <= first.atMs) return undefined;
    return Math.max(0, last.value - first.value) / ((last.atMs - first.atMs) / 1000);
  }

  /**
   * A WINDOWED_HISTOGRAMS family's `_bucket` series counting only the last QUANTILE_WINDOW_MS (as PromQL's
   * increase over that range); a series reset since counts from zero.
   */
  windowBuckets(target: StoreTarget, family: string, nowMs: number): StatusSeries[] {
    const history = this.targets.get(boardKey(target))?.bucketHistory.get(family) ?? [];
    const latest = history.at(-1);
    if (latest === undefined) return [];
    const baseline = history.findLast(({ atMs }) => atMs <= nowMs - QUANTILE_WINDOW_MS);
    const before = new Map(baseline?.series.map(({ labels, value }) => [JSON.stringify(labels), value]));
    return latest.series.map(({ labels, value }) => {
      const base = before.get(JSON.stringify(labels)) ?? 0;
      return { labels, value: value >= base ? value - base : value };
    });
  }

  private recordBuckets(target: TargetState, published: EndpointSnapshot): void {
    const atMs = this.now();
    for (const family of WINDOWED_HISTOGRAMS) {
      const buckets = (published.persistent.get(`${family}_bucket`) ?? published.live.get(`${family}_bucket`))?.series;
      if (buckets === undefined) continue;
      const history = target.bucketHistory.get(family) ?? [];
      history.push({ atMs, series: buckets });
      // One publication at or before the window's start stays, as the baseline.
      while ((history[1]?.atMs ?? Infinity) <= atMs - QUANTILE_WINDOW_MS) history.shift();
      target.bucketHistory.set(family, history);
    }
  }

  private recordRates(target: TargetState, published: EndpointSnapshot): void {
    const atMs = this.now();
    for (const family in RATE_FAMILIES) {
      const label = RATE_FAMILIES[family] ?? "";
      const sums = new Map<string, number>();
      for (const { labels, value } of published.persistent.get(family)?.series ?? []) {
        const key = labels[label] ?? "";
        sums.set(key, (sums.get(key) ?? 0) + value);
      }
      for (const [key, sum] of sums) {
        const id = `rate:${family}:${key}`;
        let ring = target.rings.get(id);
        if (ring === undefined) target.rings.set(id, (ring = new PointRing(RATE_POINTS)));
        ring.push(atMs, sum);
      }
    }
  }

  /** What a publication of a referrer family refers to replaces what it referred to before. */
  private updateReferences(target: TargetState, samples: TappedSamples): void {
    for (const referenced of this.referenced.values()) {
      let published = false;
      const references = new Set<string>();
      const refer = (sample: Sample) => {
        if (sample.metric.name !== referenced.referrer) return;
        published = true;
        const reference = referenced.referenceOf(sample.labels ?? {});
        if (reference !== undefined) references.add(reference);
      };
      for (const list of [samples.live, samples.persistent]) {
        for (const source of list) {
          if (!isSeriesGroup(source)) refer(source);
          else
            for (const metric of source.families)
              if (metric.name === referenced.referrer) source.samplesOf(metric).forEach(refer);
        }
      }
      if (published) target.references.set(referenced.family, references);
    }
  }

  /** The wanted sources by family: a group's series made when read, or at once for a referenced family. */
  private snapshot(target: TargetState, sources: readonly SeriesSource[]): Map<string, FamilySeries> {
    const keep = this.keeper(target);
    const byName = new Map<string, FamilySeries>();
    const add = (metric: MetricDefinition, name: string, part: StatusSeries | SeriesGroup) => {
      let family = byName.get(name);
      if (family === undefined) byName.set(name, (family = new FamilySeries(metric)));
      family.add(part);
    };
    const addSample = (sample: Sample) => {
      if (!keep(sample)) return;
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
      else {
        for (const metric of source.families) {
          if (this.referenced.has(metric.name)) source.samplesOf(metric).forEach(addSample);
          else if (this.families.has(metric.name)) add(metric, metric.name, source);
        }
      }
    }
    return byName;
  }

  /** Keeps every series of the plain families, and those of a referenced family that are referred to. */
  private keeper(target: TargetState): (sample: Sample) => boolean {
    if (this.referenced.size === 0) return () => true;
    return (sample) => {
      const referenced = this.referenced.get(sample.metric.name);
      if (referenced === undefined) return true;
      const key = referenced.keyOf(sample.labels ?? {});
      return key !== undefined && (target.references.get(referenced.family)?.has(key) ?? false);
    };
  }

  /** Updates the means of the histograms that grew, and names them. */
  private updateMeans(target: TargetState, published: EndpointSnapshot): Set<string> {
    const grown = new Set<string>();
    for (const byName of [published.persistent, published.live]) {
      for (const [name, sums] of byName) {
        if (!name.endsWith("_sum")) continue;
        const family = name.slice(0, -"_sum".length);
        const sum = sums.series[0]?.value;
        const count = byName.get(`${family}_count`)?.series[0]?.value;
        if (sum === undefined || count === undefined) continue;
        const previous = target.histogramTotals.get(family) ?? { sum: 0, count: 0 };
        if (count > previous.count) {
          target.latestMeans.set(family, (sum - previous.sum) / (count - previous.count));
          grown.add(family);
        }
        target.histogramTotals.set(family, { sum, count });
      }
    }
    return grown;
  }

  private record(target: TargetState, published: EndpointSnapshot, grown: ReadonlySet<string>): void {
    const atMs = this.now();
    for (const source of this.sparklines) {
      const value = source.histogramMean
        ? grown.has(source.family)
          ? target.latestMeans.get(source.family)
          : undefined
        : published.live.get(source.family)?.series.find((series) => labelsMatch(series.labels, source.labels))?.value;
      if (value === undefined) continue;
      let ring = target.rings.get(source.id);
      if (ring === undefined) target.rings.set(source.id, (ring = new PointRing(HISTORY_CAPACITY)));
      ring.push(atMs, value);
    }
  }
}
