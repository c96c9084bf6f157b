import { StackingConfigBuilder, StackingMode } from "@grafana/grafana-foundation-sdk/common";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import { columns, dashboard, multiValueVariable, select, statPanel, tablePanel, timeseriesPanel } from "./common.js";

const SELECTED = 'asset=~"$asset"';

/** Watched assets: supply over time, its six parts stacked, holders and the issuer's flags. */
export function assetsDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-assets",
    title: "Stellar / Assets",
    description:
      "Watched assets, from Horizon's /assets: supply (the exact sum of six parts), where it is held, holders by kind, and the issuer's flags.",
    extraVariables: [
      multiValueVariable("asset", "Asset", `label_values(${METRICS.assetExists.name}{job=~"$job"}, asset)`),
    ],
    rows: [
      {
        title: "Supply",
        panels: [
          statPanel({
            title: "Known to Horizon",
            description:
              "1 when /assets returns the asset's record, 0 when it returns none; 0 for 5 minutes fires StellarAssetMissing.",
            unit: units.NoUnit,
            width: 6,
            queries: [{ expr: select(METRICS.assetExists, { matchers: SELECTED }), legend: "{{horizon}} {{asset}}" }],
          }),
          timeseriesPanel({
            title: "Supply",
            description:
              "Balances of every trustline plus the amounts in claimable balances, liquidity pools and contracts, in units of the asset; a move of more than 1% within an hour fires StellarAssetSupplyChanged.",
            unit: units.Short,
            width: 18,
            queries: [{ expr: select(METRICS.assetSupply, { matchers: SELECTED }), legend: "{{horizon}} {{asset}}" }],
          }),
          timeseriesPanel({
            title: "Supply by holder",
            description:
              "The six parts of the supply, stacked: authorized, authorized to maintain liabilities and unauthorized trustlines, claimable balances, liquidity pools, contracts. A part this Horizon does not send is absent.",
            unit: units.Short,
            width: 24,
            min: 0,
            queries: [
              {
                expr: select(METRICS.assetAmount, { matchers: SELECTED }),
                legend: "{{horizon}} {{asset}} {{held_by}}",
              },
            ],
          }).stacking(new StackingConfigBuilder().mode(StackingMode.Normal)),
        ],
      },
      {
        title: "Holders and flags",
        panels: [
          timeseriesPanel({
            title: "Holders",
            description:
              "Accounts by trustline authorization, and the claimable balances, liquidity pools and contracts holding the asset; more unauthorized holders within an hour fires StellarAssetHoldersFrozen.",
            unit: units.NoUnit,
            width: 12,
            min: 0,
            queries: [
              {
                expr: select(METRICS.assetHolders, { matchers: SELECTED }),
                legend: "{{horizon}} {{asset}} {{held_by}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Flag changes",
            description: "Polls at which an issuer flag differed from the last; any fires StellarAssetFlagsChanged.",
            unit: units.NoUnit,
            width: 12,
            min: 0,
            queries: [
              {
                expr: `increase(${select(METRICS.assetFlagChanges, { matchers: SELECTED })}[$__rate_interval])`,
                legend: "{{horizon}} {{asset}}",
              },
            ],
          }),
          tablePanel({
            title: "Flags",
            description: "Each issuer flag now: 1 set, 0 not set.",
            unit: units.NoUnit,
            width: 12,
            queries: [{ expr: select(METRICS.assetFlag, { matchers: SELECTED }) }],
            transformations: [columns({ horizon: "Horizon", asset: "Asset", flag: "Flag", Value: "Set" })],
          }),
          tablePanel({
            title: "Stellar Asset Contract",
            description: "The asset's Stellar Asset Contract id, empty when none is deployed.",
            unit: units.NoUnit,
            width: 12,
            queries: [{ expr: select(METRICS.assetInfo, { matchers: SELECTED }) }],
            transformations: [columns({ horizon: "Horizon", asset: "Asset", contract_id: "Contract" })],
          }),
        ],
      },
    ],
  });
}
