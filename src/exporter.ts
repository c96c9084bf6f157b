import { pino, type Logger } from "pino";
import { HorizonClient } from "./client/horizon-client.js";
import type { Collector } from "./collectors/collector.js";
import { ExporterMetrics } from "./collectors/exporter.js";
import { FeeStatsCollector } from "./collectors/fee-stats.js";
import { LedgersCollector } from "./collectors/ledgers.js";
import { LiquidityPoolsCollector } from "./collectors/liquidity-pools.js";
import { RootCollector } from "./collectors/root.js";
import { MetricStore } from "./collectors/store.js";
import { redactUrl, type ExporterConfig } from "./config/config.js";
import { EndpointPoller } from "./scheduler/endpoint-poller.js";
import { plannedRequestsPerHour } from "./scheduler/request-plan.js";
import { Scheduler } from "./scheduler/scheduler.js";
import { createServerApp } from "./server/app.js";
import { listen } from "./server/listen.js";
import { VERSION } from "./version.js";

export interface RunningExporter {
  /** Base URL of the HTTP server. */
  readonly url: string;
  /** Resolves when every target's endpoints have been polled once. */
  readonly firstPolls: Promise<void>;
  /** Polls every endpoint of every target once more, now; for tests and tools. */
  pollAll(): Promise<void>;
  /** Stops polling, aborts requests in flight and closes the server. */
  close(): Promise<void>;
}

function collectorsFor(config: ExporterConfig, client: HorizonClient, log: Logger): Collector[] {
  return [
    new RootCollector(client),
    new FeeStatsCollector(client),
    new LedgersCollector(client, config.ledgers, log.child({ endpoint: "ledgers" })),
    new LiquidityPoolsCollector(client, config.liquidityPools),
  ];
}

export async function startExporter(
  config: ExporterConfig,
  options: { logger?: Logger } = {},
): Promise<RunningExporter> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const metrics = new ExporterMetrics(VERSION);
  const store = new MetricStore();
  metrics.configLoaded(true);
  const shutdown = new AbortController();

  const targets = config.targets.map((target) => {
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
      signal: shutdown.signal,
    });
    const pollers = collectorsFor(config, client, log).map(
      (collector) =>
        new EndpointPoller({
          horizon: target.name,
          collector,
          schedule: target.schedules[collector.endpoint],
          staleAfterIntervals: config.staleAfterIntervals,
          store,
          metrics,
          log,
        }),
    );
    return { target, pollers };
  });
  const pollers = targets.flatMap(({ pollers }) => pollers);

  const app = createServerApp({
    version: VERSION,
    ...(config.web ? { web: config.web } : {}),
    renderMetrics: async () => store.render(Date.now()) + (await metrics.render()),
    targets: () =>
      targets.map(({ target, pollers }) => ({
        name: target.name,
        url: redactUrl(target.url),
        endpoints: pollers.map((poller) => poller.snapshot()),
      })),
    isReady: () => pollers.every((poller) => poller.snapshot().polls > 0),
  });
  const server = await listen(app, config.listen.host, config.listen.port, config.web?.tls);
  const scheduler = new Scheduler(pollers);
  const firstPolls = scheduler.start();
  logger.info(
    { version: VERSION, url: server.url, targets: config.targets.map((target) => ({ name: target.name, url: redactUrl(target.url) })) },
    "stellar-horizon-exporter started",
  );

  return {
    url: server.url,
    firstPolls,
    pollAll: async () => {
      await Promise.all(pollers.map((poller) => poller.idle()));
      await Promise.all(pollers.map((poller) => poller.run()));
    },
    close: async () => {
      shutdown.abort();
      await Promise.all([scheduler.stop(), server.close()]);
    },
  };
}
