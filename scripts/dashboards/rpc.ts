import type { Dashboard, ValueMapping } from "@grafana/grafana-foundation-sdk/dashboard";
import { MappingType } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { RPC_METRICS } from "../../src/catalog/metrics.js";
import {
  UP_DOWN_MAPPINGS,
  columns,
  dashboard,
  histogramQuantile,
  select,
  statPanel,
  sumRate,
  tablePanel,
  timeseriesPanel,
} from "./common.js";

const FEE_PERCENTILES = 'stat=~"p10|p50|p90|p99"';

/** Shows 1 as "Healthy" in green and 0 as "Unhealthy" in red. */
const HEALTHY_MAPPINGS: ValueMapping[] = [
  {
    type: MappingType.ValueToText,
    options: {
      "0": { text: "Unhealthy", color: "red", index: 0 },
      "1": { text: "Healthy", color: "green", index: 1 },
    },
  },
];

/** Every Stellar RPC the exporter polls: reachable, healthy, current, in step with its network, and its fees. */
export function rpcDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-rpc",
    title: "Stellar RPC",
    description:
      "Health, latest ledger, lag behind the network, retention and inclusion fees of every Stellar RPC the exporter polls.",
    targetLabel: "rpc",
    rows: [
      {
        title: "Health",
        panels: [
          statPanel({
            title: "RPC up",
            description:
              "Whether the last status poll (getHealth, getLatestLedger, getFeeStats) of each RPC succeeded (stellar_rpc_up).",
            unit: units.NoUnit,
            width: 8,
            height: 5,
            mappings: UP_DOWN_MAPPINGS,
            queries: [{ expr: select(RPC_METRICS.up), legend: "{{rpc}}" }],
          }),
          statPanel({
            title: "Healthy",
            description:
              "Whether getHealth said healthy (stellar_rpc_healthy). An unhealthy RPC still answers; load balancers that check getHealth take it out.",
            unit: units.NoUnit,
            width: 8,
            height: 5,
            mappings: HEALTHY_MAPPINGS,
            queries: [{ expr: select(RPC_METRICS.healthy), legend: "{{rpc}}" }],
          }),
          tablePanel({
            title: "Versions",
            description:
              "Stellar RPC and captive stellar-core versions and the network each RPC serves (getVersionInfo, getNetwork).",
            unit: units.String,
            width: 8,
            height: 5,
            queries: [{ expr: select(RPC_METRICS.info) }],
            transformations: [
              columns({
                rpc: "RPC",
                network: "Network",
                version: "RPC version",
                captive_core_version: "Captive core version",
              }),
            ],
          }),
        ],
      },
      {
        title: "Ledgers",
        panels: [
          timeseriesPanel({
            title: "Behind network",
            description:
              "Ledgers between each RPC's latest ledger and the newest ledger any Horizon's stellar-core or any RPC of the same network has seen (recording rule rpc:stellar_rpc_latest_ledger:behind_network). The alert fires above 10 for 5 minutes.",
            unit: units.NoUnit,
            width: 8,
            min: 0,
            queries: [
              {
                expr: 'rpc:stellar_rpc_latest_ledger:behind_network{job=~"$job", rpc=~"$rpc"}',
                legend: "{{rpc}} ({{network}})",
              },
            ],
          }),
          timeseriesPanel({
            title: "Latest ledger age",
            description:
              "Time since each RPC's latest ledger closed. Normally under 20 s; the stale alert fires above 120 s.",
            unit: units.Seconds,
            width: 8,
            min: 0,
            queries: [{ expr: `time() - ${select(RPC_METRICS.latestLedgerClosedTimestamp)}`, legend: "{{rpc}}" }],
          }),
          timeseriesPanel({
            title: "Latest ledger",
            description: "Latest ledger of each RPC (getLatestLedger).",
            unit: units.NoUnit,
            width: 8,
            queries: [{ expr: select(RPC_METRICS.latestLedger), legend: "{{rpc}}" }],
          }),
          timeseriesPanel({
            title: "Retention window",
            description:
              "Ledgers each RPC is configured to keep (getHealth's ledgerRetentionWindow) and those it holds now (latest - oldest + 1). The alert fires below stellar-rpc's default of 120960.",
            unit: units.NoUnit,
            width: 12,
            min: 0,
            queries: [
              { expr: select(RPC_METRICS.retentionWindow), legend: "{{rpc}} window" },
              {
                expr: `${select(RPC_METRICS.latestLedger)} - ${select(RPC_METRICS.oldestLedger)} + 1`,
                legend: "{{rpc}} held",
              },
            ],
          }),
          timeseriesPanel({
            title: "Protocol version",
            description: "Protocol version of each RPC's latest ledger.",
            unit: units.NoUnit,
            width: 12,
            queries: [{ expr: select(RPC_METRICS.protocolVersion), legend: "{{rpc}}" }],
          }),
        ],
      },
      {
        title: "Fees",
        panels: [
          timeseriesPanel({
            title: "Soroban inclusion fee (stroops)",
            description:
              "Percentiles of the Soroban inclusion fee over the RPC's fee window (getFeeStats). The surge alert fires when p50 or p90 exceeds 1000 stroops.",
            unit: units.NoUnit,
            width: 8,
            queries: [
              {
                expr: select(RPC_METRICS.inclusionFee, { matchers: `kind="soroban", ${FEE_PERCENTILES}` }),
                legend: "{{rpc}} {{stat}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Classic inclusion fee (stroops)",
            description:
              "Percentiles of the inclusion fee of classic transactions over the RPC's fee window (getFeeStats).",
            unit: units.NoUnit,
            width: 8,
            queries: [
              {
                expr: select(RPC_METRICS.inclusionFee, { matchers: `kind="classic", ${FEE_PERCENTILES}` }),
                legend: "{{rpc}} {{stat}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Fee statistics window",
            description: "Transactions and ledgers the fee statistics are computed from, by kind.",
            unit: units.NoUnit,
            width: 8,
            min: 0,
            queries: [
              { expr: select(RPC_METRICS.feeStatsTransactions), legend: "{{rpc}} {{kind}} transactions" },
              { expr: select(RPC_METRICS.feeStatsLedgers), legend: "{{rpc}} {{kind}} ledgers" },
            ],
          }),
        ],
      },
      {
        title: "Exporter",
        panels: [
          timeseriesPanel({
            title: "Poll errors by reason",
            description:
              "Failed polls per second by endpoint (status, versions) and reason; rpc_error is a JSON-RPC error from a method other than getHealth.",
            unit: units.OpsPerSecond,
            width: 12,
            min: 0,
            queries: [
              {
                expr: sumRate(RPC_METRICS.pollErrorsTotal, ["rpc", "endpoint", "reason"]),
                legend: "{{rpc}} {{endpoint}} {{reason}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Request duration (p90)",
            description: "90th percentile duration of the JSON-RPC batch requests, body read included.",
            unit: units.Seconds,
            width: 12,
            min: 0,
            queries: [
              {
                expr: histogramQuantile(0.9, RPC_METRICS.requestDuration, ["rpc", "endpoint"]),
                legend: "{{rpc}} {{endpoint}}",
              },
            ],
          }),
        ],
      },
    ],
  });
}
