import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import { columns, dashboard, multiValueVariable, select, statPanel, tablePanel, timeseriesPanel } from "./common.js";

const SELECTED = 'account=~"$account"';
const NATIVE = `${SELECTED}, asset="native"`;

/** Lumens a payment or fee can still use: balance − minimum balance − lumens offered for sale (none on old Horizons). */
const SPENDABLE_XLM =
  `${select(METRICS.accountBalance, { matchers: NATIVE })}` +
  ` - ignoring (asset) group_left ${select(METRICS.accountMinimumBalance, { matchers: SELECTED })}` +
  ` - (${select(METRICS.accountSellingLiabilities, { matchers: NATIVE })} or ${select(METRICS.accountBalance, { matchers: NATIVE })} * 0)`;

/** Watched accounts: balances against their marks, spendable lumens, trustlines, signers and activity. */
export function accountsDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-accounts",
    title: "Stellar Horizon / Accounts",
    description: "Watched accounts: balances against low-water marks, spendable XLM, trustline usage, signer changes and last activity.",
    extraVariables: [
      multiValueVariable("account", "Account", `label_values(${METRICS.accountExists.name}{job=~"$job", horizon=~"$horizon"}, account)`),
    ],
    rows: [
      {
        title: "Balances",
        panels: [
          statPanel({
            title: "Accounts found",
            description: "1 when Horizon knows the account, 0 when it answers 404 (merged away or never funded).",
            unit: units.NoUnit,
            width: 6,
            queries: [{ expr: select(METRICS.accountExists, { matchers: SELECTED }), legend: "{{horizon}} {{account}}" }],
          }),
          timeseriesPanel({
            title: "Balance against low-water mark",
            description: "Balances that have a low_balance mark, with the mark; below it StellarAccountBalanceLow fires.",
            unit: units.Short,
            width: 18,
            queries: [
              {
                expr:
                  `${select(METRICS.accountBalance, { matchers: SELECTED })}` +
                  ` and ${select(METRICS.accountBalanceLowWatermark, { matchers: SELECTED })}`,
                legend: "{{horizon}} {{account}} {{asset}}",
              },
              {
                expr: select(METRICS.accountBalanceLowWatermark, { matchers: SELECTED }),
                legend: "{{horizon}} {{account}} {{asset}} low-water mark",
              },
            ],
          }),
          timeseriesPanel({
            title: "Spendable XLM",
            description: "Balance minus minimum balance (reserve) minus lumens offered for sale; below 10 StellarAccountNativeNearMinimumBalance fires.",
            unit: units.Short,
            width: 12,
            queries: [{ expr: SPENDABLE_XLM, legend: "{{horizon}} {{account}}" }],
          }),
          timeseriesPanel({
            title: "Trustline usage",
            description: "Balance of each trustline and pool share holding as a share of its limit; at 90% StellarAccountTrustlineNearLimit fires.",
            unit: units.PercentUnit,
            width: 12,
            min: 0,
            queries: [
              {
                expr:
                  `${select(METRICS.accountBalance, { matchers: SELECTED })}` +
                  ` / (${select(METRICS.accountTrustlineLimit, { matchers: SELECTED })} > 0)`,
                legend: "{{horizon}} {{account}} {{asset}}",
              },
            ],
          }),
        ],
      },
      {
        title: "Control and activity",
        panels: [
          timeseriesPanel({
            title: "Signer changes",
            description: "Changes of signers, signer weights or thresholds seen between polls; any is a StellarAccountSignersChanged page.",
            unit: units.NoUnit,
            width: 8,
            min: 0,
            queries: [
              {
                expr: `increase(${select(METRICS.accountSignerChangesTotal, { matchers: SELECTED })}[$__rate_interval])`,
                legend: "{{horizon}} {{account}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Last activity",
            description: "Time since each account's last transaction (sequence_time); a cold account's should only grow.",
            unit: units.Seconds,
            width: 8,
            min: 0,
            queries: [
              {
                expr: `time() - ${select(METRICS.accountSequenceTimestamp, { matchers: SELECTED })}`,
                legend: "{{horizon}} {{account}}",
              },
            ],
          }),
          tablePanel({
            title: "Signers",
            description: "Each signer's weight, and the account's thresholds per level (what an operation of that level needs).",
            unit: units.NoUnit,
            width: 8,
            queries: [{ expr: select(METRICS.accountSignerWeight, { matchers: SELECTED }) }],
            transformations: [columns({ horizon: "Horizon", account: "Account", signer: "Signer", type: "Type", Value: "Weight" })],
          }),
          timeseriesPanel({
            title: "Reserve",
            description: "Minimum balance in XLM: (2 + subentries + sponsoring − sponsored) × the base reserve.",
            unit: units.Short,
            width: 12,
            min: 0,
            queries: [{ expr: select(METRICS.accountMinimumBalance, { matchers: SELECTED }), legend: "{{horizon}} {{account}}" }],
          }),
          timeseriesPanel({
            title: "Open offers and claimable balances",
            description: "Open offers (offers: true) and balances the account can claim (claimable_balances: true), each counted up to 1000.",
            unit: units.NoUnit,
            width: 12,
            min: 0,
            queries: [
              { expr: select(METRICS.accountOffers, { matchers: SELECTED }), legend: "{{horizon}} {{account}} offers" },
              { expr: select(METRICS.accountClaimableBalances, { matchers: SELECTED }), legend: "{{horizon}} {{account}} claimable balances" },
            ],
          }),
        ],
      },
    ],
  });
}
