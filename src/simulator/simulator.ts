/**
 * The simulator: a model of the network and Horizon, a clock that drives it,
 * and the Hono app that serves it.
 */

import type { Hono } from "hono";
import { SimulatedAccounts, type LedgerPoint } from "./accounts.js";
import { SimulatedAssets } from "./asset-stats.js";
import { createHorizonApp } from "./app.js";
import { SimulatedContracts } from "./contracts.js";
import { addDemoAccounts, applyAccountEvent, runDemoActivity } from "./demo-accounts.js";
import { drawFault, HangingRequests, RateLimitBucket } from "./http-faults.js";
import { HorizonModel } from "./model.js";
import { OrderBook } from "./order-book.js";
import { PoolUniverse } from "./pools.js";
import { createRng, deriveSeed } from "./rng.js";
import { isScenarioName, SCENARIO_BEHAVIOURS, UnknownScenarioError, type ScenarioName } from "./scenarios.js";
import { SUBMISSION_TIMEOUT_MS, TransactionSubmissions, type SubmissionAnswer } from "./transactions.js";
import { formatTimestamp } from "./wire.js";

export interface SimulatorOptions {
  /** Scenario at start (default `healthy`). */
  scenario?: string;
  /** Fixed time between ledger closes; default: random 5000-7000 ms per ledger. */
  ledgerIntervalMs?: number;
  /** Number of liquidity pools (default 50). */
  pools?: number;
  /** Seed of every random choice (default 1): same seed, clock and requests give the same run. */
  seed?: number;
  /** Default: pubnet's "Public Global Stellar Network ; September 2015". */
  networkPassphrase?: string;
  /** Clock in epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /** How long a submission waits for a ledger before Horizon's 504 (default 30 s, as Horizon). */
  submissionTimeoutMs?: number;
  /**
   * When the simulated network's history starts being served, in epoch milliseconds, at most a
   * day before the clock (default: the clock at start). Simulators given the same seed, scenario,
   * ledger interval and network start serve the same ledgers, as nodes of one network do.
   */
  networkStartMs?: number;
  /** From this ledger sequence on, serve hashes of a fork: another history than the network's. */
  forkAt?: number;
  /** Serve no path-finding routes, as Horizon started with --disable-path-finding (they answer 404). */
  disablePathFinding?: boolean;
}

export interface SimulatorState {
  scenario: ScenarioName;
  seed: number;
  /** The simulator's clock, including time added with `advance`. */
  clock: string;
  coreLatestLedger: number;
  ingestLatestLedger: number;
  historyLatestLedger: number;
  historyElderLedger: number;
  /** Ledgers core is ahead of Horizon's ingestion. */
  ingestLag: number;
  currentProtocolVersion: number;
  supportedProtocolVersion: number;
  coreSupportedProtocolVersion: number;
  networkPassphrase: string;
  pools: number;
  /** Pool drained by `pool_drain` (it stays drained), if any. */
  drainedPoolId: string | null;
  /** Bounds of the time between ledger closes; equal when the interval is fixed. */
  ledgerIntervalMs: { min: number; max: number };
  /** When the network's history started being served: give it to another simulator to share the network. */
  networkStart: string;
  /** The first ledger served from a fork, if the simulator forks. */
  forkAt: number | null;
  /** Requests currently left hanging by `flapping`. */
  hangingRequests: number;
  /** Submitted transactions whose request waits for a ledger (or its timeout). */
  heldSubmissions: number;
}

const PUBNET_PASSPHRASE = "Public Global Stellar Network ; September 2015";
const DEFAULT_POOLS = 50;
const DEFAULT_SEED = 1;
const MAX_POOLS = 100_000;
/** A network start further back would make a simulator close more ledgers at start than it serves. */
export const MAX_NETWORK_START_AGE_MS = 24 * 60 * 60 * 1000;

