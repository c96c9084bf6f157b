import { html } from "hono/html";
import type { AssetReport } from "../status/assets.js";

type Figure = NonNullable<AssetReport["supply"]>;

/** The assets section of a Horizon's card: one row per watched asset. */
export function assetsTable(assets: readonly AssetReport[], value: (figure: Figure | undefined) => unknown) {
  return html`<table>
<caption>Watched assets</caption>
<tr><th>Asset</th><th class="num">Supply</th><th class="num">Holders</th><th class="num">Frozen holders</th><th>Flags</th><th class="num">Flag changes</th><th class="num">Age</th><th>State</th></tr>
${assets.map((asset) => {
  const [code, issuer = ""] = asset.asset.split(":");
  const name = html`<span title="${asset.asset}">${code} <span class="unit">${issuer.slice(0, 4)}…${issuer.slice(-4)}</span></span>`;
  const age = asset.ageSeconds === undefined ? "" : `${asset.ageSeconds} s`;
  if (asset.exists.value === 0)
    return html`<tr><td>${name}</td><td colspan="5">not known to this Horizon</td><td class="num">${age}</td><td><span class="badge failing">missing</span></td></tr>`;
  return html`<tr><td>${name}</td><td class="num">${value(asset.supply)}</td><td class="num">${value(asset.holders)}</td><td class="num">${value(asset.frozenHolders)}</td><td>${asset.flags.length === 0 ? "none" : asset.flags.join(", ")}</td><td class="num">${value(asset.flagChanges)}</td><td class="num">${age}</td><td><span class="badge ok">ok</span></td></tr>`;
})}
</table>`;
}
