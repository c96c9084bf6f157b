import { RPC_METRICS } from "../catalog/metrics.js";
import type { RpcClient, RpcVersions } from "../client/rpc-client.js";
import type { NetworkView } from "../runtime/network.js";
import { LatestDocumentCollector, type Collector } from "./collector.js";
import { LABEL_TEXT_BOUNDS, labelText } from "./label-text.js";
import { networkName } from "./root.js";
import type { CollectorSamples } from "../exposition/samples.js";

export function rpcVersionsSamples(versions: RpcVersions | undefined): CollectorSamples {
  if (versions === undefined) return { live: [], persistent: [] };
  const { network, versionInfo } = versions;
  const labels = {
    version: labelText(versionInfo.version, LABEL_TEXT_BOUNDS.version),
    captive_core_version: labelText(versionInfo.captiveCoreVersion, LABEL_TEXT_BOUNDS.version),
    network: networkName(network.passphrase),
    network_passphrase: labelText(network.passphrase, LABEL_TEXT_BOUNDS.networkPassphrase),
  };
  return { live: [{ metric: RPC_METRICS.info, labels, value: 1 }], persistent: [] };
}

export function rpcVersionsCollector(client: RpcClient, network: NetworkView): Collector<"versions"> {
  return new LatestDocumentCollector(
    "versions",
    (signal) => client.versions(signal),
    rpcVersionsSamples,
    ({ network: served }) => network.learn({ passphrase: served.passphrase }),
  );
}
