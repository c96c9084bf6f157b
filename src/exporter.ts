import { pino, type Logger } from "pino";
import { NetworkAgreement } from "./agreement/agreement.js";
import { ExporterMetrics } from "./exposition/self-metrics.js";
import { MetricStore } from "./exposition/store.js";
import type { ExporterConfig } from "./config/config.js";
import { HORIZON } from "./runtime/horizon.js";
import { STELLAR_RPC } from "./runtime/rpc.js";
import { TargetRuntime, type Runtime, type RuntimeServices } from "./runtime/runtime.js";
import type { Job } from "./job/job.js";
import { createServerApp } from "./server/app.js";
import { listen } from "./server/listen.js";
import { createStatusBoard, statusReport } from "./status/model.js";
import { VERSION } from "./version.js";
import { retainSecretsOf } from "./config/secret.js";
import { systemClock, type Clock } from "./clock.js";
import { Holds } from "./client/http.js";

/** The running exporter's handle: polls on demand, reloads one at a time, and closes. */
export type RunningExporter = ReturnType<typeof running>;

type ReloadedConfig = ExporterConfig | { readonly problems: readonly string[] };

/** Every target of a configuration, Horizons then Stellar RPCs, as runtimes built but not started. */
function runtimesOf(config: ExporterConfig, services: RuntimeServices): Runtime[] {
  return [
    ...config.targets.map((target) => new TargetRuntime(HORIZON, target, config, services)),
    ...config.rpcTargets.map((target) => new TargetRuntime(STELLAR_RPC, target, config, services)),
  ];
}

/** What the exporter runs and serves, and what a reload replaces. */
interface ExporterState {
  config: ExporterConfig;
  readonly services: RuntimeServices;
  readonly agreement: NetworkAgreement;
  readonly server: Awaited<ReturnType<typeof listen>>;
  runtimes: Runtime[];
  /** Applied at once on a reload, before the runtimes change and the reload's config is taken. */
  web: ExporterConfig["web"];
}

export async function startExporter(
  config: ExporterConfig,
  options: { logger?: Logger; clock?: Clock } = {},
): Promise<RunningExporter> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const clock = options.clock ?? systemClock;
  const metrics = new ExporterMetrics(VERSION, config.shard, clock);
  const board = createStatusBoard(() => clock.now());
  const store = new MetricStore(board);
  metrics.configLoaded(true);

  const agreement = new NetworkAgreement(metrics.registry);
  const networkObserver: RuntimeServices["networkObserver"] = (kind, target) => agreement.observerFor({ kind, target });
  const services: RuntimeServices = {
    store,
    metrics,
    logger,
    clock,
    networkObserver,
    holds: new Holds(),
    plansWarned: new Map(),
  };
  let state: ExporterState | undefined;
  const runtimes = () => state?.runtimes ?? [];
  const app = createServerApp({
    version: VERSION,
    web: () => state?.web ?? config.web,
    renderMetrics: (coding) => Promise.all([store.scrape(clock.now(), coding), metrics.render(coding)]),
    status: () => statusReport(VERSION, runtimes().map(statusOf(agreement)), board, clock.now()),
    isReady: () => runnersOf(runtimes(), "poll").every((runner) => runner.snapshot().polls > 0),
  });
  const server = await listen(app, config.listen.host, config.listen.port, config.web?.tls);
  state = { config, services, agreement, server, runtimes: runtimesOf(config, services), web: config.web };
  const firstPolls = Promise.all(state.runtimes.map((runtime) => runtime.start())).then(() => undefined);
  logger.info(
    { version: VERSION, url: server.url, targets: state.runtimes.map(({ title, url }) => ({ name: title, url })) },
    "stellar-horizon-exporter started",
  );
  return running(state, firstPolls);
}

/** Polls and probe runs apart: a probe run may wait on a ledger that only a later poll's time brings. */
function runnersOf(runtimes: readonly Runtime[], role: Job["role"]) {
  return runtimes.flatMap((runtime) => runtime.runners).filter((runner) => runner.job.role === role);
}

/** A runtime as the landing page and /status.json show it. */
function statusOf(agreement: NetworkAgreement) {
  return (runtime: Runtime) => {
    const { label, name, title, url } = runtime;
    const endpoints = runnersOf([runtime], "poll").map((runner) => runner.snapshot());
    return { label, name, title, url, endpoints, agreement: agreement.standing({ kind: label, target: name }) };
  };
}

