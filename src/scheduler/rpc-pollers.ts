import type { Logger } from "pino";
import type { RpcEndpoint } from "../catalog/metrics.js";
import { RpcClient } from "../client/rpc-client.js";
import type { RpcExporterMetrics } from "../collectors/rpc-exporter-metrics.js";
import { rpcStatusCollector } from "../collectors/rpc-status.js";
import { rpcVersionsCollector } from "../collectors/rpc-versions.js";
import type { MetricStore } from "../collectors/store.js";
import type { ExporterConfig } from "../config/config.js";
import type { RpcTargetConfig } from "../config/rpc-targets.js";
import { EndpointPoller } from "./endpoint-poller.js";

export interface RpcPollerDependencies {
  readonly store: MetricStore;
  readonly metrics: RpcExporterMetrics;
  readonly log: Logger;
  /** Aborts in-flight requests and retry waits when the target stops. */
  readonly signal: AbortSignal;
}

/** One poller per Stellar RPC endpoint of a target: the frequent status batch and the rare versions batch. */
export function rpcPollers(
  target: RpcTargetConfig,
  config: Pick<ExporterConfig, "retries" | "maxBodyBytes" | "staleAfterIntervals">,
  { store, metrics, log, signal }: RpcPollerDependencies,
): EndpointPoller<RpcEndpoint>[] {
  const client = new RpcClient({
    url: target.url,
    headers: target.headers,
    timeoutMs: target.timeoutMs,
    retries: config.retries,
    maxBodyBytes: config.maxBodyBytes,
    observer: metrics.observerFor(target.name),
    signal,
  });
  return [rpcStatusCollector(client), rpcVersionsCollector(client)].map(
    (collector) =>
      new EndpointPoller<RpcEndpoint>({
        horizon: target.name,
        collector,
        schedule: target.schedules[collector.endpoint],
        staleAfterIntervals: config.staleAfterIntervals,
        store,
        metrics,
        log,
      }),
  );
}
