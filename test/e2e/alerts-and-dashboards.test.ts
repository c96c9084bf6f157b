/**
 * End to end: a real Prometheus (Debian's) scrapes the exporter every second and evaluates the
 * rules file; the exporter polls one simulated Horizon per fault, all at once, each named by its
 * `horizon` label. Prometheus scrapes through a recording proxy, which shows what coding it asked
 * for and got. The test evaluates the alert *expressions* through Prometheus's query API
 * rather than waiting out their `for:` durations, so it takes about three minutes.
 */
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { startExporter, type RunningExporter } from "../../src/exporter.js";
import type { CorridorConfig } from "../../src/config/corridors.js";
import {
  DEMO_CORRIDORS,
  DEMO_WATCHED_ACCOUNTS,
  DEMO_WATCHED_ASSETS,
  DEMO_WATCHED_MARKETS,
  SCENARIOS,
  startSimulator,
  type RunningSimulator,
  type ScenarioName,
} from "../../src/simulator/index.js";
import { ruleFiles } from "../../scripts/dashboards/paths.js";
import { allRules, isAlertingRule } from "../../scripts/dashboards/prometheus-rule.js";
import { Keypair } from "@stellar/stellar-sdk";
import { parsePromQL } from "../alerts/promql.js";
import { dataPanels, loadDashboards } from "../dashboards/dashboard-files.js";
import { startPrometheus, type RunningPrometheus, type Sample } from "./prometheus.js";
import { startRecordingProxy, type RecordingProxy } from "./recording-proxy.js";
import { until } from "../support/wait.js";

const JOB = "stellar-horizon-exporter";
/** Fast enough that the network moves several ledgers between scrapes. */
const LEDGER_INTERVAL_MS = 1000;
/** Slower than the 7 s StellarNetworkLedgerCloseSlow allows. */
const SLOW_LEDGER_INTERVAL_MS = 10_000;
const SCRAPE_INTERVAL_SECONDS = 1;
/** Grafana's $__rate_interval for a 1 s scrape interval is at least 4 s; a little more smooths the simulator's randomness. */
const RATE_INTERVAL = "10s";
/** The slowest expressions need 2 minutes of unchanged data (IngestionStalled, LatestLedgerStale). */
const FAULT_TIMEOUT_MS = 200_000;

type AlertName = string;

interface FaultCase {
  /** The target's `horizon` label. */
  readonly horizon: string;
  /** Alert expressions that must become true for this target. */
  readonly fires: readonly AlertName[];
  /** Near misses: alert expressions that must stay false for it. */
  readonly staysQuiet?: readonly AlertName[];
}

/** The Stellar RPC scenarios: this suite polls no RPC yet; promtool unit tests cover their alerts. */
const RPC_SCENARIOS: readonly ScenarioName[] = [
  "rpc_unhealthy",
  "rpc_lagging",
  "contract_expiring",
  "contract_silent",
  "contract_upgrade",
];

/** Every Horizon scenario but healthy, by the alerts meant for it; old_horizon is meant to raise none. */
const SCENARIO_ALERTS: Readonly<
  Record<
    Exclude<
      ScenarioName,
      "healthy" | "rpc_unhealthy" | "rpc_lagging" | "contract_expiring" | "contract_silent" | "contract_upgrade"
    >,
    Omit<FaultCase, "horizon">
  >