function running(state: ExporterState, firstPolls: Promise<void>) {
  const { server } = state;
  const { logger, metrics } = state.services;
  let closed = false;
  let reloadRequests = 0;
  let reloading = Promise.resolve();
  /** Resolves when no poll is running; starts none. For tests that drive the clock. */
  const idle = async () => {
    await Promise.all(runnersOf(state.runtimes, "poll").map((runner) => runner.idle()));
  };
  return {
    url: server.url,
    /** Resolves when every target's endpoints have been polled once. */
    firstPolls,
    /** Polls every endpoint of every target once more, now; for tests and tools. */
    pollAll: async () => {
      await idle();
      await Promise.all(runnersOf(state.runtimes, "poll").map((runner) => runner.run()));
    },
    idle,
    /** Runs every target's transaction probe once, now; for tests and tools. */
    probeAll: async () => {
      await Promise.all(runnersOf(state.runtimes, "probe").map((runner) => runner.run()));
    },
    /** Loads and applies a configuration (see applyConfig), or keeps the old given problems. Reloads run one at a time,
     * one asked for during another loading once that one is done, so the latest file wins. */
    reload: (load: () => Promise<ReloadedConfig>) => {
      const request = ++reloadRequests;
      reloading = reloading.then(async () => {
        if (request !== reloadRequests || closed) return;
        try {
          await applyConfig(state, await load());
        } catch (error) {
          logger.error({ error: String(error) }, "configuration reload failed");
          metrics.configLoaded(false);
        }
      });
      return reloading;
    },
    /** Stops polling, aborts requests in flight and closes the server. */
    close: async () => {
      closed = true;
      await reloading;
      await Promise.all([...state.runtimes.map((runtime) => runtime.stop()), server.close()]);
    },
  };
}

/** Applies a reloaded configuration: unchanged targets keep their runtime, state and counters (only jobs whose keys
 * changed restart), changed ones restart, removed ones leave; the web config and log level apply at once. */
async function applyConfig(state: ExporterState, next: ReloadedConfig): Promise<void> {
  const { config, server, agreement, services, runtimes } = state;
  const { logger, metrics } = services;
  if ("problems" in next) {
    for (const problem of next.problems)
      logger.error({ problem }, "configuration reload rejected; keeping the running configuration");
    metrics.configLoaded(false);
    retainSecretsOf(config);
    return;
  }
  if (next.listen.host !== config.listen.host || next.listen.port !== config.listen.port)
    logger.warn("the listen address changes only on restart");
  logger.level = next.logLevel;
  state.web = next.web;
  if (!server.setTls(next.web?.tls))
    logger.warn("turning TLS on or off takes a restart; the web config's other settings apply now");
  // Every runtime is built before any is stopped: a build that throws leaves the running ones as they were.
  const byKey = new Map(runtimes.map((runtime) => [runtime.key, runtime]));
  const nextRuntimes = runtimesOf(next, services).map((runtime) => byKey.get(runtime.key) ?? runtime);
  const kept = new Set(nextRuntimes.filter((runtime) => runtimes.includes(runtime)));
  const leaving = runtimes.filter((runtime) => !kept.has(runtime));
  // Stopped before their successors start, so a target that changed never publishes twice.
  await Promise.all(leaving.map((runtime) => runtime.stop()));
  // A target removed leaves the agreement check, and the plans warned of (back later, it is warned of again); one
  // that changed stays, its successor's facts replacing its own.
  const staying = new Set(nextRuntimes.map(({ label, name }) => `${label}:${name}`));
  for (const { label, name } of leaving) {
    const target = `${label}:${name}`;
    if (staying.has(target)) continue;
    agreement.remove({ kind: label, target: name });
    services.plansWarned.delete(target);
  }
  state.runtimes = nextRuntimes;
  state.config = next;
  retainSecretsOf(next);
  for (const runtime of nextRuntimes) {
    if (kept.has(runtime)) await runtime.reconfigure(next);
    else void runtime.start();
  }
  metrics.configLoaded(true);
  logger.info(
    { kept: kept.size, started: nextRuntimes.length - kept.size, stopped: leaving.length },
    "configuration reloaded",
  );
}
