import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import {
  HORIZON_ACCOUNT_METRICS,
  METRICS as HORIZON_ACCOUNT_METRICS_FLOW,
  RPC_ACCOUNT_METRICS,
  type AccountMetricSet,
} from "../../src/catalog/metrics.js";
import { columns, dashboard, multiValueVariable, select, statPanel, tablePanel, timeseriesPanel } from "./common.js";

const SELECTED = 'account=~"$account"';
const NATIVE = `${SELECTED}, asset="native"`;

/**
 * A query over the accounts watched through a Horizon `or` those watched through a Stellar RPC:
 * the same expression on either kind's families (which differ only in prefix and target label).
 */
const either = (query: (metrics: AccountMetricSet) => string): string =>
  `(${query(HORIZON_ACCOUNT_METRICS)}) or (${query(RPC_ACCOUNT_METRICS)})`;
/** The target, whichever kind: one of the two labels is set. */
const TARGET = "{{horizon}}{{rpc}}";

/** Lumens a payment or fee can still use: balance − minimum balance − lumens offered for sale (none on old Horizons). */
const SPENDABLE_XLM = either(
  (metrics) =>
    `${select(metrics.accountBalance, { matchers: NATIVE })}` +
    ` - ignoring (asset) group_left ${select(metrics.accountMinimumBalance, { matchers: SELECTED })}` +
    ` - (${select(metrics.accountSellingLiabilities, { matchers: NATIVE })} or ${select(metrics.accountBalance, { matchers: NATIVE })} * 0)`,
);

/** Watched accounts: balances against their marks, spendable lumens, trustlines, signers and activity. */
export function accountsDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-accounts",
    title: "Stellar Horizon / Accounts",
    description:
      "Watched accounts, read through a Horizon or a Stellar RPC: balances against low-water marks, spendable XLM, trustline usage, signer changes and last activity.",
    extraVariables: [
      // Every replica exports its accounts, network-level `up` series only shard 0: list the RPCs from the accounts.
      multiValueVariable(
        "rpc",
        "Stellar RPC",
        `label_values(${RPC_ACCOUNT_METRICS.accountExists.name}{job=~"$job"}, rpc)`,
      ),
      multiValueVariable(
        "account",
        "Account",
        `label_values({__name__=~"stellar_(horizon|rpc)_account_exists", job=~"$job"}, account)`,
      ),
    ],
    rows: [
      {
        title: "Balances",
        panels: [
          statPanel({
            title: "Accounts found",
            description:
              "1 when the account exists (Horizon: not its 404 not_found problem; Stellar RPC: its ledger entry is returned), 0 when merged away or never funded.",
            unit: units.NoUnit,
            width: 6,
            queries: [
              {
                expr: either((metrics) => select(metrics.accountExists, { matchers: SELECTED })),
                legend: `${TARGET} {{account}}`,
              },
            ],
          }),
          timeseriesPanel({
            title: "Balance against low-water mark",
            description:
              "Balances that have a low_balance mark, with the mark; below it StellarAccountBalanceLow fires.",
            unit: units.Short,
            width: 18,
            queries: [
              {
                expr: either(
                  (metrics) =>
                    `${select(metrics.accountBalance, { matchers: SELECTED })}` +
                    ` and ${select(metrics.accountBalanceLowWatermark, { matchers: SELECTED })}`,
                ),
                legend: `${TARGET} {{account}} {{asset}}`,
              },
              {
                expr: either((metrics) => select(metrics.accountBalanceLowWatermark, { matchers: SELECTED })),
                legend: `${TARGET} {{account}} {{asset}} low-water mark`,
              },
            ],
          }),
          timeseriesPanel({
            title: "Spendable XLM",
            description:
              "Balance minus minimum balance (reserve) minus lumens offered for sale; below 10 StellarAccountNativeNearMinimumBalance fires.",
            unit: units.Short,
            width: 12,
            queries: [{ expr: SPENDABLE_XLM, legend: `${TARGET} {{account}}` }],
          }),
          timeseriesPanel({
            title: "Trustline usage",
            description:
              "Balance of each trustline and pool share holding as a share of its limit; at 90% StellarAccountTrustlineNearLimit fires.",
            unit: units.PercentUnit,
            width: 12,
            min: 0,
            queries: [
              {
                expr: either(
                  (metrics) =>
                    `${select(metrics.accountBalance, { matchers: SELECTED })}` +
                    ` / (${select(metrics.accountTrustlineLimit, { matchers: SELECTED })} > 0)`,
                ),
                legend: `${TARGET} {{account}} {{asset}}`,
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
            description:
              "Changes of signers, signer weights or thresholds seen between polls; any is a StellarAccountSignersChanged page.",
            unit: units.NoUnit,
            width: 8,
            min: 0,
            queries: [
              {
                expr: either(
                  (metrics) =>
                    `increase(${select(metrics.accountSignerChangesTotal, { matchers: SELECTED })}[$__rate_interval])`,
                ),
                legend: `${TARGET} {{account}}`,
              },
            ],
          }),
          timeseriesPanel({
            title: "Last activity",
            description:
              "Time since each account's last transaction (sequence_time); a cold account's should only grow.",
            unit: units.Seconds,
            width: 8,
            min: 0,
            queries: [
              {
                expr: either(
                  (metrics) => `time() - ${select(metrics.accountSequenceTimestamp, { matchers: SELECTED })}`,
                ),
                legend: `${TARGET} {{account}}`,
              },
            ],
          }),
          tablePanel({
            title: "Signers",
            description:
              "Each signer's weight, and the account's thresholds per level (what an operation of that level needs).",
            unit: units.NoUnit,
            width: 8,
            queries: [{ expr: either((metrics) => select(metrics.accountSignerWeight, { matchers: SELECTED })) }],
            transformations: [
              columns({
                horizon: "Horizon",
                rpc: "Stellar RPC",
                account: "Account",
                signer: "Signer",
                type: "Type",
                Value: "Weight",
              }),
            ],
          }),
          timeseriesPanel({
            title: "Reserve",
            description: "Minimum balance in XLM: (2 + subentries + sponsoring − sponsored) × the base reserve.",
            unit: units.Short,
            width: 12,
            min: 0,
            queries: [
              {
                expr: either((metrics) => select(metrics.accountMinimumBalance, { matchers: SELECTED })),
                legend: `${TARGET} {{account}}`,
              },
            ],
          }),
          timeseriesPanel({
            title: "Open offers and claimable balances",
            description:
              "Open offers (offers: true) and balances the account can claim (claimable_balances: true), each counted up to 1000; Horizon targets only.",
            unit: units.NoUnit,
            width: 12,
            min: 0,
            queries: [
              {
                expr: select(HORIZON_ACCOUNT_METRICS.accountOffers, { matchers: SELECTED }),
                legend: "{{horizon}} {{account}} offers",
              },
              {
                expr: select(HORIZON_ACCOUNT_METRICS.accountClaimableBalances, { matchers: SELECTED }),
                legend: "{{horizon}} {{account}} claimable balances",
              },
            ],
          }),
        ],
      },
      flowRow(),
    ],
  });
}

