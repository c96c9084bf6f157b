import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { AGREEMENT_METRICS, METRICS, type MetricDefinition } from "../../src/catalog/metrics.js";
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

/**
 * The probe runs about once a minute: a panel interval of at least 5 minutes makes
 * $__rate_interval long enough to hold several runs.
 */
const PROBE_MIN_INTERVAL = "5m";

function probeMedianAndP90Panel(title: string, description: string, unit: string, metric: MetricDefinition) {
  return timeseriesPanel({
    title,
    description,
    unit,
    width: 8,
    min: 0,
    queries: [0.5, 0.9].map((quantile) => ({
      expr: histogramQuantile(quantile, metric, ["horizon"]),
      legend: `{{horizon}} p${quantile * 100}`,
    })),
  }).interval(PROBE_MIN_INTERVAL);
}

/** The agreement series are labelled by network, kind and target, not by a target label. */
const AGREEMENT_LABELS = ["network", "kind", "target"] as const;
const AGREEMENT_LEGEND = "{{network}} {{kind}} {{target}}";

/** The first dashboard to open: is every Horizon up, ingesting and current, and on which versions. */
export function overviewDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-horizon-overview",
    title: "Stellar Horizon / Overview",
    description:
      "Health of every Horizon the exporter polls: reachability, ingestion lag, ledger age, versions and protocol.",
    rows: [
      {
        title: "Targets",
        panels: [
          statPanel({
            title: "Horizons polled",
            description: "Number of Horizon targets the selected exporters poll.",
            unit: units.NoUnit,
            width: 4,
            height: 5,
            queries: [{ expr: `count(${select(METRICS.up)})` }],
          }),
          statPanel({
            title: "Horizon up",
            description: "Whether the last poll of each Horizon's root endpoint succeeded (stellar_horizon_up).",
            unit: units.NoUnit,
            width: 20,
            height: 5,
            mappings: UP_DOWN_MAPPINGS,
            queries: [{ expr: select(METRICS.up), legend: "{{horizon}}" }],
          }),
        ],
      },
      {
        title: "Ingestion",
        panels: [
          timeseriesPanel({
            title: "Ingestion lag",
            description:
              "Ledgers stellar-core is ahead of Horizon's ingestion. Alerts: above 10 (warning) and 30 (critical) for 5 minutes.",
            unit: units.NoUnit,
            width: 8,
            min: 0,
            queries: [{ expr: select(METRICS.ingestLagLedgers), legend: "{{horizon}}" }],
          }),
          timeseriesPanel({
            title: "Latest ledger age",
            description:
              "Time since the latest ledger in Horizon's history closed. Normally under 20 s; the stale alert fires above 120 s.",
            unit: units.Seconds,
            width: 8,
            min: 0,
            queries: [
              { expr: `time() - ${select(METRICS.historyLatestLedgerClosedTimestamp)}`, legend: "{{horizon}}" },
            ],
          }),
          timeseriesPanel({
            title: "History retained",
            description: "Ledgers between the oldest and the latest ledger in Horizon's history database.",
            unit: units.NoUnit,
            width: 8,
            min: 0,
            queries: [
              {
                expr: `${select(METRICS.historyLatestLedger)} - ${select(METRICS.historyElderLedger)}`,
                legend: "{{horizon}}",
              },
            ],
          }),
        ],
      },
      {
        title: "Agreement",
        panels: [
          statPanel({
            title: "Targets per network",
            description:
              "Horizons and Stellar RPCs serving each network, as their passphrases say (pubnet, testnet, futurenet, else the first 8 hex digits of the passphrase's SHA-256). Targets are compared only with the others of their network.",
            unit: units.NoUnit,
            width: 4,
            queries: [{ expr: select(AGREEMENT_METRICS.networkTargets), legend: "{{network}}" }],
          }),
          timeseriesPanel({
            title: "Ledger hash disagreements",
            description:
              "Ledgers per second at which a target's hash was judged wrong against the other targets of its network (the majority of three or more; with two, both count). Anything above 0 fires StellarTargetLedgerHashDisagrees: the target serves another history.",
            unit: units.EventsPerSecond,
            width: 8,
            min: 0,
            queries: [
              { expr: sumRate(AGREEMENT_METRICS.ledgerHashDisagreements, AGREEMENT_LABELS), legend: AGREEMENT_LEGEND },
            ],
          }),
          timeseriesPanel({
            title: "Ledger hash comparisons",
            description:
              "Ledgers per second at which a target's hash was compared with another target's of its network. A target alone on its network, or whose network is not known yet, is compared with nobody and cannot disagree.",
            unit: units.EventsPerSecond,
            width: 6,
            min: 0,
            queries: [
              { expr: sumRate(AGREEMENT_METRICS.ledgerHashComparisons, AGREEMENT_LABELS), legend: AGREEMENT_LEGEND },
            ],
          }),
          timeseriesPanel({
            title: "Protocol behind",
            description:
              "The network's highest protocol reported by any of its targets minus the one each target reports. StellarTargetProtocolBehind fires after 30 minutes above 0.",
            unit: units.NoUnit,
            width: 6,
            min: 0,
            queries: [{ expr: select(AGREEMENT_METRICS.protocolBehind), legend: AGREEMENT_LEGEND }],
          }),
        ],
      },
      {
        title: "Transaction probe",
        panels: [
          timeseriesPanel({
            title: "Probe success ratio",
            description:
              "Share of the transaction probe's submissions (targets with tx_probe) that reached a ledger, over at least 5 minutes (the probe runs about once a minute). StellarTransactionProbeFailing fires when none succeeded for 3 intervals.",
            unit: units.PercentUnit,
            width: 8,
            min: 0,
            max: 1,
            queries: [
              {
                expr: `1 - ${sumRate(METRICS.txProbeFailures, ["horizon"])} / ${sumRate(METRICS.txProbeSubmissions, ["horizon"])}`,
                legend: "{{horizon}}",
              },
            ],
          }).interval(PROBE_MIN_INTERVAL),
          probeMedianAndP90Panel(
            "Probe duration",
            "Time from submission to Horizon's answer that the transaction is in a ledger, p50 and p90 over at least 5 minutes. StellarTransactionProbeSlow fires when p90 stays above 15 s.",
            units.Seconds,
            METRICS.txProbeDuration,
          ),
          probeMedianAndP90Panel(
            "Probe inclusion ledgers",
            "Ledgers between the latest one known at submission and the one that included the probe's transaction, p50 and p90 over at least 5 minutes. 1 or 2 is normal; more means surge pricing or a busy network.",
            units.NoUnit,
            METRICS.txProbeInclusionLedgers,
          ),
        ],
      },
      {
        title: "Versions and protocol",
        panels: [
          tablePanel({
            title: "Versions",
            description: "Horizon and stellar-core versions and the network each Horizon serves.",
            unit: units.String,
            width: 14,
            queries: [{ expr: select(METRICS.info) }],
            transformations: [
              columns({
                horizon: "Horizon",
                network: "Network",
                horizon_version: "Horizon version",
                core_version: "Core version",
              }),
            ],
          }),
          tablePanel({
            title: "Protocol versions",
            description:
              "The network's current protocol and the highest protocols Horizon and its stellar-core support. A higher core or Horizon protocol means an upgrade is pending; a current protocol above Horizon's means Horizon cannot ingest.",
            unit: units.NoUnit,
            width: 10,
            queries: [
              { expr: select(METRICS.currentProtocolVersion) },
              { expr: select(METRICS.supportedProtocolVersion) },
              { expr: select(METRICS.coreSupportedProtocolVersion) },
            ],
            transformations: [
              { id: "merge", options: {} },
              columns({
                horizon: "Horizon",
                "Value #A": "Network protocol",
                "Value #B": "Horizon supports",
                "Value #C": "Core supports",
              }),
            ],
          }),
        ],
      },
    ],
  });
}
