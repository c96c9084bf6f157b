import { TableSortByFieldStateBuilder } from "@grafana/grafana-foundation-sdk/common";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { RPC_METRICS, type MetricDefinition } from "../../src/catalog/metrics.js";
import {
  columns,
  dashboard,
  multiValueVariable,
  select,
  statPanel,
  sumRate,
  tablePanel,
  timeseriesPanel,
} from "./common.js";

const SECONDS_PER_DAY = 86_400;

/** A contract metric on the dashboard's job, RPC and contract variables. */
function selectContract(metric: MetricDefinition, matchers?: string): string {
  return select(metric, { matchers: ['contract=~"$contract"', ...(matchers ? [matchers] : [])].join(", ") });
}

const DAYS_LEFT = `(${selectContract(RPC_METRICS.contractEntryExpiry)} - time()) / ${SECONDS_PER_DAY}`;
const CONTRACT_MATCHER = 'contract=~"$contract"';

/** The events row: what each contract emits, how long since its last event, and its upgrades. */
function eventsRow() {
  return {
    title: "Events",
    panels: [
      timeseriesPanel({
        title: "Events by topic",
        description:
          "Events per second of each contract with events: true, by type (contract, system) and first topic: a symbol or string as its text, else its ScVal type; a contract's first 50 topics, later ones as other.",
        unit: units.OpsPerSecond,
        width: 12,
        min: 0,
        queries: [
          {
            expr: sumRate(RPC_METRICS.contractEvents, ["rpc", "contract", "type", "topic"], {
              matchers: CONTRACT_MATCHER,
            }),
            legend: "{{contract}} {{topic}} ({{type}}, {{rpc}})",
          },
        ],
      }),
      timeseriesPanel({
        title: "Last event age",
        description:
          "Time since the ledger of each contract's newest event closed, with its expect_events_within where configured: StellarContractSilent fires once the age stays above it for 5 minutes.",
        unit: units.Seconds,
        width: 12,
        min: 0,
        queries: [
          { expr: `time() - ${selectContract(RPC_METRICS.contractLastEvent)}`, legend: "{{contract}} ({{rpc}})" },
          {
            expr: selectContract(RPC_METRICS.contractEventsExpectedWithin),
            legend: "{{contract}} expected within ({{rpc}})",
          },
        ],
      }),
      timeseriesPanel({
        title: "Upgrades",
        description:
          "executable_update system events of each watched contract: its code was replaced. StellarContractUpgraded fires for an hour after each.",
        unit: units.NoUnit,
        width: 12,
        min: 0,
        queries: [
          {
            expr: `sum by (rpc, contract) (increase(${selectContract(RPC_METRICS.contractUpgrades)}[$__rate_interval]))`,
            legend: "{{contract}} ({{rpc}})",
          },
        ],
      }),
      timeseriesPanel({
        title: "Failed-call events and skipped ledgers",
        description:
          "Events the RPC returned from contract calls that failed (inSuccessfulContractCall false), and ledgers of events never read because the exporter's cursor left the RPC's retention window (StellarContractEventsGap).",
        unit: units.NoUnit,
        width: 12,
        min: 0,
        queries: [
          {
            expr: `sum by (rpc, contract) (increase(${selectContract(RPC_METRICS.contractFailedCallEvents)}[$__rate_interval]))`,
            legend: "{{contract}} failed-call events ({{rpc}})",
          },
          {
            expr: `sum by (rpc) (increase(${select(RPC_METRICS.contractEventsSkippedLedgers)}[$__rate_interval]))`,
            legend: "skipped ledgers ({{rpc}})",
          },
        ],
      }),
    ],
  };
}

