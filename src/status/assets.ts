/** The watched assets' part of a Horizon's status: supply, holders, flags and how old they are. */
import { METRICS } from "../catalog/metrics.js";
import { ASSET_FLAGS } from "../client/asset-schemas.js";
import { figure, names, type SeriesReader } from "./board.js";

/** The families assetReports() reads. */
export const ASSET_FAMILIES = [
  ...names(METRICS, ["assetExists", "assetSupply", "assetHolders"]),
  ...names(METRICS, ["assetFlag", "assetFlagChanges"]),
];

/** Each watched asset (`CODE:ISSUER`), in the order the poll published them; undefined when none is watched. */
export function assetReports(series: SeriesReader, lastSuccessAt: string | undefined, nowMs: number) {
  const exists = series.all(METRICS.assetExists.name);
  if (exists.length === 0) return undefined;
  const age =
    lastSuccessAt === undefined ? undefined : Math.max(0, Math.round((nowMs - Date.parse(lastSuccessAt)) / 1000));
  return exists.map(({ labels, value }) => {
    const asset = labels.asset ?? "";
    return {
      asset,
      exists: { metric: METRICS.assetExists.name, labels: { asset }, value },
      flags: ASSET_FLAGS.filter((flag) => figure(series, METRICS.assetFlag.name, { asset, flag })?.value === 1),
      supply: figure(series, METRICS.assetSupply.name, { asset }),
      holders: figure(series, METRICS.assetHolders.name, { asset, held_by: "authorized" }),
      frozenHolders: figure(series, METRICS.assetHolders.name, { asset, held_by: "unauthorized" }),
      flagChanges: figure(series, METRICS.assetFlagChanges.name, { asset }),
      ageSeconds: age,
    };
  });
}
