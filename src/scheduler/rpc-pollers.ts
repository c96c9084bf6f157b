import type { Logger } from "pino";
import type { RpcEndpoint } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import { RpcClient } from "../client/rpc-client.js";
import { EndpointPublisher } from "../collectors/publisher.js";
import type { RpcExporterMetrics } from "../collectors/rpc-exporter-metrics.js";
import { rpcStatusCollector } from "../collectors/rpc-status.js";
import { rpcVersionsCollector } from "../collectors/rpc-versions.js";
import type { MetricStore } from "../collectors/store.js";
import type { ExporterConfig } from "../config/config.js";
import type { RpcTargetConfig } from "../config/rpc-targets.js";
import { EndpointPoller, pollDeadlineMs } from "./endpoint-poller.js";

export interface RpcPollerDependencies {
  readonly store: MetricStore;
  readonly metrics: RpcExporterMetrics;
  readonly log: Logger;
  readonly clock: Clock;
  /** Aborts in-flight requests, retry waits and polls when the target stops. */
  readonly signal: AbortSignal;
}

/**
 * A Stellar RPC target's pollers, one per endpoint (the frequent status batch and the rare
 * versions batch), each with its publisher, on the same deadlines and freshness as a Horizon's.
 */
export function rpcPollers(
  target: RpcTargetConfig,
  config: Pick<ExporterConfig, "retries" | "maxBodyBytes" | "staleAfterIntervals">,
  { store, metrics, log, clock, signal }: RpcPollerDependencies,
): { pollers: EndpointPoller<RpcEndpoint>[]; publishers: EndpointPublisher<RpcEndpoint>[] } {
  const client = new RpcClient({
    url: target.url,
    headers: target.headers,
    timeoutMs: target.timeoutMs,
    retries: config.retries,
    maxBodyBytes: config.maxBodyBytes,
    observer: metrics.observerFor(target.name),
    signal,
    clock,
  });
  const publishers: EndpointPublisher<RpcEndpoint>[] = [];
  const pollers = [rpcStatusCollector(client), rpcVersionsCollector(client)].map((collector) => {
    const schedule = target.schedules[collector.endpoint];
    const publisher = new EndpointPublisher<RpcEndpoint>(target.name, collector, store, config.staleAfterIntervals * schedule.periodMs, clock);
    publishers.push(publisher);
    return new EndpointPoller<RpcEndpoint>({
      horizon: target.name,
      collector,
      publisher,
      schedule,
      deadlineMs: pollDeadlineMs(schedule, config.staleAfterIntervals, target.timeoutMs, config.retries),
      metrics,
      log,
      clock,
      signal,
    });
  });
  return { pollers, publishers };
}
