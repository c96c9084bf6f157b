import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import { columns, dashboard, multiValueVariable, select, statPanel, tablePanel, timeseriesPanel } from "./common.js";

const SELECTED_POOLS = 'pool_id=~"$pool"';
const POOL_KEY = "job, instance, horizon, pool_id";
const TOP_POOLS = 10;

/** The reserve of a pool's first (`asset_a`) or second (`asset_b`) asset, keeping only the pool's labels. */
function reserveOf(side: "asset_a" | "asset_b"): string {
  return (
    `${select(METRICS.liquidityPoolReserve, { matchers: SELECTED_POOLS })}` +
    ` * on (${POOL_KEY}, asset) group_left ()` +
    ` label_replace(${select(METRICS.liquidityPoolInfo, { matchers: SELECTED_POOLS })}, "asset", "$1", "${side}", "(.*)")`
  );
}

/** Units of asset_b one unit of asset_a buys at the pool's current reserves, for the pools with the most trustlines. */
const IMPLIED_PRICE =
  `(${reserveOf("asset_b")}) / on (${POOL_KEY}) (${reserveOf("asset_a")})` +
  ` * on (${POOL_KEY}) group_left (asset_a, asset_b) ${select(METRICS.liquidityPoolInfo, { matchers: SELECTED_POOLS })}` +
  ` and on (${POOL_KEY}) topk(${TOP_POOLS}, ${select(METRICS.liquidityPoolTrustlines, { matchers: SELECTED_POOLS })})`;

/** Liquidity pools the exporter tracks: size, price and participation. */
export function liquidityPoolsDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-liquidity-pools",
    title: "Stellar Horizon / Liquidity pools",
    description: "Tracked liquidity pools: largest reserves, implied prices, pool shares and trustlines.",
    extraVariables: [
      multiValueVariable(
        "pool",
        "Pool",
        `label_values(${METRICS.liquidityPoolInfo.name}{job=~"$job", horizon=~"$horizon"}, pool_id)`,
      ),
    ],
    rows: [
      {
        title: "Pools",
        panels: [
          statPanel({
            title: "Tracked pools",
            description: "Liquidity pools the exporter tracks on each Horizon (bounded by --pools.max).",
            unit: units.NoUnit,
            width: 6,
            queries: [{ expr: select(METRICS.liquidityPools), legend: "{{horizon}}" }],
          }),
          tablePanel({
            title: `Top ${TOP_POOLS} reserves`,
            description:
              "The largest reserves among the selected pools, each in units of its own asset, with the pool's assets and fee.",
            unit: units.Short,
            width: 18,
            queries: [
              {
                expr:
                  `topk(${TOP_POOLS}, ${select(METRICS.liquidityPoolReserve, { matchers: SELECTED_POOLS })}` +
                  ` * on (${POOL_KEY}) group_left (asset_a, asset_b, fee_bp) ${select(METRICS.liquidityPoolInfo, { matchers: SELECTED_POOLS })})`,
              },
            ],
            transformations: [
              columns({
                horizon: "Horizon",
                pool_id: "Pool",
                asset: "Reserve asset",
                Value: "Reserve",
                asset_a: "Asset A",
                asset_b: "Asset B",
                fee_bp: "Fee (bp)",
              }),
              { id: "sortBy", options: { sort: [{ field: "Reserve", desc: true }] } },
            ],
          }),
        ],
      },
      {
        title: "Prices and participation",
        panels: [
          timeseriesPanel({
            title: "Implied price",
            description: `Units of asset B one unit of asset A buys at each pool's reserves (reserve B / reserve A), for the ${TOP_POOLS} selected pools with the most trustlines.`,
            unit: units.Short,
            width: 24,
            queries: [{ expr: IMPLIED_PRICE, legend: "{{horizon}} {{pool_id}}: {{asset_b}} per {{asset_a}}" }],
          }),
          timeseriesPanel({
            title: `Reserves of the top ${TOP_POOLS}`,
            description:
              "Reserves over time of the largest reserves among the selected pools; a sudden fall is what the reserve-drop alert catches.",
            unit: units.Short,
            width: 8,
            min: 0,
            queries: [
              {
                expr: `topk(${TOP_POOLS}, ${select(METRICS.liquidityPoolReserve, { matchers: SELECTED_POOLS })})`,
                legend: "{{horizon}} {{pool_id}} {{asset}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Pool shares",
            description: `Total pool shares issued, for the ${TOP_POOLS} selected pools with the most shares.`,
            unit: units.Short,
            width: 8,
            min: 0,
            queries: [
              {
                expr: `topk(${TOP_POOLS}, ${select(METRICS.liquidityPoolShares, { matchers: SELECTED_POOLS })})`,
                legend: "{{horizon}} {{pool_id}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Trustlines",
            description: `Trustlines held to the pool's shares, for the ${TOP_POOLS} selected pools with the most.`,
            unit: units.Short,
            width: 8,
            min: 0,
            queries: [
              {
                expr: `topk(${TOP_POOLS}, ${select(METRICS.liquidityPoolTrustlines, { matchers: SELECTED_POOLS })})`,
                legend: "{{horizon}} {{pool_id}}",
              },
            ],
          }),
        ],
      },
    ],
  });
}
