import { pino, type Logger } from "pino";
import { AccountsClient } from "./client/accounts.js";
import { AccountsCollector } from "./collectors/accounts.js";
import { ExporterMetrics } from "./exposition/self-metrics.js";
import { feeStatsCollector } from "./collectors/fee-stats.js";
import { LedgersCollector } from "./collectors/ledgers.js";
import { LiquidityPoolsCollector } from "./collectors/liquidity-pools.js";
import { rootCollector } from "./collectors/root.js";
import { RpcExporterMetrics } from "./exposition/rpc-exporter-metrics.js";
import { MetricStore } from "./exposition/store.js";
import type { ExporterConfig } from "./config/config.js";
import { txProbeFor, type NetworkView } from "./probers/tx-probe.js";
import { RpcRuntime } from "./scheduler/rpc-pollers.js";
import { TargetRuntime, type Runtime, type SurfaceFactory } from "./scheduler/target-runtime.js";
import { createServerApp } from "./server/app.js";
import { listen } from "./server/listen.js";
import { createStatusBoard, statusReport } from "./status/model.js";
import { VERSION } from "./version.js";
import { systemClock, type Clock } from "./clock.js";

export interface RunningExporter {
  /** Base URL of the HTTP server. */
  readonly url: string;
  /** Resolves when every target's endpoints have been polled once. */
  readonly firstPolls: Promise<void>;
  /** Polls every endpoint of every target once more, now; for tests and tools. */
  pollAll(): Promise<void>;
  /** Resolves when no poll is running; starts none. For tests that drive the clock. */
  idle(): Promise<void>;
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

/**
 * What every Horizon target polls and probes; a new surface is one more collector or prober here.
 * The probe builds its time bounds on the exporter's clock.
 */
const surfacesFor = (clock: Clock): SurfaceFactory => (config, target, { client, store, log }) => {
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
  const collectors = [root, feeStats, ledgers, new LiquidityPoolsCollector(client, config.liquidityPools), ...accounts];
  const probe = target.txProbe && txProbeFor(target.name, target.txProbe, { client, network, store, log, now: () => clock.now() });
  return { collectors, ...(probe ? { probe } : {}) };
};

export async function startExporter(
  config: ExporterConfig,
  options: { logger?: Logger; clock?: Clock } = {},
): Promise<RunningExporter> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const clock = options.clock ?? systemClock;
  const metrics = new ExporterMetrics(VERSION);
  const board = createStatusBoard(() => clock.now());
  const store = new MetricStore(board);
  metrics.configLoaded(true);

  const rpcMetrics = new RpcExporterMetrics(metrics.registry);
  const services = { store, metrics, logger, clock };
  /** Every target of a configuration, Horizons then Stellar RPCs: its runtime's key, and how to build it. */
  const planned = (current: ExporterConfig): { key: string; create(): Runtime }[] => [
    ...current.targets.map((target) => ({
      key: TargetRuntime.keyFor(target, current),
      create: () => new TargetRuntime(target, current, surfacesFor(clock), services),
    })),
    ...current.rpcTargets.map((target) => ({
      key: RpcRuntime.keyFor(target, current),
      create: () => new RpcRuntime(target, current, { ...services, metrics: rpcMetrics }),
    })),
  ];
  const stopRuntime = (runtime: Runtime) => runtime.stop();
  const startRuntime = (runtime: Runtime) => runtime.start();

  let runtimes = planned(config).map((plan) => plan.create());
  let web = config.web;
  const allPollers = () => runtimes.flatMap((runtime) => runtime.pollers);
  const idle = async () => {
    await Promise.all(allPollers().map((poller) => poller.idle()));
  };

  const app = createServerApp({
    version: VERSION,
    web: () => web,
    renderMetrics: async (coding) => [...store.render(clock.now(), coding), ...(await metrics.render(coding))],
    status: () =>
      statusReport(
        VERSION,
        runtimes.map(({ title, url, pollers }) => ({
          name: title,
          url,
          endpoints: pollers.map((poller) => poller.snapshot()),
        })),
        board,
        clock.now(),
      ),
    isReady: () => allPollers().every((poller) => poller.snapshot().polls > 0),
  });
  const server = await listen(app, config.listen.host, config.listen.port, config.web?.tls);
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
    const kept = new Set<Runtime>();
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
      await idle();
      await Promise.all(allPollers().map((poller) => poller.run()));
    },
    idle,
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
