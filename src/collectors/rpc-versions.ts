import { RPC_METRICS } from "../catalog/metrics.js";
import type { RpcClient, RpcVersions } from "../client/rpc-client.js";
import { LatestDocumentCollector, type Collector } from "./collector.js";
import { networkName } from "./root.js";
import type { CollectorSamples } from "../exposition/samples.js";

export function rpcVersionsSamples(versions: RpcVersions | undefined): CollectorSamples {
  if (versions === undefined) return { live: [], persistent: [] };
  const { network, versionInfo } = versions;
  const labels = {
    version: versionInfo.version,
    captive_core_version: versionInfo.captiveCoreVersion,
    network: networkName(network.passphrase),
    network_passphrase: network.passphrase,
  };
  return { live: [{ metric: RPC_METRICS.info, labels, value: 1 }], persistent: [] };
}

export function rpcVersionsCollector(client: RpcClient): Collector<"versions"> {
  return new LatestDocumentCollector("versions", (signal) => client.versions(signal), rpcVersionsSamples);
}