interface Settings {
  scenario: ScenarioName;
  ledgerIntervalMs: number | undefined;
  pools: number;
  seed: number;
  networkPassphrase: string;
  now: () => number;
  networkStartMs: number;
  forkAt: number | undefined;
}

function validated(options: SimulatorOptions): Settings {
  const scenario = options.scenario ?? "healthy";
  if (!isScenarioName(scenario)) throw new UnknownScenarioError(scenario);
  const {
    ledgerIntervalMs,
    pools = DEFAULT_POOLS,
    seed = DEFAULT_SEED,
    networkPassphrase = PUBNET_PASSPHRASE,
  } = options;
  if (ledgerIntervalMs !== undefined && !(Number.isFinite(ledgerIntervalMs) && ledgerIntervalMs >= 1)) {
    throw new RangeError(`ledgerIntervalMs must be a number of milliseconds >= 1, got ${ledgerIntervalMs}`);
  }
  if (!Number.isInteger(pools) || pools < 0 || pools > MAX_POOLS) {
    throw new RangeError(`pools must be an integer from 0 to ${MAX_POOLS}, got ${pools}`);
  }
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (networkPassphrase === "") throw new RangeError("networkPassphrase must not be empty");
  const now = options.now ?? Date.now;
  const nowMs = now();
  const { networkStartMs = nowMs, forkAt } = options;
  if (
    !(Number.isFinite(networkStartMs) && networkStartMs <= nowMs && nowMs - networkStartMs <= MAX_NETWORK_START_AGE_MS)
  ) {
    throw new RangeError(
      `networkStartMs must be a time within the day before the clock's ${formatTimestamp(nowMs)}, got ` +
        `${networkStartMs}`,
    );
  }
  if (forkAt !== undefined && !(Number.isInteger(forkAt) && forkAt >= 1 && forkAt <= 0xffff_ffff)) {
    throw new RangeError(`forkAt must be a ledger sequence from 1 to ${0xffff_ffff}, got ${forkAt}`);
  }
  return { scenario, ledgerIntervalMs, pools, seed, networkPassphrase, now, networkStartMs, forkAt };
}

export class Simulator {
  readonly app: Hono;
  /** The generated pools, sorted by id (the order Horizon pages them in). */
  readonly pools: PoolUniverse;
  /** The ledger's accounts: the demo's hot and cold wallets, and any a test or probe adds. */
  readonly accounts = new SimulatedAccounts();
  /** `/assets`: the demo assets, USDC's parts following the accounts. */
  readonly assets: SimulatedAssets;
  /** Soroban state the RPC serves: the demo contracts and the state-archival settings. */
  readonly contracts: SimulatedContracts;
  /** The DEX the simulated ledgers trade against: offers, trades and their aggregations. */
  readonly orderBook: OrderBook;
  readonly #model: HorizonModel;
  /** The latest ledger whose account activity has been applied. */
  #activityThroughLedger: number;
  readonly #hangingRequests = new HangingRequests();
  readonly #seed: number;
  readonly #networkPassphrase: string;
  readonly #networkStartMs: number;
  readonly #forkAt: number | undefined;
  readonly #clock: () => number;
  readonly #submissions: TransactionSubmissions;
  /** Wakes the model when a held submission is due, as no request may come to do it. */
  #submissionTimer: NodeJS.Timeout | undefined;
  #advancedMs = 0;

