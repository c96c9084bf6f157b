import { KNOWN_NETWORKS } from "../agreement/network.js";
import { METRICS } from "../catalog/metrics.js";
import type { HorizonRoot } from "../client/schemas.js";
import type { HorizonJobParts } from "../job/job.js";
import type { LedgerClose } from "../job/network.js";
import { latestDocumentJob } from "./collector.js";
import { LABEL_TEXT_BOUNDS, labelText } from "./label-text.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";

/** The info series' network labels: SDF's networks by name, any other as "custom", and the passphrase itself. */
export function networkLabels(passphrase: string) {
  const network = KNOWN_NETWORKS[passphrase] ?? "custom";
  return { network, network_passphrase: labelText(passphrase, LABEL_TEXT_BOUNDS.networkPassphrase) };
}

/** The latest ledger Horizon ingested and its close time, when it tells the time: what the markets poll judges a
 * bucket complete by. */
function latestClose(root: HorizonRoot): LedgerClose | undefined {
  const closedAt = root.history_latest_ledger_closed_at;
  return closedAt === undefined
    ? undefined
    : { sequence: root.history_latest_ledger, closeTime: Date.parse(closedAt) / 1000 };
}

export function rootSamples(root: HorizonRoot | undefined, lastPollSucceeded: boolean): CollectorSamples {
  const persistent: Sample[] = [{ metric: METRICS.up, value: lastPollSucceeded ? 1 : 0 }];
  if (root === undefined) return { live: [], persistent };
  const labels = {
    horizon_version: labelText(root.horizon_version, LABEL_TEXT_BOUNDS.version),
    core_version: labelText(root.core_version, LABEL_TEXT_BOUNDS.version),
    ...networkLabels(root.network_passphrase),
  };
  const live: Sample[] = [
    { metric: METRICS.info, labels, value: 1 },
    { metric: METRICS.ingestLatestLedger, value: root.ingest_latest_ledger },
    { metric: METRICS.historyLatestLedger, value: root.history_latest_ledger },
    { metric: METRICS.historyElderLedger, value: root.history_elder_ledger },
    { metric: METRICS.coreLatestLedger, value: root.core_latest_ledger },
    { metric: METRICS.currentProtocolVersion, value: root.current_protocol_version },
    { metric: METRICS.coreSupportedProtocolVersion, value: root.core_supported_protocol_version },
  ];
  // Core at 0 is core not known yet (captive core restarting): a lag against it would be hugely negative.
  if (root.core_latest_ledger > 0)
    live.push({ metric: METRICS.ingestLagLedgers, value: root.core_latest_ledger - root.ingest_latest_ledger });
  const close = latestClose(root);
  if (close !== undefined) live.push({ metric: METRICS.historyLatestLedgerClosedTimestamp, value: close.closeTime });
  if (root.supported_protocol_version !== undefined)
    live.push({ metric: METRICS.supportedProtocolVersion, value: root.supported_protocol_version });
  return { live, persistent };
}

/** A Horizon's root poll: its cheapest, so the heartbeat that notices the upstream heal. */
export function rootJob({ client, network, target }: HorizonJobParts) {
  return latestDocumentJob({
    source: "root",
    schedule: target.schedules.root,
    heartbeat: true,
    fetch: (signal) => client.root(signal),
    samples: rootSamples,
    learn: (root) =>
      network.learn({
        passphrase: root.network_passphrase,
        latestLedger: root.history_latest_ledger,
        protocolVersion: root.current_protocol_version,
        latestLedgerClose: latestClose(root),
      }),
  });
}
