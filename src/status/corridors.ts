/** A Horizon's corridors: whether the last answer found a path, best rate and hops, recent p90 request time. */
import { METRICS } from "../catalog/metrics.js";
import { figure, type SeriesReader, type StatusSeries } from "./board.js";

/** The quantile `q` of cumulative buckets (`le` → count), as PromQL's histogram_quantile computes it. */
export function bucketQuantile(q: number, buckets: ReadonlyMap<number, number>): number | undefined {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = buckets.get(Infinity) ?? 0;
  if (total === 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const bound of bounds) {
    const count = buckets.get(bound) ?? 0;
    if (count >= rank) {
      if (bound === Infinity) return lower;
      return lower + ((bound - lower) * (rank - below)) / Math.max(count - below, 1e-12);
    }
    lower = bound;
    below = count;
  }
  return lower;
}

/** The target's corridors by name, undefined without any; p90s from `durationBuckets` (StatusBoard.windowBuckets). */
export function corridorReports(read: SeriesReader, durationBuckets: readonly StatusSeries[]) {
  const runs = read.all(METRICS.corridorRuns.name);
  if (runs.length === 0) return undefined;
  const at = (metric: string, corridor: string) => figure(read, metric, { corridor })?.value;
  const buckets = new Map<string, Map<number, number>>();
  for (const { labels, value } of durationBuckets) {
    const corridor = labels.corridor ?? "";
    const of = buckets.get(corridor) ?? new Map<number, number>();
    of.set(labels.le === "+Inf" ? Infinity : Number(labels.le), value);
    buckets.set(corridor, of);
  }
  const counts = new Map<string, Record<string, number>>();
  for (const { labels, value } of runs) {
    const of = counts.get(labels.corridor ?? "") ?? {};
    if (value > 0) of[labels.result ?? ""] = value;
    counts.set(labels.corridor ?? "", of);
  }
  return [...counts.keys()].sort().map((corridor) => {
    const found = at(METRICS.corridorPaths.name, corridor);
    // `found`: the last answer had a path; `none`: it had none; `unknown`: none lately (or path finding is off).
    const state: "found" | "none" | "unknown" = found === undefined ? "unknown" : found > 0 ? "found" : "none";
    return {
      corridor,
      state,
      // By result, only those counted at least once.
      runs: counts.get(corridor) ?? {},
      paths: found,
      bestRate: at(METRICS.corridorBestRate.name, corridor),
      minRate: at(METRICS.corridorMinRate.name, corridor),
      bestHops: at(METRICS.corridorBestHops.name, corridor),
      // Over the recent window, interpolated in its bucket as histogram_quantile does.
      p90Seconds: bucketQuantile(0.9, buckets.get(corridor) ?? new Map()),
      lastFoundTimestampSeconds: at(METRICS.corridorLastFound.name, corridor),
    };
  });
}
