import { html } from "hono/html";
import type { MarketReport } from "../status/markets.js";
import { badge, headerAndRows, note, shortened, table, type Column } from "./landing-html.js";

/** The deviation the peg alert tolerates (StellarMarketOffPeg). */
const PEG_TOLERANCE = 0.01;

function price(value: number | undefined): string {
  return value === undefined ? "—" : String(Number(value.toPrecision(7)));
}

function pegBadge(market: MarketReport) {
  if (market.deviationRatio === undefined) return note("no reference");
  const off = Math.abs(market.deviationRatio) > PEG_TOLERANCE;
  const deviation = (market.deviationRatio * 100).toFixed(2);
  return html`${badge(off ? "failing" : "ok", off ? "off peg" : "on peg")} ${deviation}%`;
}

function makersCell(market: MarketReport) {
  if (market.makers.length === 0) return note("none watched");
  return market.makers.map(({ maker, asks, bids }) => {
    const quiet = asks === 0 || bids === 0;
    const offers = badge(quiet ? "failing" : "ok", `${asks ?? "?"} asks / ${bids ?? "?"} bids`);
    return html`<span title="${maker}">${shortened(maker)}</span> ${offers} `;
  });
}

const COLUMNS: readonly Column<MarketReport>[] = [
  ["Market", (market) => market.market],
  [{ num: "Close" }, (market) => (market.traded ? price(market.close) : note("never traded"))],
  [{ num: "Reference" }, (market) => price(market.referencePrice)],
  ["Peg", pegBadge],
  [{ num: "Trades counted" }, (market) => market.trades],
  ["Makers", makersCell],
];

export function marketsTable(markets: readonly MarketReport[]) {
  return table("Watched markets", ...headerAndRows(COLUMNS, markets));
}
