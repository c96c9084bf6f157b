import { gzipSync } from "node:zlib";
import { pino, type Logger } from "pino";
import type { PollEndpoint, PublishedSource } from "./catalog/metrics.js";
import { AccountsClient } from "./client/accounts.js";
import { HorizonClient } from "./client/horizon-client.js";
import { AccountsCollector } from "./collectors/accounts.js";
import type { Collector } from "./collectors/collector.js";
import { ExporterMetrics } from "./collectors/self-metrics.js";
import { feeStatsCollector } from "./collectors/fee-stats.js";
import { LedgersCollector } from "./collectors/ledgers.js";
import { LiquidityPoolsCollector } from "./collectors/liquidity-pools.js";
import { rootCollector } from "./collectors/root.js";
import { RpcExporterMetrics } from "./collectors/rpc-exporter-metrics.js";
import { GZIP_OPTIONS, MetricStore } from "./collectors/store.js";
import { redactUrl, type ExporterConfig, type TargetConfig } from "./config/config.js";
import type { RpcTargetConfig } from "./config/rpc-targets.js";
import { EndpointPublisher } from "./collectors/publisher.js";
import { EndpointPoller, pollDeadlineMs } from "./scheduler/endpoint-poller.js";
import { plannedRequestsPerHour } from "./scheduler/request-plan.js";
import { txProbeFor, type NetworkView, type TxProbe } from "./probers/tx-probe.js";
import { rpcPollers } from "./scheduler/rpc-pollers.js";
import { Scheduler } from "./scheduler/scheduler.js";
import { createServerApp } from "./server/app.js";
import { listen } from "./server/listen.js";
import { VERSION } from "./version.js";
import { systemClock, type Clock } from "./clock.js";

export interface RunningExporter {
  /** Base URL of the HTTP server. */
  readonly url: string;
  /** Resolves when every target's endpoints have been polled once. */
  readonly firstPolls: Promise<void>;
  /** Polls every endpoint of every target once more, now; for tests and tools. */
  pollAll(): Promise<void>;
  /** Runs every target's transaction probe once, now; for tests and tools. */
  probeAll(): Promise<void>;
  /**
   * Loads and applies a configuration: unchanged targets keep their state and counters, changed
   * ones restart, removed ones leave; the web config and log level apply at once. Problems
   * instead of a configuration keep the old one. Reloads run one at a time, and a reload asked
   * for while another runs loads only once that one is done, so the latest file wins.
   */
  reload(load: () => Promise<ReloadedConfig>): Promise<void>;
  /** Stops polling, aborts requests in flight and closes the server. */
  close(): Promise<void>;
}

export type ReloadedConfig = ExporterConfig | { readonly problems: readonly string[] };

/** Everything that polls one target, a Horizon or a Stellar RPC; rebuilt only when its configuration changes. */
interface TargetRuntime {
  readonly name: string;
  /** What the landing page calls it. */
  readonly title: string;
  /** Without credentials. */
  readonly url: string;
  /** Equal keys mean the runtime can be kept across a reload. */
  readonly key: string;
  readonly pollers: readonly EndpointPoller<PollEndpoint>[];
  readonly publishers: readonly EndpointPublisher<PollEndpoint>[];
  readonly scheduler: Scheduler;
  /** A Horizon target's transaction probe, when configured. */
  readonly probe?: TxProbe;
  /** What the target publishes to the store, to forget when it leaves. */
  readonly sources: readonly PublishedSource[];
  readonly abort: AbortController;
  /** Drops the target's self-metrics once it has left. */
  readonly forgetMetrics: () => Promise<void>;
}

/** A target of a configuration, not yet running: its runtime's key, and how to build it. */
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

function collectorsFor(config: ExporterConfig, target: TargetConfig, client: HorizonClient, log: Logger): { collectors: Collector[]; network: NetworkView } {
  const root = rootCollector(client);
  const feeStats = feeStatsCollector(client);
  const ledgers = new LedgersCollector(client, config.ledgers, log.child({ endpoint: "ledgers" }));
  // Accounts are polled only where some are watched; their reserves follow the ledgers read.
  const accounts =
    target.accounts.length > 0
      ? [new AccountsCollector(new AccountsClient(client), target.accounts, () => ledgers.baseReserveStroops)]
      : [];
  const network: NetworkView = {
    networkPassphrase: () => root.current?.network_passphrase,
    feeStats: () => feeStats.current,
    latestLedger: () => {
      const known = [ledgers.latestSequence, root.current?.history_latest_ledger].filter((value) => value !== undefined);
      return known.length === 0 ? undefined : Math.max(...known);
    },
  };
  return { collectors: [root, feeStats, ledgers, new LiquidityPoolsCollector(client, config.liquidityPools), ...accounts], network };
}