/** Watched Soroban contracts: how long each entry has until archival, what is archived or gone, and the network's limits. */
export function contractsDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-rpc-contracts",
    title: "Stellar RPC / Contracts",
    description:
      "Time to archival of every watched Soroban contract's instance, code and storage entries, archived and missing entries, the network's state-archival limits, and the events of contracts with events: true.",
    targetLabel: "rpc",
    time: { from: "now-7d", to: "now" },
    extraVariables: [
      multiValueVariable(
        "contract",
        "Contract",
        `label_values(${RPC_METRICS.contractInfo.name}{job=~"$job", rpc=~"$rpc"}, contract)`,
      ),
    ],
    rows: [
      {
        title: "Time to archival",
        panels: [
          tablePanel({
            title: "Entries by time to archival",
            description:
              "Days each live entry has until it is archived, soonest first: its TTL in ledgers at the RPC's mean close interval over the last hour. The warning alert fires under 14 days, the critical one under 3. Archived and unknown entries have no row.",
            unit: units.Days,
            width: 16,
            height: 10,
            queries: [{ expr: `sort(${DAYS_LEFT})` }],
            transformations: [
              columns({
                rpc: "RPC",
                contract: "Contract",
                entry: "Entry",
                durability: "Durability",
                Value: "Days left",
              }),
            ],
          }).sortBy([new TableSortByFieldStateBuilder().displayName("Days left").desc(false)]),
          statPanel({
            title: "Archived entries",
            description:
              "Watched entries the RPC reports archived (stellar_rpc_contract_entry_archived). Calls that touch them fail until they are restored.",
            unit: units.NoUnit,
            width: 4,
            height: 5,
            queries: [{ expr: `sum(${selectContract(RPC_METRICS.contractEntryArchived)}) or vector(0)` }],
          }),
          statPanel({
            title: "Missing instances or code",
            description:
              "Watched contracts whose instance or wasm code entry the RPC does not return (stellar_rpc_contract_entry_exists 0): the contract or its wasm is gone, or the id is wrong.",
            unit: units.NoUnit,
            width: 4,
            height: 5,
            queries: [
              {
                expr: `count(${selectContract(RPC_METRICS.contractEntryExists, 'entry=~"instance|code"')} == 0) or vector(0)`,
              },
            ],
          }),
        ],
      },
      {
        title: "Over time",
        panels: [
          timeseriesPanel({
            title: "Days left",
            description: "Days each live entry has until it is archived. A TTL extension shows as a step up.",
            unit: units.Days,
            width: 12,
            min: 0,
            queries: [{ expr: DAYS_LEFT, legend: "{{contract}} {{entry}} ({{rpc}})" }],
          }),
          timeseriesPanel({
            title: "TTL (ledgers)",
            description:
              "liveUntilLedgerSeq minus the response's latestLedger, per live entry (stellar_rpc_contract_entry_ttl_ledgers).",
            unit: units.NoUnit,
            width: 12,
            min: 0,
            queries: [
              { expr: selectContract(RPC_METRICS.contractEntryTtl), legend: "{{contract}} {{entry}} ({{rpc}})" },
            ],
          }),
        ],
      },
      {
        title: "Contracts and network limits",
        panels: [
          tablePanel({
            title: "Contracts",
            description:
              "Each watched contract's id, executable (wasm, or stellar_asset for a Stellar Asset Contract, which has no code entry) and wasm hash.",
            unit: units.String,
            width: 16,
            height: 6,
            queries: [{ expr: selectContract(RPC_METRICS.contractInfo) }],
            transformations: [
              columns({
                rpc: "RPC",
                contract: "Contract",
                contract_id: "Contract id",
                executable: "Executable",
                wasm_hash: "Wasm hash",
              }),
            ],
          }),
          tablePanel({
            title: "State-archival limits (ledgers)",
            description:
              "The network's CONFIG_SETTING_STATE_ARCHIVAL: the longest TTL an extension can reach, and the TTL of new or restored persistent and new temporary entries.",
            unit: units.NoUnit,
            width: 8,
            height: 6,
            queries: [
              { expr: select(RPC_METRICS.stateArchivalMaxEntryTtl), legend: "max entry TTL" },
              { expr: select(RPC_METRICS.stateArchivalMinPersistentTtl), legend: "min persistent TTL" },
              { expr: select(RPC_METRICS.stateArchivalMinTemporaryTtl), legend: "min temporary TTL" },
            ],
            transformations: [
              { id: "merge", options: {} },
              columns({
                rpc: "RPC",
                "Value #A": "Max entry TTL",
                "Value #B": "Min persistent TTL",
                "Value #C": "Min temporary TTL",
              }),
            ],
          }),
        ],
      },
      eventsRow(),
    ],
  });
}
