import { RPC_METRICS } from "../catalog/metrics.js";
import type { RpcVersions } from "../client/rpc-client.js";
import type { RpcJobParts } from "../job/job.js";
import { latestDocumentJob } from "./collector.js";
import { LABEL_TEXT_BOUNDS, labelText } from "./label-text.js";
import { networkLabels } from "./root.js";
import type { CollectorSamples } from "../exposition/samples.js";

export function rpcVersionsSamples(versions: RpcVersions | undefined): CollectorSamples {
  if (versions === undefined) return { live: [], persistent: [] };
  const { network, versionInfo } = versions;
  const labels = {
    version: labelText(versionInfo.version, LABEL_TEXT_BOUNDS.version),
    captive_core_version: labelText(versionInfo.captiveCoreVersion, LABEL_TEXT_BOUNDS.version),
    ...networkLabels(network.passphrase),
  };
  return { live: [{ metric: RPC_METRICS.info, labels, value: 1 }], persistent: [] };
}

/** A Stellar RPC's rare versions batch (getNetwork, getVersionInfo). */
export function rpcVersionsJob({ client, network, target }: RpcJobParts) {
  return latestDocumentJob({
    source: "versions",
    schedule: target.schedules.versions,
    fetch: (signal) => client.versions(signal),
    samples: rpcVersionsSamples,
    learn: ({ network: served }) => network.learn({ passphrase: served.passphrase }),
  });
}
