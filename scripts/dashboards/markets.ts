import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import { corridorRows } from "./corridors.js";
import { dashboard, multiValueVariable, select, statPanel, timeseriesPanel, type DashboardSpec } from "./common.js";

const SELECTED = 'market=~"$market"';
const on = (metric: (typeof METRICS)[keyof typeof METRICS], matchers = "") =>
  select(metric, { matchers: matchers === "" ? SELECTED : `${SELECTED}, ${matchers}` });
/** The band the peg alert tolerates around the reference: 1% either side. */
const BAND = 0.01;

/** Watched markets' price against the reference, volume, trades and the makers' depth per side. */
export function marketRows(): DashboardSpec["rows"][number][] {
  return [
    {
      title: "Price",
      panels: [
        timeseriesPanel({
          title: "Close against the reference",
          description: `Close of the last completed bucket with trades, in counter per base, with the configured reference price and the ±${BAND * 100}% band StellarMarketOffPeg allows.`,
          unit: units.Short,
          width: 16,
          queries: [
            { expr: on(METRICS.marketPrice, 'stat="close"'), legend: "{{horizon}} {{market}} close" },
            { expr: on(METRICS.marketReferencePrice), legend: "{{horizon}} {{market}} reference" },
            { expr: `${on(METRICS.marketReferencePrice)} * ${1 + BAND}`, legend: "{{horizon}} {{market}} +1%" },
            { expr: `${on(METRICS.marketReferencePrice)} * ${1 - BAND}`, legend: "{{horizon}} {{market}} -1%" },
          ],
        }),
        statPanel({
          title: "Deviation from the reference",
          description: "(close - reference_price) / reference_price, for markets configured with a reference price.",
          unit: units.PercentUnit,
          width: 8,
          queries: [{ expr: on(METRICS.marketPriceDeviation), legend: "{{horizon}} {{market}}" }],
        }),
      ],
    },
    {
      title: "Volume and trades",
      panels: [
        timeseriesPanel({
          title: "Trades per minute",
          description: "Trades counted per minute, each once, by trade type (orderbook, liquidity_pool).",
          unit: units.Short,
          width: 8,
          min: 0,
          queries: [
            {
              expr: `sum by (horizon, market, trade_type) (rate(${on(METRICS.marketTrades)}[$__rate_interval])) * 60`,
              legend: "{{horizon}} {{market}} {{trade_type}}",
            },
          ],
        }),
        timeseriesPanel({
          title: "Volume per minute",
          description: "Amounts traded per minute, by asset (base, counter), in units of that asset.",
          unit: units.Short,
          width: 8,
          min: 0,
          queries: [
            {
              expr: `sum by (horizon, market, asset) (rate(${on(METRICS.marketTradedAmount)}[$__rate_interval])) * 60`,
              legend: "{{horizon}} {{market}} {{asset}}",
            },
          ],
        }),
        timeseriesPanel({
          title: "Last bucket's trades",
          description: "trade_count of the last completed bucket with trades.",
          unit: units.Short,
          width: 8,
          min: 0,
          queries: [{ expr: on(METRICS.marketBucketTrades), legend: "{{horizon}} {{market}}" }],
        }),
      ],
    },
    {
      title: "Makers",
      panels: [
        timeseriesPanel({
          title: "Maker depth per side",
          description:
            "Sum of a maker's offer amounts on each side, in units of the asset the side sells (ask: base; bid: counter).",
          unit: units.Short,
          width: 12,
          min: 0,
          queries: [{ expr: on(METRICS.marketMakerOfferAmount), legend: "{{horizon}} {{market}} {{maker}} {{side}}" }],
        }),
        timeseriesPanel({
          title: "Maker offers per side",
          description: "A maker's open offers on each side; 0 for 5 minutes is StellarMarketMakerNotQuoting.",
          unit: units.Short,
          width: 12,
          min: 0,
          queries: [{ expr: on(METRICS.marketMakerOffers), legend: "{{horizon}} {{market}} {{maker}} {{side}}" }],
        }),
        timeseriesPanel({
          title: "Maker best price against the close",
          description: "A maker's best ask and bid, in counter per base, around the market's close.",
          unit: units.Short,
          width: 12,
          queries: [
            { expr: on(METRICS.marketMakerBestPrice), legend: "{{horizon}} {{market}} {{maker}} {{side}}" },
            { expr: on(METRICS.marketPrice, 'stat="close"'), legend: "{{horizon}} {{market}} close" },
          ],
        }),
        timeseriesPanel({
          title: "Oldest offer age",
          description:
            "Time since the oldest last_modified_time of a maker's offers on each side; no line for a side holding an " +
            "offer Horizon dates null (older than its history).",
          unit: units.Seconds,
          width: 12,
          min: 0,
          queries: [{ expr: on(METRICS.marketMakerOfferAge), legend: "{{horizon}} {{market}} {{maker}} {{side}}" }],
        }),
      ],
    },
  ];
}

export function marketsDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-markets",
    title: "Stellar / Markets",
    description: "Watched DEX markets: price against the reference, volume, trades and the makers' depth per side.",
    extraVariables: [
      multiValueVariable(
        "market",
        "Market",
        `label_values(${METRICS.marketTraded.name}{job=~"$job", horizon=~"$horizon"}, market)`,
      ),
    ],
    rows: [...marketRows(), ...corridorRows()],
  });
}