/** The Horizon catalog, whose flow families the activity job exports. */
const FLOW = HORIZON_ACCOUNT_METRICS_FLOW;

/** What accounts with `activity: true` do (Horizon targets): payments per asset, outflow against its limit, failures. */
function flowRow() {
  const amount = (direction: string) =>
    select(FLOW.accountPaymentAmountTotal, { matchers: `${SELECTED}, direction="${direction}"` });
  return {
    title: "Flow (activity: true)",
    panels: [
      timeseriesPanel({
        title: "Payments received",
        description:
          "Amount received per asset (payments, path payments' destination side, account creations, Soroban transfers and mints); a deposit account going flat for longer than expect_payment_within fires StellarAccountNoPayments.",
        unit: units.Short,
        width: 6,
        min: 0,
        queries: [
          { expr: `increase(${amount("received")}[$__rate_interval])`, legend: "{{horizon}} {{account}} {{asset}}" },
        ],
      }),
      timeseriesPanel({
        title: "Payments sent, per hour",
        description:
          "Amount sent per asset at an hourly rate (path payments' source side included), against max_outflow_per_hour; once an hour's outflow exceeds it StellarAccountOutflowHigh fires.",
        unit: units.Short,
        width: 6,
        min: 0,
        queries: [
          { expr: `rate(${amount("sent")}[$__rate_interval]) * 3600`, legend: "{{horizon}} {{account}} {{asset}}" },
          {
            expr: select(FLOW.accountOutflowLimitPerHour, { matchers: SELECTED }),
            legend: "{{horizon}} {{account}} {{asset}} limit",
          },
        ],
      }),
      timeseriesPanel({
        title: "Time since last payment",
        description:
          "Time since the newest payment received and sent, against expect_payment_within; known from the first poll's newest payment.",
        unit: units.Seconds,
        width: 6,
        min: 0,
        queries: [
          {
            expr: `time() - ${select(FLOW.accountLastPaymentTimestamp, { matchers: SELECTED })}`,
            legend: "{{horizon}} {{account}} {{direction}}",
          },
          {
            expr: select(FLOW.accountPaymentExpectedWithin, { matchers: SELECTED }),
            legend: "{{horizon}} {{account}} expected within",
          },
        ],
      }),
      timeseriesPanel({
        title: "Transaction failures by code",
        description:
          "The account's own failed transactions by the code in their result (tx_bad_seq, tx_insufficient_fee, or the first failing operation's, e.g. op_underfunded; tx_other when unreadable); StellarAccountTransactionsFailing fires above 10% of its transactions.",
        unit: units.NoUnit,
        width: 6,
        min: 0,
        queries: [
          {
            expr: `increase(${select(FLOW.accountTransactionFailuresTotal, { matchers: SELECTED })}[$__rate_interval])`,
            legend: "{{horizon}} {{account}} {{code}}",
          },
        ],
      }),
    ],
  };
}
