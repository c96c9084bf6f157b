import { pino, type Logger } from "pino";
import type { PollEndpoint } from "./catalog/metrics.js";
import { HorizonClient } from "./client/horizon-client.js";
import type { Collector } from "./collectors/collector.js";
import { ExporterMetrics } from "./collectors/exporter.js";
import { feeStatsCollector } from "./collectors/fee-stats.js";
import { LedgersCollector } from "./collectors/ledgers.js";
import { LiquidityPoolsCollector } from "./collectors/liquidity-pools.js";
import { rootCollector } from "./collectors/root.js";
import { RpcExporterMetrics } from "./collectors/rpc-exporter-metrics.js";
import { MetricStore } from "./collectors/store.js";
import { redactUrl, type ExporterConfig, type TargetConfig } from "./config/config.js";
import type { RpcTargetConfig } from "./config/rpc-targets.js";
import { EndpointPoller } from "./scheduler/endpoint-poller.js";
import { plannedRequestsPerHour } from "./scheduler/request-plan.js";
import { rpcPollers } from "./scheduler/rpc-pollers.js";
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
  /**
   * Applies a reloaded configuration: unchanged targets keep their state and counters, changed
   * ones restart, removed ones leave. Problems instead of a configuration keep the old one.
   */
  reload(next: ExporterConfig | { problems: readonly string[] }): Promise<void>;
  /** Stops polling, aborts requests in flight and closes the server. */
  close(): Promise<void>;
}

/** Everything that polls one target, a Horizon or a Stellar RPC; rebuilt only when its configuration changes. */
interface TargetRuntime {
  readonly name: string;
  /** What the landing page calls it. */
  readonly title: string;
  readonly url: string;
  /** Equal keys mean the runtime can be kept across a reload. */
  readonly key: string;
  readonly pollers: readonly EndpointPoller<PollEndpoint>[];
  readonly scheduler: Scheduler;
  readonly abort: AbortController;
  /** Drops the target's self-metrics once it has left. */
  readonly forgetMetrics: () => Promise<void>;
}

/** A target of the configuration, not yet running: its runtime's key, and how to build it. */
interface PlannedRuntime {
  readonly key: string;
  create(): TargetRuntime;
}

function runtimeKey(target: TargetConfig, config: ExporterConfig): string {
  const { retries, maxBodyBytes, ledgers, liquidityPools, staleAfterIntervals } = config;
  return JSON.stringify({ target, retries, maxBodyBytes, ledgers, liquidityPools, staleAfterIntervals });
}

function rpcRuntimeKey(rpc: RpcTargetConfig, config: ExporterConfig): string {
  const { retries, maxBodyBytes, staleAfterIntervals } = config;
  return JSON.stringify({ rpc, retries, maxBodyBytes, staleAfterIntervals });
}

