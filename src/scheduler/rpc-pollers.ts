import type { Logger } from "pino";
import type { PublishedSource, RpcEndpoint } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import { targetHttpOptions } from "../client/http.js";
import { RpcClient } from "../client/rpc-client.js";
import type { EndpointPublisher } from "./publisher.js";
import type { RpcExporterMetrics } from "../exposition/rpc-exporter-metrics.js";
import { rpcStatusCollector } from "../collectors/rpc-status.js";
import { rpcVersionsCollector } from "../collectors/rpc-versions.js";
import type { MetricStore } from "../exposition/store.js";
import { redactUrl, type ExporterConfig } from "../config/config.js";
import type { RpcTargetConfig } from "../config/rpc-targets.js";
import { pollersFor, type EndpointPoller } from "./endpoint-poller.js";
import { Scheduler } from "./scheduler.js";
import { targetAbortController, type Runtime } from "./target-runtime.js";

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
  const client = new RpcClient(targetHttpOptions(target, config, { observer: metrics.observerFor(target.name), signal, clock, log }));
  const polling = { ...target, ...config, store, metrics, log, clock, signal };
  return pollersFor([rpcStatusCollector(client), rpcVersionsCollector(client)], polling);
}

/** Everything that polls one Stellar RPC: its pollers and publishers on their schedules. */
export class RpcRuntime implements Runtime {
  readonly key: string;
  readonly name: string;
  readonly title: string;
  readonly url: string;
  readonly pollers: readonly EndpointPoller<RpcEndpoint>[];
  readonly sources: readonly PublishedSource[];
  private readonly publishers: readonly EndpointPublisher<RpcEndpoint>[];
  private readonly scheduler: Scheduler;
  private readonly abort = targetAbortController();

  static keyFor(rpc: RpcTargetConfig, config: ExporterConfig): string {
    const { retries, maxBodyBytes, staleAfterIntervals } = config;
    return JSON.stringify({ rpc, retries, maxBodyBytes, staleAfterIntervals });
  }

  constructor(
    target: RpcTargetConfig,
    config: ExporterConfig,
    { store, metrics, logger, clock }: { readonly store: MetricStore; readonly metrics: RpcExporterMetrics; readonly logger: Logger; readonly clock: Clock },
  ) {
    metrics.addTarget(target.name);
    this.key = RpcRuntime.keyFor(target, config);
    this.name = target.name;
    this.title = `${target.name} (Stellar RPC)`;
    this.url = redactUrl(target.url);
    const log = logger.child({ rpc: target.name });
    const { pollers, publishers } = rpcPollers(target, config, { store, metrics, log, clock, signal: this.abort.signal });
    this.pollers = pollers;
    this.publishers = publishers;
    this.sources = pollers.map((poller) => poller.endpoint);
    this.scheduler = new Scheduler(pollers, clock);
    this.forgetMetrics = () => metrics.removeTarget(target.name);
  }

  readonly forgetMetrics: () => Promise<void>;

  async start(): Promise<void> {
    await this.scheduler.start();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.scheduler.stop();
    for (const publisher of this.publishers) publisher.stop();
  }
}
