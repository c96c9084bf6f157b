import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import { HorizonClient } from "../client/horizon-client.js";
import type { Collector } from "../collectors/collector.js";
import { EndpointPublisher } from "../collectors/publisher.js";
import type { ExporterMetrics } from "../collectors/self-metrics.js";
import type { MetricStore } from "../collectors/store.js";
import type { ExporterConfig, TargetConfig } from "../config/config.js";
import { EndpointPoller, pollDeadlineMs } from "./endpoint-poller.js";
import { plannedRequestsPerHour } from "./request-plan.js";
import { Scheduler } from "./scheduler.js";

export interface RuntimeServices {
  readonly store: MetricStore;
  readonly metrics: ExporterMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** The collectors of one target, all sharing its client. */
export type CollectorFactory = (config: ExporterConfig, client: HorizonClient, log: Logger) => Collector[];

/** Everything that polls one target: its client, a poller and publisher per collector, their schedules. */
export class TargetRuntime {
  /** Equal keys mean the runtime can be kept across a reload. */
  readonly key: string;
  readonly pollers: readonly EndpointPoller[];
  private readonly publishers: EndpointPublisher[] = [];
  private readonly scheduler: Scheduler;
  private readonly abort = new AbortController();

  static keyFor(target: TargetConfig, config: ExporterConfig): string {
    const { retries, maxBodyBytes, ledgers, liquidityPools, staleAfterIntervals } = config;
    return JSON.stringify({ target, retries, maxBodyBytes, ledgers, liquidityPools, staleAfterIntervals });
  }

  constructor(
    readonly target: TargetConfig,
    config: ExporterConfig,
    collectorsFor: CollectorFactory,
    { store, metrics, logger, clock }: RuntimeServices,
  ) {
    this.key = TargetRuntime.keyFor(target, config);
    const log = logger.child({ horizon: target.name });
    const planned = plannedRequestsPerHour(target, config);
    metrics.addTarget(target.name, planned, target.requestBudgetPerHour);
    if (planned > target.requestBudgetPerHour) {
      log.warn(
        { plannedRequestsPerHour: planned, requestBudgetPerHour: target.requestBudgetPerHour },
        "schedules plan more requests per hour than this Horizon's budget: lengthen the poll intervals or track fewer pools",
      );
    }
    const client = new HorizonClient({
      url: target.url,
      headers: target.headers,
      timeoutMs: target.timeoutMs,
      retries: config.retries,
      maxBodyBytes: config.maxBodyBytes,
      observer: metrics.observerFor(target.name),
      signal: this.abort.signal,
      clock,
    });
    this.pollers = collectorsFor(config, client, log).map((collector) => {
      const schedule = target.schedules[collector.endpoint];
      const publisher = new EndpointPublisher(target.name, collector, store, config.staleAfterIntervals * schedule.periodMs, clock);
      this.publishers.push(publisher);
      return new EndpointPoller({
        horizon: target.name,
        collector,
        publisher,
        schedule,
        deadlineMs: pollDeadlineMs(schedule, config.staleAfterIntervals, target.timeoutMs, config.retries),
        metrics,
        log,
        clock,
        signal: this.abort.signal,
      });
    });
    this.scheduler = new Scheduler(this.pollers, clock);
  }

  /** Starts every schedule; resolves when every first poll has ended. */
  start(): Promise<void> {
    return this.scheduler.start();
  }

  /** Aborts the polls in flight and stops scheduling and publishing. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.scheduler.stop();
    for (const publisher of this.publishers) publisher.stop();
  }
}