> = {
  ingest_lag: {
    fires: ["StellarHorizonIngestionLagging", "StellarHorizonIngestionLagCritical"],
    staysQuiet: ["StellarHorizonIngestionStalled"],
  },
  ingestion_stalled: { fires: ["StellarHorizonIngestionStalled", "StellarHorizonLatestLedgerStale"] },
  network_halt: { fires: ["StellarHorizonLatestLedgerStale"], staysQuiet: ["StellarHorizonIngestionStalled"] },
  fee_spike: { fires: ["StellarNetworkFeeSurge", "StellarNetworkCapacityHigh", "StellarTransactionProbeFeeCapped"] },
  protocol_upgrade_pending: {
    fires: ["StellarHorizonProtocolUpgradePending"],
    staysQuiet: ["StellarHorizonUnsupportedProtocol"],
  },
  unsupported_protocol: { fires: ["StellarHorizonUnsupportedProtocol"] },
  rate_limited: { fires: ["StellarHorizonRateLimited"] },
  flapping: { fires: ["StellarHorizonExporterPollErrors"] },
  old_horizon: { fires: [] },
  network_reset: { fires: ["StellarNetworkReset"] },
  pool_drain: { fires: ["StellarLiquidityPoolReserveDrop"] },
  failed_transactions: { fires: ["StellarNetworkFailedTransactionsHigh"] },
  signer_change: {
    fires: ["StellarAccountSignersChanged", "StellarAccountUnexpectedActivity"],
    staysQuiet: ["StellarAccountMissing"],
  },
  account_drain: {
    fires: ["StellarAccountBalanceLow", "StellarAccountNativeNearMinimumBalance", "StellarAccountTrustlineNearLimit"],
    staysQuiet: ["StellarAccountSignersChanged", "StellarAccountUnexpectedActivity"],
  },
  account_merged: { fires: ["StellarAccountMissing"], staysQuiet: ["StellarHorizonExporterPollErrors"] },
  trustline_deauthorized: {
    fires: ["StellarAccountTrustlineUnauthorized"],
    staysQuiet: ["StellarAccountTrustlineNearLimit"],
  },
  // Probe failures need minutes without a success; promtool and test/probers cover them.
  txsub_timeout: { fires: [] },
  // No deposit for the demo's expect_payment_within (10 minutes): promtool and test/simulator cover it.
  deposits_stopped: { fires: [] },
  // A simulator started in it is minted before the first poll: no change to see. See NOT_SIMULATED.
  asset_mint: { fires: [] },
  old_versions: { fires: [] },
  stablecoin_depeg: { fires: ["StellarMarketOffPeg"], staysQuiet: ["StellarMarketMakerNotQuoting"] },
  maker_stops_quoting: { fires: ["StellarMarketMakerNotQuoting"], staysQuiet: ["StellarMarketOffPeg"] },
  // No target here configures corridors; test/corridors*.test.ts and promtool cover the corridor alerts.
  corridor_drain: { fires: [] },
};

/** Faults no scenario simulates, each given a target of its own. */
const EXTRA_CASES = {
  slow_ledgers: { fires: ["StellarNetworkLedgerCloseSlow"] },
  stopped: { fires: ["StellarHorizonDown"] },
  api_changed: { fires: ["StellarHorizonSchemaErrors"] },
} satisfies Record<string, Omit<FaultCase, "horizon">>;

/**
 * Alerts no fault drives within this suite's time: they need 3 minutes without a probe success or
 * 15 minutes of slow inclusion. Their promtool tests and test/probers cover them.
 */
