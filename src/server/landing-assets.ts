import { html } from "hono/html";
import type { AssetReport } from "../status/assets.js";
import type { Figure } from "../status/board.js";
import { badge, headerRow, num, row, shortAsset, td } from "./landing-html.js";

export const ASSETS_HEADER = headerRow(
  "Asset",
  { num: "Supply" },
  { num: "Holders" },
  { num: "Frozen holders" },
  "Flags",
  { num: "Flag changes" },
  { num: "Age" },
  "State",
);

/** A watched asset's row; `stale` when its figures are kept from the poll's last publication. */
export function assetRow(asset: AssetReport, value: (figure: Figure | undefined) => unknown, stale: boolean) {
  const name = shortAsset(asset.asset);
  const age = asset.ageSeconds === undefined ? "" : `${asset.ageSeconds} s`;
  const unknown = html`<td colspan="5">not known to this Horizon</td>`;
  if (asset.exists.value === 0) return row(td(name), unknown, num(age), td(badge("failing", "missing")));
  return row(
    td(name),
    num(value(asset.supply)),
    num(value(asset.holders)),
    num(value(asset.frozenHolders)),
    td(asset.flags.length === 0 ? "none" : asset.flags.join(", ")),
    num(value(asset.flagChanges)),
    num(age),
    td(stale ? badge("degraded", "stale") : badge("ok", "ok")),
  );
}