export async function startExporter(
  config: ExporterConfig,
  options: { logger?: Logger; clock?: Clock } = {},
): Promise<RunningExporter> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const clock = options.clock ?? systemClock;
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
        "schedules plan more requests per hour than this Horizon's budget: lengthen the poll intervals, track fewer pools or watch fewer accounts",
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
      clock,
    });
    const publishers: EndpointPublisher[] = [];
    const { collectors, network } = collectorsFor(current, target, client, log);
    const pollers = collectors.map((collector) => {
      const schedule = target.schedules[collector.endpoint];
      const publisher = new EndpointPublisher(target.name, collector, store, current.staleAfterIntervals * schedule.periodMs, clock);
      publishers.push(publisher);
      return new EndpointPoller({
        horizon: target.name,
        collector,
        publisher,
        schedule,
        deadlineMs: pollDeadlineMs(schedule, current.staleAfterIntervals, target.timeoutMs, current.retries),
        metrics,
        log,
        clock,
        signal: abort.signal,
      });
    });
    const probe = target.txProbe && txProbeFor(target.name, target.txProbe, { client, network, store, log });
    return {
      name: target.name,
      title: target.name,
      url: redactUrl(target.url),
      key: runtimeKey(target, current),
      pollers,
      publishers,
      scheduler: new Scheduler(pollers, clock),
      ...(probe ? { probe } : {}),
      sources: [...pollers.map((poller) => poller.endpoint), ...(probe ? (["tx_probe"] as const) : [])],
      abort,
      forgetMetrics: () => metrics.removeTarget(target.name),
    };
  };

  const createRpcRuntime = (target: RpcTargetConfig, current: ExporterConfig): TargetRuntime => {
    rpcMetrics.addTarget(target.name);
    const abort = new AbortController();
    const log = logger.child({ rpc: target.name });
    const { pollers, publishers } = rpcPollers(target, current, { store, metrics: rpcMetrics, log, clock, signal: abort.signal });
    return {
      name: target.name,
      title: `${target.name} (Stellar RPC)`,
      url: redactUrl(target.url),
      key: rpcRuntimeKey(target, current),
      pollers,
      publishers,
      scheduler: new Scheduler(pollers, clock),
      sources: pollers.map((poller) => poller.endpoint),
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
    await Promise.all([runtime.scheduler.stop(), runtime.probe?.stop()]);
    for (const publisher of runtime.publishers) publisher.stop();
  };

  let runtimes = planned(config).map((plan) => plan.create());
  let web = config.web;
  const allPollers = () => runtimes.flatMap((runtime) => runtime.pollers);

  const app = createServerApp({
    version: VERSION,
    web: () => web,
    renderMetrics: (coding) => {
      // The own metrics go last, collected while the Horizon series are being sent; they are a few
      // kilobytes, compressed at once rather than by a round trip through the thread pool.
      const own = metrics.render().then((text) => (coding === "gzip" ? gzipSync(text, GZIP_OPTIONS) : Buffer.from(text)));
      return [...store.render(clock.now(), coding), own];
    },
    targets: () =>
      runtimes.map(({ title, url, pollers }) => ({
        name: title,
        url,
        endpoints: pollers.map((poller) => poller.snapshot()),
      })),
    isReady: () => allPollers().every((poller) => poller.snapshot().polls > 0),
  });
  const server = await listen(app, config.listen.host, config.listen.port, config.web?.tls);
  const startRuntime = (runtime: TargetRuntime): Promise<void> =>
    // The probe waits for the first polls: they tell it the network and the fees.
    runtime.scheduler.start().then(() => runtime.probe?.start());
  const firstPolls = Promise.all(runtimes.map(startRuntime)).then(() => undefined);
  logger.info(
    { version: VERSION, url: server.url, targets: runtimes.map(({ title, url }) => ({ name: title, url })) },
    "stellar-horizon-exporter started",
  );

  let closed = false;
  let reloadRequests = 0;
  let reloading = Promise.resolve();
  const applyConfig = async (next: ReloadedConfig): Promise<void> => {
    if ("problems" in next) {
      for (const problem of next.problems) logger.error({ problem }, "configuration reload rejected; keeping the running configuration");
      metrics.configLoaded(false);
      return;
    }
    if (next.listen.host !== config.listen.host || next.listen.port !== config.listen.port) {
      logger.warn("the listen address changes only on restart");
    }
    logger.level = next.logLevel;
    web = next.web;
    if (!server.setTls(next.web?.tls)) logger.warn("turning TLS on or off takes a restart; the web config's other settings apply now");
    const byKey = new Map(runtimes.map((runtime) => [runtime.key, runtime]));
    const kept = new Set<TargetRuntime>();
    const plans = planned(next);
    const nextRuntimes = plans.map((plan) => {
      const existing = byKey.get(plan.key);
      if (existing) kept.add(existing);
      return existing;
    });
    const leaving = runtimes.filter((runtime) => !kept.has(runtime));
    await Promise.all(leaving.map(stopRuntime));
    for (const runtime of leaving) {
      store.remove(runtime.name, runtime.sources);
      await runtime.forgetMetrics();
    }
    runtimes = plans.map((plan, index) => nextRuntimes[index] ?? plan.create());
    for (const runtime of runtimes) if (!kept.has(runtime)) void startRuntime(runtime);
    metrics.configLoaded(true);
    logger.info({ kept: kept.size, started: runtimes.length - kept.size, stopped: leaving.length }, "configuration reloaded");
  };

  return {
    url: server.url,
    firstPolls,
    pollAll: async () => {
      await Promise.all(allPollers().map((poller) => poller.idle()));
      await Promise.all(allPollers().map((poller) => poller.run()));
    },
    probeAll: async () => {
      await Promise.all(runtimes.map((runtime) => runtime.probe?.run()));
    },
    reload: (load) => {
      const request = ++reloadRequests;
      reloading = reloading.then(async () => {
        // A newer request runs after this one and reads the file itself: the latest file wins.
        if (request !== reloadRequests || closed) return;
        try {
          await applyConfig(await load());
        } catch (error) {
          logger.error({ error: String(error) }, "configuration reload failed");
          metrics.configLoaded(false);
        }
      });
      return reloading;
    },
    close: async () => {
      closed = true;
      await reloading;
      await Promise.all([...runtimes.map(stopRuntime), server.close()]);
    },
  };
}
