/** The markets section of a Horizon's card on the landing page. */
import { html } from "hono/html";
import type { MarketReport } from "../status/markets.js";

/** The deviation the peg alert tolerates (StellarMarketOffPeg). */
const PEG_TOLERANCE = 0.01;

function price(value: number | undefined): string {
  return value === undefined ? "—" : String(Number(value.toPrecision(7)));
}

function pegBadge(market: MarketReport) {
  if (market.deviationRatio === undefined) return html`<span class="note">no reference</span>`;
  const off = Math.abs(market.deviationRatio) > PEG_TOLERANCE;
  return html`<span class="badge ${off ? "failing" : "ok"}">${off ? "off peg" : "on peg"}</span> ${(market.deviationRatio * 100).toFixed(2)}%`;
}

function makersCell(market: MarketReport) {
  if (market.makers.length === 0) return html`<span class="note">none watched</span>`;
  return market.makers.map(({ maker, asks, bids }) => {
    const quiet = asks === 0 || bids === 0;
    return html`<span title="${maker}">${maker.slice(0, 4)}…${maker.slice(-4)}</span> <span class="badge ${quiet ? "failing" : "ok"}">${asks ?? "?"} asks / ${bids ?? "?"} bids</span> `;
  });
}

/** A row per watched market: its close, its peg, trades counted and its makers' offers per side. */
export function marketsTable(markets: readonly MarketReport[]) {
  return html`<table>
<caption>Watched markets</caption>
<tr><th>Market</th><th class="num">Close</th><th class="num">Reference</th><th>Peg</th><th class="num">Trades counted</th><th>Makers</th></tr>
${markets.map(
  (market) =>
    html`<tr><td>${market.market}</td><td class="num">${market.traded ? price(market.close) : html`<span class="note">never traded</span>`}</td><td class="num">${price(market.referencePrice)}</td><td>${pegBadge(market)}</td><td class="num">${market.trades}</td><td>${makersCell(market)}</td></tr>`,
)}
</table>`;
}