const NOT_SIMULATED: readonly AlertName[] = [
  "StellarTransactionProbeFailing",
  "StellarTransactionProbeSlow",
  // Needs a probe refusing for 10 minutes; test/probers covers the series, its promtool test the rule.
  "StellarTransactionProbeRefused",
  // The Stellar RPC ones: see RPC_SCENARIOS.
  "StellarRpcDown",
  "StellarRpcUnhealthy",
  "StellarRpcLatestLedgerStale",
  "StellarRpcBehindNetwork",
  "StellarRpcRetentionShort",
  "StellarNetworkSorobanFeeSurge",
  // The contract ones: their expressions need days of TTL or minutes of archival; promtool and
  // test/contracts-exporter.test.ts cover them.
  "StellarContractEntryExpiringSoon",
  "StellarContractEntryExpiring",
  "StellarContractEntryArchived",
  "StellarContractEntryMissing",
  // Contract events: silence needs expect_events_within to pass, an upgrade or a gap an hour's window;
  // promtool and test/contract-events.test.ts cover them.
  "StellarContractSilent",
  "StellarContractUpgraded",
  "StellarContractEventsGap",
  // test/e2e/agreement.test.ts forks a simulator for this one; a protocol behind needs 30 minutes.
  "StellarTargetLedgerHashDisagrees",
  "StellarTargetProtocolBehind",
  // Account flow: an hour's outflow, 15 minutes of failures, 10 minutes without deposits; promtool
  // (alerts/tests/account-activity.test.yml) and test/simulator/account-history.test.ts cover them.
  "StellarAccountNoPayments",
  "StellarAccountOutflowHigh",
  "StellarAccountTransactionsFailing",
  "StellarAccountUnexpectedOperation",
  // The asset ones: each simulator starts in its scenario, so a mint, a flag change or a freeze is
  // there from the first poll and never seen happening; promtool and test/assets-simulator.test.ts cover them.
  "StellarAssetSupplyChanged",
  "StellarAssetFlagsChanged",
  "StellarAssetMissing",
  "StellarAssetHoldersFrozen",
  // Offers an hour old, and six quiet hours: promtool covers them.
  "StellarMarketMakerStale",
  "StellarMarketQuiet",
  // Corridors need 10 to 75 minutes of runs; promtool and test/corridors-exporter.test.ts cover them.
  "StellarCorridorNoPath",
  "StellarCorridorRateDegraded",
  "StellarCorridorSlow",
  "StellarPathFindingDisabled",
];
/** Targets that run the transaction probe. */
const PROBED_TARGETS = new Map(["healthy", "fee_spike"].map((name) => [name, Keypair.random()]));
/** Targets that probe the demo's payment corridors. */
const CORRIDOR_TARGETS = ["healthy", "corridor_drain"];
/** Checked last, by stopping the exporter. */
const EXPORTER_DOWN = "StellarHorizonExporterDown";
/** Targets on which no alert expression may ever be true. */
const QUIET_TARGETS = ["healthy", "old_horizon"];

const FAULT_CASES: FaultCase[] = [...Object.entries(SCENARIO_ALERTS), ...Object.entries(EXTRA_CASES)].map(
  ([horizon, expectation]) => ({
    horizon,
    ...expectation,
  }),
);
const ALERT_EXPRESSIONS = new Map(
  allRules()
    .filter(isAlertingRule)
    .map((rule) => [rule.alert, rule.expr]),
);

/**
 * Panels with no data in healthy, by the fault target that gives them data: its simulator starts
 * healthy, so the fault test checks them once the faults are on.
 */
const PANELS_FROM_FAULTS: Readonly<Record<string, string>> = {
  // Only failing transactions have a result code; the hot wallet fails every other payout in failed_transactions.
  "Stellar Horizon / Accounts / Transaction failures by code / A": "failed_transactions",
};

/** Dashboard queries as Grafana would send them with job, the given horizon, rpc=healthy and every pool selected. */
const dashboardQueries = (horizon: string) =>
  loadDashboards().flatMap((dashboard) =>
    dataPanels(dashboard).flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({
        panel: `${dashboard.json.title} / ${panel.title} / ${target.refId}`,
        expr: target.expr
          .replaceAll("$__rate_interval", RATE_INTERVAL)
          .replaceAll("$job", JOB)
          .replaceAll("$horizon", horizon)
          .replaceAll("$rpc", "healthy")
          .replaceAll("$pool", ".+")
          .replaceAll("$account", ".+")
          .replaceAll("$asset", ".+")
          .replaceAll("$contract", ".+")
          .replaceAll("$market", ".+"),
      })),
    ),
  );
const DASHBOARD_QUERIES = dashboardQueries("healthy").filter((query) => !(query.panel in PANELS_FROM_FAULTS));

