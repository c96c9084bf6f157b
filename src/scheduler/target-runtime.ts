import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { PollEndpoint, PublishedSource } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import { HorizonClient } from "../client/horizon-client.js";
import { targetHttpOptions } from "../client/http.js";
import type { Collector } from "../collectors/collector.js";
import type { EndpointPublisher } from "./publisher.js";
import type { ExporterMetrics } from "../exposition/self-metrics.js";
import type { MetricStore } from "../exposition/store.js";
import { redactUrl, type ExporterConfig, type TargetConfig } from "../config/config.js";
import { pollersFor, type EndpointPoller } from "./endpoint-poller.js";
import { plannedRequestsPerHour } from "./request-plan.js";
import { Scheduler } from "./scheduler.js";

export interface RuntimeServices {
  readonly store: MetricStore;
  readonly metrics: ExporterMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** A prober runs on its own schedule beside the collectors, once their first polls have ended. */
export interface Prober {
  start(): void;
  stop(): Promise<void>;
  run(): Promise<void>;
}

/** What one target polls and probes, all through its one client. */
export interface TargetSurfaces {
  readonly collectors: readonly Collector[];
  readonly probe?: Prober;
}

export type SurfaceFactory = (
  config: ExporterConfig,
  target: TargetConfig,
  parts: { readonly client: HorizonClient; readonly store: MetricStore; readonly log: Logger },
) => TargetSurfaces;

/**
 * Stops everything of one target. Each of its polls, requests in flight and retry waits listens to
 * it, so a busy target legitimately passes Node's default warning threshold of 10 listeners.
 */
export function targetAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(100, controller.signal);
  return controller;
}

/** Everything that polls one target, a Horizon or a Stellar RPC; rebuilt only when its configuration changes. */
export interface Runtime {
  /** The target's label value. */
  readonly name: string;
  /** What the landing page calls it. */
  readonly title: string;
  /** Without credentials. */
  readonly url: string;
  /** Equal keys mean the runtime can be kept across a reload. */
  readonly key: string;
  readonly pollers: readonly EndpointPoller<PollEndpoint>[];
  readonly probe?: Prober | undefined;
  /** What the target publishes to the store, to forget when it leaves. */
  readonly sources: readonly PublishedSource[];
  /** Starts every schedule; resolves when every first poll has ended. */
  start(): Promise<void>;
  /** Aborts the polls in flight and stops scheduling and publishing. */
  stop(): Promise<void>;
  /** Drops the target's self-metrics once it has left. */
  forgetMetrics(): Promise<void>;
}

/** Everything that polls one Horizon: its client, a poller and publisher per collector, their schedules, its probe. */
export class TargetRuntime implements Runtime {
  readonly key: string;
  readonly name: string;
  readonly title: string;
  readonly url: string;
  readonly sources: readonly PublishedSource[];
  readonly pollers: readonly EndpointPoller[];
  readonly probe: Prober | undefined;
  private readonly publishers: readonly EndpointPublisher[];
  private readonly scheduler: Scheduler;
  private readonly abort = targetAbortController();

  static keyFor(target: TargetConfig, config: ExporterConfig): string {
    const { retries, maxBodyBytes, ledgers, liquidityPools, staleAfterIntervals } = config;
    return JSON.stringify({ target, retries, maxBodyBytes, ledgers, liquidityPools, staleAfterIntervals });
  }

  constructor(
    readonly target: TargetConfig,
    config: ExporterConfig,
    surfacesFor: SurfaceFactory,
    { store, metrics, logger, clock }: RuntimeServices,
  ) {
    this.key = TargetRuntime.keyFor(target, config);
    this.name = target.name;
    this.title = target.name;
    this.url = redactUrl(target.url);
    this.forgetMetrics = () => metrics.removeTarget(target.name);
    const log = logger.child({ horizon: target.name });
    const planned = plannedRequestsPerHour(target, config);
    metrics.addTarget(target.name, planned, target.requestBudgetPerHour);
    if (planned > target.requestBudgetPerHour) {
      log.warn(
        { plannedRequestsPerHour: planned, requestBudgetPerHour: target.requestBudgetPerHour },
        "schedules plan more requests per hour than this Horizon's budget: lengthen the poll intervals, track fewer pools or watch fewer accounts",
      );
    }
    const client = new HorizonClient(
      targetHttpOptions(target, config, { observer: metrics.observerFor(target.name), signal: this.abort.signal, clock, log }),
    );
    const { collectors, probe } = surfacesFor(config, target, { client, store, log });
    this.probe = probe;
    const polling = { ...target, ...config, store, metrics, log, clock, signal: this.abort.signal };
    ({ pollers: this.pollers, publishers: this.publishers } = pollersFor(collectors, polling));
    this.scheduler = new Scheduler(this.pollers, clock);
    this.sources = [...this.pollers.map((poller) => poller.endpoint), ...(probe ? (["tx_probe"] as const) : [])];
  }

  readonly forgetMetrics: () => Promise<void>;

  /** Starts every schedule; resolves when every first poll has ended. The probe waits for them: they tell it the network and the fees. */
  async start(): Promise<void> {
    await this.scheduler.start();
    this.probe?.start();
  }

  /** Aborts the polls in flight and stops scheduling and publishing. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all([this.scheduler.stop(), this.probe?.stop()]);
    for (const publisher of this.publishers) publisher.stop();
  }
}
