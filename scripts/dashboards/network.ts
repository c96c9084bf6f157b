import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import { dashboard, histogramQuantile, select, sumRate, timeseriesPanel } from "./common.js";

const FEE_PERCENTILES = 'stat=~"p10|p50|p90|p99"';

/** Fee pressure, capacity, throughput and ledger cadence of the network, as each Horizon sees it. */
export function networkDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-network-fees",
    title: "Stellar Horizon / Network and fees",
    description:
      "Fee percentiles, ledger capacity, transactions and operations per second, failed share and ledger close interval.",
    rows: [
      {
        title: "Fees",
        panels: [
          timeseriesPanel({
            title: "Fee charged per operation (stroops)",
            description:
              "Percentiles of the fee charged per operation over Horizon's recent ledger window, with the base fee. The surge alert fires when p50 or p90 exceeds 10 times the base fee.",
            unit: units.NoUnit,
            width: 12,
            queries: [
              { expr: select(METRICS.feeCharged, { matchers: FEE_PERCENTILES }), legend: "{{horizon}} {{stat}}" },
              { expr: select(METRICS.feeStatsBaseFee), legend: "{{horizon}} base fee" },
            ],
          }),
          timeseriesPanel({
            title: "Maximum fee bid per operation (stroops)",
            description:
              "Percentiles of the maximum fee transactions offered per operation: how much senders are willing to pay.",
            unit: units.NoUnit,
            width: 12,
            queries: [{ expr: select(METRICS.maxFee, { matchers: FEE_PERCENTILES }), legend: "{{horizon}} {{stat}}" }],
          }),
        ],
      },
      {
        title: "Capacity",
        panels: [
          timeseriesPanel({
            title: "Ledger capacity usage",
            description:
              "Share of ledger capacity used over Horizon's recent ledger window. Sustained 90% or more means transactions compete on fees.",
            unit: units.PercentUnit,
            width: 12,
            min: 0,
            max: 1,
            queries: [{ expr: select(METRICS.ledgerCapacityUsage), legend: "{{horizon}}" }],
          }),
          timeseriesPanel({
            title: "Transaction set fill",
            description:
              "Median and 90th percentile share of each ledger's transaction set capacity used, from the ledgers read.",
            unit: units.PercentUnit,
            width: 12,
            min: 0,
            max: 1,
            queries: [
              { expr: histogramQuantile(0.5, METRICS.ledgerTxSetCapacity, ["horizon"]), legend: "{{horizon}} p50" },
              { expr: histogramQuantile(0.9, METRICS.ledgerTxSetCapacity, ["horizon"]), legend: "{{horizon}} p90" },
            ],
          }),
        ],
      },
      {
        title: "Throughput",
        panels: [
          timeseriesPanel({
            title: "Transactions per second",
            description: "Transactions in the ledgers read, by result.",
            unit: units.OpsPerSecond,
            width: 8,
            min: 0,
            queries: [
              { expr: sumRate(METRICS.transactionsTotal, ["horizon", "result"]), legend: "{{horizon}} {{result}}" },
            ],
          }),
          timeseriesPanel({
            title: "Operations per second",
            description:
              "Operations in successful transactions, and all operations in the transaction sets (failed ones included).",
            unit: units.OpsPerSecond,
            width: 8,
            min: 0,
            queries: [
              { expr: sumRate(METRICS.operationsTotal, ["horizon"]), legend: "{{horizon}} successful" },
              { expr: sumRate(METRICS.txSetOperationsTotal, ["horizon"]), legend: "{{horizon}} in transaction sets" },
            ],
          }),
          timeseriesPanel({
            title: "Failed transaction share",
            description:
              "Share of the transactions in the ledgers read that failed. The alert fires above 75% over 15 minutes.",
            unit: units.PercentUnit,
            width: 8,
            min: 0,
            max: 1,
            queries: [
              {
                expr: `${sumRate(METRICS.transactionsTotal, ["horizon"], { matchers: 'result="failed"' })} / ${sumRate(METRICS.transactionsTotal, ["horizon"])}`,
                legend: "{{horizon}}",
              },
            ],
          }),
        ],
      },
      {
        title: "Ledgers",
        panels: [
          timeseriesPanel({
            title: "Ledger close interval",
            description:
              "Percentiles of the time between consecutive ledger closes; normally 5 to 7 seconds. The slow-close alert fires when p90 exceeds 7 s.",
            unit: units.Seconds,
            width: 12,
            min: 0,
            queries: [
              { expr: histogramQuantile(0.5, METRICS.ledgerCloseInterval, ["horizon"]), legend: "{{horizon}} p50" },
              { expr: histogramQuantile(0.9, METRICS.ledgerCloseInterval, ["horizon"]), legend: "{{horizon}} p90" },
              { expr: histogramQuantile(0.99, METRICS.ledgerCloseInterval, ["horizon"]), legend: "{{horizon}} p99" },
            ],
          }),
          timeseriesPanel({
            title: "Ledgers read per second",
            description:
              "Ledgers the exporter read from Horizon; a flat line means no ledger closed or Horizon stopped serving new ones.",
            unit: units.OpsPerSecond,
            width: 12,
            min: 0,
            queries: [{ expr: sumRate(METRICS.ledgersTotal, ["horizon"]), legend: "{{horizon}}" }],
          }),
        ],
      },
    ],
  });
}
