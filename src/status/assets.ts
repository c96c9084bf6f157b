/** The watched assets' part of a Horizon's status: supply, holders, flags and how old they are. */
import { METRICS } from "../catalog/metrics.js";
import { ASSET_FLAGS } from "../client/asset-schemas.js";
import { optional, type StatusSeries } from "./board.js";

interface Figure {
  readonly metric: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface AssetReport {
  /** `CODE:ISSUER`. */
  readonly asset: string;
  readonly exists: Figure;
  readonly supply?: Figure;
  /** Accounts holding it on an authorized trustline. */
  readonly holders?: Figure;
  /** Accounts holding it on an unauthorized (frozen) trustline. */
  readonly frozenHolders?: Figure;
  /** The issuer flags set now. */
  readonly flags: readonly string[];
  readonly flagChanges?: Figure;
  /** Seconds since the assets poll last succeeded. */
  readonly ageSeconds?: number;
}

/** The families the assets section reads. */
export const ASSET_STATUS_FAMILIES = [
  METRICS.assetExists,
  METRICS.assetSupply,
  METRICS.assetHolders,
  METRICS.assetFlag,
  METRICS.assetFlagChanges,
].map((metric) => metric.name);

interface Reader {
  all(metric: string): readonly StatusSeries[];
}

/** Each watched asset's figures, in the order the poll published them; undefined when none is watched. */
export function assetReports(
  series: Reader,
  lastSuccessAt: string | undefined,
  nowMs: number,
): AssetReport[] | undefined {
  const exists = series.all(METRICS.assetExists.name);
  if (exists.length === 0) return undefined;
  const of = (metric: string, asset: string, extra: Record<string, string> = {}): Figure | undefined => {
    const found = series
      .all(metric)
      .find(({ labels }) => labels.asset === asset && Object.entries(extra).every(([key, v]) => labels[key] === v));
    return found === undefined ? undefined : { metric, labels: { asset, ...extra }, value: found.value };
  };
  const age =
    lastSuccessAt === undefined ? undefined : Math.max(0, Math.round((nowMs - Date.parse(lastSuccessAt)) / 1000));
  return exists.map(({ labels, value }) => {
    const asset = labels.asset ?? "";
    return {
      asset,
      exists: { metric: METRICS.assetExists.name, labels: { asset }, value },
      flags: ASSET_FLAGS.filter((flag) => of(METRICS.assetFlag.name, asset, { flag })?.value === 1),
      ...optional("supply", of(METRICS.assetSupply.name, asset)),
      ...optional("holders", of(METRICS.assetHolders.name, asset, { held_by: "authorized" })),
      ...optional("frozenHolders", of(METRICS.assetHolders.name, asset, { held_by: "unauthorized" })),
      ...optional("flagChanges", of(METRICS.assetFlagChanges.name, asset)),
      ...optional("ageSeconds", age),
    };
  });
}