function collectorsFor(config: ExporterConfig, client: HorizonClient, log: Logger): Collector[] {
  return [
    rootCollector(client),
    feeStatsCollector(client),
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
  const rpcMetrics = new RpcExporterMetrics(metrics.registry);
  const store = new MetricStore();
  metrics.configLoaded(true);

  const createRuntime = (target: TargetConfig, current: ExporterConfig): TargetRuntime => {
    const log = logger.child({ horizon: target.name });
    const planned = plannedRequestsPerHour(target, current);
    metrics.addTarget(target.name, planned, target.requestBudgetPerHour);
    if (planned > target.requestBudgetPerHour) {
      log.warn(
        { plannedRequestsPerHour: planned, requestBudgetPerHour: target.requestBudgetPerHour },
        "schedules plan more requests per hour than this Horizon's budget: lengthen the poll intervals or track fewer pools",
      );
    }
    const abort = new AbortController();
    const client = new HorizonClient({
      url: target.url,
      headers: target.headers,
      timeoutMs: target.timeoutMs,
      retries: current.retries,
      maxBodyBytes: current.maxBodyBytes,
      observer: metrics.observerFor(target.name),
      signal: abort.signal,
    });
    const pollers = collectorsFor(current, client, log).map(
      (collector) =>
        new EndpointPoller({
          horizon: target.name,
          collector,
          schedule: target.schedules[collector.endpoint],
          staleAfterIntervals: current.staleAfterIntervals,
          store,
          metrics,
          log,
        }),
    );
    return {
      name: target.name,
      title: target.name,
      url: redactUrl(target.url),
      key: runtimeKey(target, current),
      pollers,
      scheduler: new Scheduler(pollers),
      abort,
      forgetMetrics: () => metrics.removeTarget(target.name),
    };
  };

  const createRpcRuntime = (target: RpcTargetConfig, current: ExporterConfig): TargetRuntime => {
    rpcMetrics.addTarget(target.name);
    const abort = new AbortController();
    const log = logger.child({ rpc: target.name });
    const pollers = rpcPollers(target, current, { store, metrics: rpcMetrics, log, signal: abort.signal });
    return {
      name: target.name,
      title: `${target.name} (Stellar RPC)`,
      url: redactUrl(target.url),
      key: rpcRuntimeKey(target, current),
      pollers,
      scheduler: new Scheduler(pollers),
      abort,
      forgetMetrics: () => rpcMetrics.removeTarget(target.name),
    };
  };

  const planned = (current: ExporterConfig): PlannedRuntime[] => [
    ...current.targets.map((target) => ({ key: runtimeKey(target, current), create: () => createRuntime(target, current) })),
    ...current.rpcTargets.map((target) => ({ key: rpcRuntimeKey(target, current), create: () => createRpcRuntime(target, current) })),
  ];

  const stopRuntime = async (runtime: TargetRuntime): Promise<void> => {
    runtime.abort.abort();
    await runtime.scheduler.stop();
  };

  let runtimes = planned(config).map((plan) => plan.create());
  const allPollers = () => runtimes.flatMap((runtime) => runtime.pollers);

  const app = createServerApp({
    version: VERSION,
    ...(config.web ? { web: config.web } : {}),
    renderMetrics: async () => [...store.render(Date.now()), Buffer.from(await metrics.render())],
    targets: () =>
      runtimes.map(({ title, url, pollers }) => ({
        name: title,
        url,
        endpoints: pollers.map((poller) => poller.snapshot()),
      })),
    isReady: () => allPollers().every((poller) => poller.snapshot().polls > 0),
  });
  const server = await listen(app, config.listen.host, config.listen.port, config.web?.tls);
  const firstPolls = Promise.all(runtimes.map((runtime) => runtime.scheduler.start())).then(() => undefined);
  logger.info(
    { version: VERSION, url: server.url, targets: runtimes.map(({ title, url }) => ({ name: title, url })) },
    "stellar-horizon-exporter started",
  );

  return {
    url: server.url,
    firstPolls,
    pollAll: async () => {
      await Promise.all(allPollers().map((poller) => poller.idle()));
      await Promise.all(allPollers().map((poller) => poller.run()));
    },
    reload: async (next) => {
      if ("problems" in next) {
        for (const problem of next.problems) logger.error({ problem }, "configuration reload rejected; keeping the running configuration");
        metrics.configLoaded(false);
        return;
      }
      if (next.listen.host !== config.listen.host || next.listen.port !== config.listen.port) {
        logger.warn("the listen address changes only on restart");
      }
      const byKey = new Map(runtimes.map((runtime) => [runtime.key, runtime]));
      const kept = new Set<TargetRuntime>();
      const plans = planned(next);
      const nextRuntimes = plans.map((plan) => {
        const existing = byKey.get(plan.key);
        if (existing) {
          kept.add(existing);
          return existing;
        }
        return undefined;
      });
      const leaving = runtimes.filter((runtime) => !kept.has(runtime));
      await Promise.all(leaving.map(stopRuntime));
      for (const runtime of leaving) {
        store.remove(runtime.name, runtime.pollers.map((poller) => poller.endpoint));
        await runtime.forgetMetrics();
      }
      runtimes = plans.map((plan, index) => nextRuntimes[index] ?? plan.create());
      for (const runtime of runtimes) if (!kept.has(runtime)) void runtime.scheduler.start();
      metrics.configLoaded(true);
      logger.info(
        { kept: kept.size, started: runtimes.length - kept.size, stopped: leaving.length },
        "configuration reloaded",
      );
    },
    close: async () => {
      await Promise.all([...runtimes.map(stopRuntime), server.close()]);
    },
  };
}