  constructor(options: SimulatorOptions = {}) {
    const settings = validated(options);
    this.#seed = settings.seed;
    this.#networkPassphrase = settings.networkPassphrase;
    this.#networkStartMs = settings.networkStartMs;
    this.#forkAt = settings.forkAt;
    this.#clock = settings.now;
    this.pools = new PoolUniverse(settings.pools, settings.seed);
    this.assets = new SimulatedAssets(this.accounts, settings.networkPassphrase);
    this.#submissions = new TransactionSubmissions({
      networkPassphrase: settings.networkPassphrase,
      accounts: this.accounts,
      timeoutMs: options.submissionTimeoutMs ?? SUBMISSION_TIMEOUT_MS,
    });
    this.#model = new HorizonModel({
      seed: settings.seed,
      scenario: settings.scenario,
      // The history up to the network start, then every ledger since: the same for every simulator of the network.
      startMs: settings.networkStartMs,
      ledgerIntervalMs: settings.ledgerIntervalMs,
      ...(settings.forkAt === undefined ? {} : { forkAt: settings.forkAt }),
      onClose: (sequence, closedAtMs, including) => this.#submissions.closeLedger(sequence, closedAtMs, including),
    });
    this.accounts.history.networkPassphrase = settings.networkPassphrase;
    this.#model.catchUp(this.now());
    const start = this.latestLedgerPoint();
    // The hot wallet's shares are in a lumens pool the simulator serves (any pool without one), as on a real network.
    const heldPool = this.pools.pools.find((pool) => pool.assets.includes("native")) ?? this.pools.pools[0];
    addDemoAccounts(this.accounts, start, heldPool?.id);
    this.contracts = new SimulatedContracts(settings.networkPassphrase, start);
    this.orderBook = new OrderBook(settings.seed, start);
    this.#activityThroughLedger = start.ledger;
    this.#enterScenarioEvents(settings.scenario);
    const faultRng = createRng(deriveSeed(settings.seed, 4));
    const rateLimit = new RateLimitBucket();
    this.app = createHorizonApp({
      model: this.#model,
      pools: this.pools,
      accounts: this.accounts,
      assets: this.assets,
      orderBook: this.orderBook,
      contracts: this.contracts,
      networkPassphrase: settings.networkPassphrase,
      hangingRequests: this.#hangingRequests,
      pathFinding: !options.disablePathFinding,
      sync: () => this.#sync(),
      consumeRateLimit: (nowMs) => rateLimit.consume(nowMs),
      drawFault: () => drawFault(faultRng),
      setScenario: (name) => this.setScenario(name),
      submitTransaction: (envelopeXdr, baseUrl) => this.#submit(envelopeXdr, baseUrl),
      state: () => this.state(),
    });
  }

  get scenario(): ScenarioName {
    return this.#model.scenario;
  }

  /** Current simulated time: the clock plus everything added with `advance`. */
  now(): number {
    return this.#clock() + this.#advancedMs;
  }

  /** Moves simulated time forward, closing (and ingesting) every ledger due by then. */
  advance(ms: number): void {
    if (!(Number.isFinite(ms) && ms >= 0))
      throw new RangeError(`advance() needs a non-negative number of milliseconds, got ${ms}`);
    this.#advancedMs += ms;
    this.#sync();
  }

  /** Takes effect for the next request. Throws `UnknownScenarioError` for names not in `SCENARIOS`. */
  setScenario(name: string): void {
    if (!isScenarioName(name)) throw new UnknownScenarioError(name);
    this.#model.setScenario(name, this.now());
    this.#enterScenarioEvents(name);
    // A resumed network closes its next ledger at a new time: held submissions wait for that one.
    this.#scheduleSubmissionWake();
  }

  /** The latest ingested ledger: where a change made now lands. */
  latestLedgerPoint(): LedgerPoint {
    const status = this.#model.status();
    return { ledger: status.ingestLatestLedger, closedAtMs: status.historyLatestClosedAtMs };
  }

  state(): SimulatorState {
    this.#sync();
    const status = this.#model.status();
    const drained = status.poolDrainedAtLedger === null ? undefined : this.pools.drainTarget;
    return {
      scenario: status.scenario,
      seed: this.#seed,
      clock: formatTimestamp(this.now()),
      coreLatestLedger: status.coreLatestLedger,
      ingestLatestLedger: status.ingestLatestLedger,
      historyLatestLedger: status.historyLatestLedger,
      historyElderLedger: status.historyElderLedger,
      ingestLag: status.coreLatestLedger - status.ingestLatestLedger,
      currentProtocolVersion: status.versions.current,
      supportedProtocolVersion: status.versions.horizonSupported,
      coreSupportedProtocolVersion: status.versions.coreSupported,
      networkPassphrase: this.#networkPassphrase,
      networkStart: new Date(this.#networkStartMs).toISOString(),
      forkAt: this.#forkAt ?? null,
      pools: this.pools.pools.length,
      drainedPoolId: drained?.id ?? null,
      ledgerIntervalMs: this.#model.ledgerIntervalMs,
      hangingRequests: this.#hangingRequests.count,
      heldSubmissions: this.#submissions.waiting,
    };
  }

  /** Ends every request `flapping` left hanging (they get no answer), e.g. before shutting down. */
  releaseHangingRequests(): void {
    this.#hangingRequests.releaseAll();
    clearTimeout(this.#submissionTimer);
  }

  #submit(envelopeXdr: string, baseUrl: string): Promise<SubmissionAnswer> {
    const nowMs = this.#sync();
    const answer = this.#submissions.submit(envelopeXdr, {
      nowMs,
      minimumFeePerOperation: this.#model.minimumFeePerOperation,
      baseUrl,
    });
    this.#scheduleSubmissionWake();
    return answer;
  }

  #scheduleSubmissionWake(): void {
    clearTimeout(this.#submissionTimer);
    if (this.#submissions.waiting === 0) return;
    const dueMs = Math.min(this.#model.nextCloseMs ?? Infinity, this.#submissions.nextDeadlineMs() ?? Infinity);
    if (dueMs === Infinity) return;
    this.#submissionTimer = setTimeout(() => this.#sync(), Math.max(0, dueMs - this.now()) + 1);
    this.#submissionTimer.unref();
  }

  #sync(): number {
    const nowMs = this.now();
    this.#model.catchUp(nowMs);
    this.#runAccountActivity();
    if (this.#submissions.waiting > 0) {
      this.#submissions.settle(this.#model.status().ingestLatestLedger, nowMs);
      this.#scheduleSubmissionWake();
    }
    return nowMs;
  }

  #enterScenarioEvents(name: ScenarioName): void {
    const { accounts, contracts, assets, liquidity } = SCENARIO_BEHAVIOURS[name];
    if (assets === "mint") this.assets.mint();
    this.orderBook.scenarioEntered(liquidity === "leaving", this.latestLedgerPoint(), this.now());
    if (accounts !== undefined) applyAccountEvent(this.accounts, accounts, this.latestLedgerPoint());
    if (contracts === "expire_soon") this.contracts.expireSoon(this.latestLedgerPoint());
    if (contracts === "fall_silent") this.contracts.events.silence(this.latestLedgerPoint().ledger + 1);
    if (contracts === "upgrade") this.contracts.events.upgrade(this.latestLedgerPoint().ledger + 1);
  }

  /** Applies the accounts' everyday traffic to each ledger ingested since the last sync. */
  #runAccountActivity(): void {
    const { ingestLatestLedger: latest, historyElderLedger } = this.#model.status();
    // After a network reset the sequence starts again below, with a history of its own: its ledgers carry activity
    // from the first on, however many closed before this sync.
    const reset = latest < this.#activityThroughLedger;
    if (reset) {
      this.accounts.history.forget();
      this.orderBook.forgetTrades();
    }
    const from = reset ? historyElderLedger : this.#activityThroughLedger + 1;
    for (let ledger = from; ledger <= latest; ledger += 1) {
      const record = this.#model.ledger(ledger);
      if (record === undefined) continue;
      runDemoActivity(this.accounts, { ledger, closedAtMs: record.closedAtMs }, SCENARIO_BEHAVIOURS[this.scenario]);
      this.orderBook.closeLedger({ ledger, closedAtMs: record.closedAtMs }, this.#model.status().behaviour);
    }
    this.#activityThroughLedger = latest;
  }
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return new Simulator(options);
}