/** A server that answers every request with JSON that is not Horizon's: an API changed under us. */
async function startForeignApi(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ service: "not-horizon", items: [1, 2, 3] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A corridor as the config file's `corridors:` entry that describes it. */
function corridorEntry({ minRate, ...corridor }: CorridorConfig) {
  return { ...corridor, ...(minRate === undefined ? {} : { min_rate: minRate }) };
}

/**
 * Targets that read the watched accounts' payments and transactions (the activity job), as the
 * demo does: healthy for the flow panels, failed_transactions for the failures by code. The others
 * leave it off, so that the activity requests do not load all 17 simulators.
 */
const ACTIVITY_TARGETS = new Set(["healthy", "failed_transactions"]);
/**
 * Targets that watch the demo's accounts: the quiet ones, the account scenarios, and those with
 * activity. On a loaded machine, every target watching them timed polls and scrapes out.
 */
const ACCOUNT_TARGETS = new Set([
  ...QUIET_TARGETS,
  ...ACTIVITY_TARGETS,
  "signer_change",
  "account_drain",
  "deposits_stopped",
  "account_merged",
  "trustline_deauthorized",
]);
/** Targets that watch the demo's assets: the quiet ones and the one whose scenario mints. */
const ASSET_TARGETS = new Set([...QUIET_TARGETS, "asset_mint"]);

/** A watched account as the config file's `accounts:` entry that describes it, with its flow settings where `activity`. */
function accountEntry(account: (typeof DEMO_WATCHED_ACCOUNTS)[number], activity: boolean) {
  return {
    name: account.name,
    id: account.id,
    low_balance: account.lowBalance,
    offers: account.offers,
    claimable_balances: account.claimableBalances,
    cold: account.cold,
    ...(activity
      ? {
          activity: account.activity ?? false,
          operations: account.operations ?? false,
          ...(account.expectPaymentWithinSeconds === undefined
            ? {}
            : { expect_payment_within: `${account.expectPaymentWithinSeconds}s` }),
          ...(account.maxOutflowPerHour === undefined ? {} : { max_outflow_per_hour: account.maxOutflowPerHour }),
        }
      : {}),
  };
}

/** The simulator's markets as a target's `markets:` entries; a scenario of their own, or healthy, watches them. */
const MARKET_TARGETS = new Set(["healthy", "stablecoin_depeg", "maker_stops_quoting"]);
const MARKET_ENTRIES = DEMO_WATCHED_MARKETS.map((market) => ({
  name: market.name,
  base: market.base,
  counter: market.counter,
  resolution: "1m",
  ...(market.referencePrice === undefined ? {} : { reference_price: market.referencePrice }),
  makers: [...market.makers],
}));

const hasFiniteValue = (samples: readonly Sample[]) => samples.some((sample) => Number.isFinite(sample.value));

describe("alerts and dashboards against a real Prometheus", () => {
  const simulators = new Map<string, RunningSimulator>();
  let foreignApi: Awaited<ReturnType<typeof startForeignApi>> | undefined;
  let exporter: RunningExporter | undefined;
  let prometheus: RunningPrometheus | undefined;
  let proxy: RecordingProxy | undefined;
  let configDirectory: string | undefined;

  const running = (): RunningPrometheus => {
    if (!prometheus) throw new Error("Prometheus did not start");
    return prometheus;
  };

  /**
   * Horizons (or "" for series without one) for which an alert's expression was true at any
   * evaluation since `sinceSeconds`: a momentarily missing series cannot hide that it became true.
   */
  async function firingSince(alert: AlertName, sinceSeconds: number): Promise<string[]> {
    const expr = ALERT_EXPRESSIONS.get(alert);
    if (expr === undefined) throw new Error(`no alert ${alert} in the rules file`);
    // A Stellar RPC alert names its target in `rpc`, an agreement alert in `target`; the healthy simulator's RPC is called "healthy" too.
    return (await running().seriesSince(expr, sinceSeconds, SCRAPE_INTERVAL_SECONDS)).map(
      (labels) => labels.horizon ?? labels.rpc ?? labels.target ?? "",
    );
  }

  /** Alert expressions true since `sinceSeconds` for one of the given horizons or for the exporter as a whole. */
  async function alertsTrueFor(horizons: readonly string[], sinceSeconds: number): Promise<string[]> {
    const found: string[] = [];
    for (const alert of ALERT_EXPRESSIONS.keys()) {
      for (const horizon of await firingSince(alert, sinceSeconds)) {
        if (horizon === "" || horizons.includes(horizon)) found.push(`${alert}{horizon="${horizon}"}`);
      }
    }
    return found;
  }

  const nowSeconds = () => Date.now() / 1000;
  /** When the targets were healthy and every dashboard showed data; until then, when they started. */
  let warmedUpAt = 0;

  /** What Prometheus has for the series an alert reads and for the target's failed polls, to explain a timeout. */
  async function diagnose(alert: AlertName, horizon: string): Promise<string> {
    const names = [
      ...new Set(parsePromQL(ALERT_EXPRESSIONS.get(alert) ?? "").selectors.map((selector) => selector.metric)),
    ];
    const lines: string[] = [];
    for (const expr of [
      `{__name__=~"${names.join("|")}", horizon="${horizon}"}`,
      `sum by (endpoint, reason) (increase(stellar_horizon_exporter_poll_errors_total{horizon="${horizon}"}[1m])) > 0`,
    ]) {
      const samples = await running().query(expr);
      lines.push(`  ${expr}:`, ...samples.map((sample) => `    ${JSON.stringify(sample.metric)} ${sample.value}`));
    }
    return `${alert}{horizon="${horizon}"}:\n${lines.join("\n")}`;
  }

  beforeAll(async () => {
    const ledgerIntervals: Record<string, number> = { slow_ledgers: SLOW_LEDGER_INTERVAL_MS };
    const simulated = ["healthy", ...Object.keys(SCENARIO_ALERTS), "slow_ledgers", "stopped"];
    for (const horizon of simulated) {
      simulators.set(
        horizon,
        await startSimulator({
          host: "127.0.0.1",
          port: 0,
          ledgerIntervalMs: ledgerIntervals[horizon] ?? LEDGER_INTERVAL_MS,
          pools: 12,
          seed: 7,
          // Each simulator is a network of its own: their histories differ, and no agreement check may compare them.
          networkPassphrase: `Simulated network ${horizon} ; November 2026`,
        }),
      );
    }
    foreignApi = await startForeignApi();

    // Without retries and with a short timeout, flapping requests show up as failed polls within seconds.
    configDirectory = await mkdtemp(path.join(tmpdir(), "stellar-horizon-e2e-exporter-"));
    const configFile = path.join(configDirectory, "exporter.yml");
    await writeFile(
      configFile,
      stringify({
        targets: [
          ...[...simulators].map(([name, simulator]) => ({
            name,
            url: simulator.url,
            ...(ACCOUNT_TARGETS.has(name)
              ? { accounts: DEMO_WATCHED_ACCOUNTS.map((account) => accountEntry(account, ACTIVITY_TARGETS.has(name))) }
              : {}),
            ...(ASSET_TARGETS.has(name) ? { assets: DEMO_WATCHED_ASSETS.map((asset) => asset.name) } : {}),
            ...(MARKET_TARGETS.has(name) ? { markets: MARKET_ENTRIES } : {}),
            ...(PROBED_TARGETS.has(name)
              ? { tx_probe: { secret_env: `PROBE_SEED_${name.toUpperCase()}`, interval: "1s" } }
              : {}),
            // The demo's corridors, at their shortest schedule, give the corridor panels data.
            ...(CORRIDOR_TARGETS.includes(name) ? { corridors: DEMO_CORRIDORS.map(corridorEntry) } : {}),
          })),
          { name: "api_changed", url: foreignApi.url },
        ],
        // The healthy simulator's RPC, so the Stellar RPC dashboard and rules have data and stay quiet.
        // Its demo contracts' instance and code, weeks from archival even with 1 s ledgers, give the contracts dashboard data.
        rpc_targets: [
          {
            name: "healthy",
            url: `${simulators.get("healthy")?.url}/rpc`,
            // Its versions are read every 10 minutes: a first read timed out on a loaded machine
            // leaves the RPC panels without stellar_rpc_info for the whole suite.
            timeout: "10s",
            // The asset contract's events (transfer, mint) give the events panels data; the counter's are
            // not counted, so contract_upgrade on this simulator would stay quiet too.
            contracts: simulators
              .get("healthy")!
              .simulator.contracts.demo.map(({ name, id }) =>
                name === "usdc" ? { name, id, events: true, expect_events_within: "1h" } : { name, id },
              ),
          },
        ],
        poll_interval: "1s",
        // Five requests a poll per target: every 2 s keeps the 17 simulators' load moderate.
        // Markets move by minute buckets: every 5 s is plenty. Activity (two targets) every 5 s
        // sees the hot wallet's payments, one every 12 ledgers; assets keep their minute.
        schedules: { accounts: "2s", markets: "5s", activity: "5s", corridors: "15s" },
        http: { timeout: "2s", retries: 0 },
        web: { listen_address: "127.0.0.1:0" },
      }),
    );
    for (const [name, signer] of PROBED_TARGETS) {
      const simulator = simulators.get(name)!.simulator;
      simulator.accounts.add({ id: signer.publicKey(), balance: 10_000n * 10_000_000n }, simulator.latestLedgerPoint());
    }
    const seeds = Object.fromEntries(
      [...PROBED_TARGETS].map(([name, signer]) => [`PROBE_SEED_${name.toUpperCase()}`, signer.secret()]),
    );
    const command = await loadConfig([`--config.file=${configFile}`], seeds);
    if (command.kind !== "run") throw new Error(`exporter config rejected: ${JSON.stringify(command)}`);
    exporter = await startExporter(command.config, { logger: pino({ level: "silent" }) });

    proxy = await startRecordingProxy(() => exporter?.url);
    prometheus = await startPrometheus({
      jobName: JOB,
      target: proxy.host,
      ruleFiles: ruleFiles(),
      intervalSeconds: SCRAPE_INTERVAL_SECONDS,
    });
    // Before its first scrape, `up` is absent and StellarHorizonExporterDown's expression true.
    await until("Prometheus's first scrape of the exporter", async () =>
      (await running().query(`up{job="${JOB}"} == 1`)).length > 0 ? true : undefined,
    );
    warmedUpAt = nowSeconds();
  }, 60_000);

  afterAll(async () => {
    await prometheus?.close();
    await proxy?.close();
    await exporter?.close();
    await Promise.all([...simulators.values()].map((simulator) => simulator.close()));
    await foreignApi?.close();
    if (configDirectory) await rm(configDirectory, { recursive: true, force: true });
  }, 30_000);

  it("every rule's alert is exercised by a fault, or listed as not simulated", () => {
    const exercised = new Set([...FAULT_CASES.flatMap((fault) => fault.fires), ...NOT_SIMULATED, EXPORTER_DOWN]);
    expect([...ALERT_EXPRESSIONS.keys()].filter((alert) => !exercised.has(alert))).toEqual([]);
    expect(Object.keys(SCENARIO_ALERTS).sort()).toEqual(
      SCENARIOS.filter((scenario) => scenario !== "healthy" && !RPC_SCENARIOS.includes(scenario)).sort(),
    );
  });

  it("in healthy, every dashboard query returns data", async () => {
    // A panel shows data once it has had some within the time range: the corridors run every 15 s,
    // so their latency's rate over 10 s is only now and then defined.
    let empty = DASHBOARD_QUERIES;
    await until(
      () => `panels without data:\n  ${empty.map((query) => query.panel).join("\n  ")}`,
      async () => {
        const stillEmpty = [];
        for (const query of empty) if (!hasFiniteValue(await running().query(query.expr))) stillEmpty.push(query);
        empty = stillEmpty;
        return empty.length === 0 ? true : undefined;
      },
      // The markets' price panels wait for the first completed minute bucket with trades.
      { timeoutMs: 120_000, intervalMs: 2000 },
    );
    warmedUpAt = nowSeconds();
    expect(DASHBOARD_QUERIES.length).toBeGreaterThan(30);
  }, 150_000);

  it("Prometheus scrapes gzip-compressed and ingests every sample of each scrape", async () => {
    const scrapes = proxy?.scrapes ?? [];
    // Prometheus stamps each scrape's samples with the scrape's start; the proxy sees the request once
    // the test's busy event loop gets to it, up to the 1 s scrape timeout later. New series appear
    // between scrapes, so the scrape Prometheus stored is compared with each the proxy saw in that span.
    const candidates = (atMs: number) =>
      scrapes.filter((candidate) => candidate.atMs >= atMs - 100 && candidate.atMs < atMs + 1000);
    let ingested: Awaited<ReturnType<RunningPrometheus["rawSamples"]>> = [];
    const matched = await until(
      () =>
        `scrapes the proxy saw matching what Prometheus stored: proxy ${JSON.stringify(scrapes.slice(-10))}, Prometheus ${JSON.stringify(ingested)}`,
      async () => {
        ingested = await running().rawSamples(`scrape_samples_scraped{job="${JOB}"}`, 30);
        const pairs = ingested.flatMap((sample) => {
          const sent = candidates(sample.atMs).map((scrape) => scrape.samples);
          return sent.length === 0 ? [] : [{ sent, ingested: sample.value }];
        });
        return pairs.length >= 5 ? pairs : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 1000 },
    );
    for (const scrape of scrapes) {
      expect(scrape.acceptEncoding).toContain("gzip");
      expect(scrape.contentEncoding).toBe("gzip");
    }
    for (const { sent, ingested: count } of matched) expect(sent).toContain(count);
    expect(matched[0]!.ingested).toBeGreaterThan(500);
  }, 30_000);

  it("in healthy, no alert expression is true", async () => {
    expect(await alertsTrueFor(QUIET_TARGETS, nowSeconds())).toEqual([]);
  }, 30_000);

  it(
    "in each fault, the alert expressions meant for it become true, and its near misses stay false",
    async () => {
      const faultsStartedAt = nowSeconds();
      for (const [horizon, simulator] of simulators) {
        if (horizon in SCENARIO_ALERTS) simulator.simulator.setScenario(horizon);
      }
      await simulators.get("stopped")?.close();

      const pending = FAULT_CASES.flatMap((fault) => fault.fires.map((alert) => ({ alert, horizon: fault.horizon })));
      try {
        await until(
          "alert expressions still false",
          async () => {
            for (const expectation of [...pending]) {
              const firing = await firingSince(expectation.alert, faultsStartedAt);
              if (firing.includes(expectation.horizon)) pending.splice(pending.indexOf(expectation), 1);
            }
            return pending.length === 0 ? true : undefined;
          },
          { timeoutMs: FAULT_TIMEOUT_MS, intervalMs: 2000 },
        );
      } catch (error) {
        const diagnoses = await Promise.all(pending.map(({ alert, horizon }) => diagnose(alert, horizon)));
        throw new Error(`${(error as Error).message}\n${diagnoses.join("\n")}`);
      }

      for (const fault of FAULT_CASES) {
        for (const alert of fault.staysQuiet ?? []) {
          expect(await firingSince(alert, faultsStartedAt), `${alert} for ${fault.horizon}`).not.toContain(
            fault.horizon,
          );
        }
      }
      expect(await alertsTrueFor(QUIET_TARGETS, warmedUpAt)).toEqual([]);

      let empty = Object.entries(PANELS_FROM_FAULTS).flatMap(([panel, horizon]) =>
        dashboardQueries(horizon).filter((query) => query.panel === panel),
      );
      await until(
        () => `panels without data in their fault: ${empty.map((query) => query.panel).join(", ")}`,
        async () => {
          const stillEmpty = [];
          for (const query of empty) if (!hasFiniteValue(await running().query(query.expr))) stillEmpty.push(query);
          empty = stillEmpty;
          return empty.length === 0 ? true : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 2000 },
      );
    },
    FAULT_TIMEOUT_MS + 90_000,
  );

  it("with the exporter stopped, StellarHorizonExporterDown's expression becomes true", async () => {
    expect(await firingSince(EXPORTER_DOWN, warmedUpAt)).toEqual([]);
    const stoppedAt = nowSeconds();
    await exporter?.close();
    exporter = undefined;
    const firing = await until(
      "up of the exporter going to 0",
      async () => {
        const horizons = await firingSince(EXPORTER_DOWN, stoppedAt);
        return horizons.length > 0 ? horizons : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    expect(firing).toEqual([""]);
  }, 45_000);
});
