/**
 * The simulated network and Horizon's view of it: stellar-core closes ledgers on
 * a clock, Horizon ingests them (or falls behind), and scenarios change how
 * either behaves. Time only moves when `catchUp(now)` is called, so a test
 * clock fully controls it.
 */

import { computeFeeStats, FEE_STATS_WINDOW, type FeeStats } from "./fees.js";
import { BASE_FEE_STROOPS, LedgerFactory, LedgerHistory, type CloseConditions, type LedgerRecord } from "./ledgers.js";
import { Ring } from "./ring.js";
import { createRng, deriveSeed, type Rng } from "./rng.js";
import {
  protocolVersions,
  SCENARIO_BEHAVIOURS,
  type ProtocolVersions,
  type ScenarioBehaviour,
  type ScenarioName,
} from "./scenarios.js";

export interface ModelOptions {
  readonly seed: number;
  readonly scenario: ScenarioName;
  /** Clock reading when the model starts. */
  readonly startMs: number;
  /** Fixed time between ledger closes; random per ledger in `DEFAULT_LEDGER_INTERVAL_MS` when absent. */
  readonly ledgerIntervalMs?: number;
  /** Told of every ledger core closes; answers how many submitted transactions it includes. */
  readonly onClose?: (sequence: number, closedAtMs: number, including: boolean) => number;
  /** From this sequence on, ledgers hash differently from the unforked network's (default: never). */
  readonly forkAt?: number;
}

const DEFAULT_LEDGER_INTERVAL_MS = { min: 5000, max: 7000 } as const;
/** Ingested ledgers kept (and served); older ones are forgotten, so memory stays bounded. */
const HISTORY_CAPACITY = 20_000;
/** Ledgers already ingested when the simulator starts (about 1.7 hours at mainnet pace). */
const INITIAL_HISTORY_LEDGERS = 1000;
/** Under `ingest_lag` the lag grows to this many ledgers, then holds. */
const INGEST_LAG_PEAK = 50;
/** While the lag grows, Horizon ingests one ledger per this many closes. */
const LAGGING_CLOSES_PER_INGESTED_LEDGER = 5;
/** A healthy Horizon with a backlog ingests up to this many ledgers per close (the lag shrinks by one less). */
const CATCH_UP_LEDGERS_PER_CLOSE = 5;
/** After a reset, ledgers 2..(1 + this) have already closed: the network restarts from genesis (ledger 1). */
const LEDGERS_AFTER_RESET = 3;
const GENESIS_SEQUENCE = 1;

interface PendingClose {
  readonly sequence: number;
  readonly conditions: CloseConditions;
}

export interface ModelStatus {
  readonly scenario: ScenarioName;
  readonly behaviour: ScenarioBehaviour;
  readonly versions: ProtocolVersions;
  readonly coreLatestLedger: number;
  readonly ingestLatestLedger: number;
  readonly historyLatestLedger: number;
  readonly historyLatestClosedAtMs: number;
  readonly historyElderLedger: number;
  /** Ledger at which the first pool was drained, if `pool_drain` has happened. */
  readonly poolDrainedAtLedger: number | null;
}

export class HorizonModel {
  readonly #intervalRng: Rng;
  readonly #fixedIntervalMs: number | undefined;
  readonly #factory: LedgerFactory;
  readonly #history: LedgerHistory;
  /** Ledgers core has closed that are not yet in `#history` (not ingested, or not yet materialised). */
  readonly #pending: Ring<PendingClose>;
  readonly #onClose: NonNullable<ModelOptions["onClose"]>;
  #scenario: ScenarioName;
  #behaviour: ScenarioBehaviour;
  #coreLatest: number;
  #ingestedThrough: number;
  #lastCloseMs: number;
  #nextCloseMs: number;
  #closesSinceLaggingIngest = 0;
  #poolDrainedAtLedger: number | null = null;

  constructor(options: ModelOptions) {
    // Separate streams: close times must not depend on when ledgers get materialised.
    this.#intervalRng = createRng(deriveSeed(options.seed, 1));
    const contentRng = createRng(deriveSeed(options.seed, 2));
    this.#fixedIntervalMs = options.ledgerIntervalMs;
    this.#onClose = options.onClose ?? (() => 0);
    this.#factory = new LedgerFactory(contentRng, options.forkAt);
    this.#history = new LedgerHistory(HISTORY_CAPACITY);
    this.#pending = new Ring(HISTORY_CAPACITY);
    this.#scenario = options.scenario;
    this.#behaviour = SCENARIO_BEHAVIOURS[options.scenario];

    const latest = 59_000_000 + contentRng.int(0, 999_999);
    const closeTimes = this.#closeTimesEndingAt(options.startMs, INITIAL_HISTORY_LEDGERS);
    this.#fillHistory(latest - closeTimes.length + 1, closeTimes);
    this.#coreLatest = latest;
    this.#ingestedThrough = latest;
    this.#lastCloseMs = closeTimes[closeTimes.length - 1] ?? options.startMs;
    this.#nextCloseMs = this.#lastCloseMs + this.#drawIntervalMs();
    this.#applyEntryEffect(options.startMs);
  }

  get scenario(): ScenarioName {
    return this.#scenario;
  }

  get ledgerIntervalMs(): { min: number; max: number } {
    return this.#fixedIntervalMs === undefined
      ? { ...DEFAULT_LEDGER_INTERVAL_MS }
      : { min: this.#fixedIntervalMs, max: this.#fixedIntervalMs };
  }

  /** Closes every ledger due by `nowMs` and ingests what the scenario lets Horizon ingest. */
  catchUp(nowMs: number): void {
    if (this.#behaviour.core === "closing") {
      while (this.#nextCloseMs <= nowMs) {
        this.#closeLedger(this.#nextCloseMs);
        this.#nextCloseMs += this.#drawIntervalMs();
      }
    }
    this.#materialiseIngested();
  }

  /** Switches scenario at `nowMs`; everything due before then happened under the old one. */
  setScenario(scenario: ScenarioName, nowMs: number): void {
    this.catchUp(nowMs);
    const resumingCore = this.#behaviour.core === "halted" && SCENARIO_BEHAVIOURS[scenario].core === "closing";
    this.#scenario = scenario;
    this.#behaviour = SCENARIO_BEHAVIOURS[scenario];
    this.#closesSinceLaggingIngest = 0;
    // A halted network resumes one interval after it restarts, not with a burst of overdue ledgers.
    if (resumingCore) this.#nextCloseMs = nowMs + this.#drawIntervalMs();
    this.#applyEntryEffect(nowMs);
  }

  status(): ModelStatus {
    const newest = this.#requireLedger(this.#history.newest);
    return {
      scenario: this.#scenario,
      behaviour: this.#behaviour,
      versions: protocolVersions(this.#behaviour),
      coreLatestLedger: this.#coreLatest,
      ingestLatestLedger: newest.sequence,
      historyLatestLedger: newest.sequence,
      historyLatestClosedAtMs: newest.closedAtMs,
      historyElderLedger: this.#requireLedger(this.#history.oldest).sequence,
      poolDrainedAtLedger: this.#poolDrainedAtLedger,
    };
  }

  ledger(sequence: number): LedgerRecord | undefined {
    return this.#history.get(sequence);
  }

  /** Up to `count` ingested ledgers from `sequence` upwards (step 1) or downwards (step -1). */
  ledgers(sequence: number, step: 1 | -1, count: number): LedgerRecord[] {
    return this.#history.walk(sequence, step, count);
  }

  /** When core closes its next ledger, if it is closing any. */
  get nextCloseMs(): number | undefined {
    return this.#behaviour.core === "closing" ? this.#nextCloseMs : undefined;
  }

  /** The fee per operation core accepts now: the base fee, times the surge multiplier. */
  get minimumFeePerOperation(): number {
    return BASE_FEE_STROOPS * this.#behaviour.feeMultiplier;
  }

  feeStats(): FeeStats {
    const window = this.#history.latest(FEE_STATS_WINDOW);
    const last = this.#requireLedger(window[window.length - 1]);
    return computeFeeStats(
      last.sequence,
      window.map((record) => record.fees),
    );
  }

  #requireLedger(record: LedgerRecord | undefined): LedgerRecord {
    // The history is never empty: it is filled at start and right after a reset.
    if (record === undefined) throw new Error("simulated history is empty");
    return record;
  }

  #drawIntervalMs(): number {
    return (
      this.#fixedIntervalMs ?? this.#intervalRng.int(DEFAULT_LEDGER_INTERVAL_MS.min, DEFAULT_LEDGER_INTERVAL_MS.max)
    );
  }

  #closeConditions(closedAtMs: number, submittedTransactions = 0): CloseConditions {
    return {
      submittedTransactions,
      closedAtMs,
      protocolVersion: protocolVersions(this.#behaviour).current,
      surgeFeeMultiplier: this.#behaviour.feeMultiplier,
      failedShare: this.#behaviour.failedShare,
    };
  }

  /** `count` close times, one interval apart, the last one at most an interval before `endMs`. */
  #closeTimesEndingAt(endMs: number, count: number): number[] {
    const times: number[] = [];
    let time = endMs - Math.floor(this.#intervalRng.next() * this.#drawIntervalMs());
    for (let i = 0; i < count; i++) {
      times.push(time);
      time -= this.#drawIntervalMs();
    }
    return times.reverse();
  }

  #fillHistory(firstSequence: number, closeTimes: readonly number[]): void {
    closeTimes.forEach((closedAtMs, offset) => {
      this.#history.append(this.#factory.close(firstSequence + offset, this.#closeConditions(closedAtMs)));
    });
  }

  #closeLedger(closedAtMs: number): void {
    this.#coreLatest += 1;
    this.#lastCloseMs = closedAtMs;
    const submitted = this.#onClose(this.#coreLatest, closedAtMs, this.#behaviour.submissions === "including");
    this.#pending.push({ sequence: this.#coreLatest, conditions: this.#closeConditions(closedAtMs, submitted) });
    this.#advanceIngestion();
  }

  #advanceIngestion(): void {
    switch (this.#behaviour.ingestion) {
      case "following":
        this.#ingestedThrough = Math.min(this.#coreLatest, this.#ingestedThrough + CATCH_UP_LEDGERS_PER_CLOSE);
        return;
      case "lagging":
        if (this.#coreLatest - this.#ingestedThrough > INGEST_LAG_PEAK) {
          this.#ingestedThrough += 1;
        } else if (++this.#closesSinceLaggingIngest >= LAGGING_CLOSES_PER_INGESTED_LEDGER) {
          this.#closesSinceLaggingIngest = 0;
          this.#ingestedThrough += 1;
        }
        return;
      case "stalled":
        return;
    }
  }

  /** Turns ingested sequences into ledger records; ledgers that would be evicted at once are skipped. */
  #materialiseIngested(): void {
    const newest = this.#requireLedger(this.#history.newest).sequence;
    let next = newest + 1;
    const overflow = this.#ingestedThrough - newest - this.#history.capacity;
    if (overflow > 0) {
      this.#factory.skipLedgers(overflow);
      this.#history.clear();
      next += overflow;
    }
    for (; next <= this.#ingestedThrough; next++) {
      this.#history.append(this.#factory.close(next, this.#takePendingConditions(next)));
    }
  }

  /**
   * Close conditions recorded for `sequence`. If the pending ring overflowed (core
   * far ahead of a stalled Horizon), the close time is interpolated between the
   * neighbouring ledgers that are still known.
   */
  #takePendingConditions(sequence: number): CloseConditions {
    while ((this.#pending.at(0)?.sequence ?? Infinity) < sequence) this.#pending.shift();
    const head = this.#pending.at(0);
    if (head?.sequence === sequence) {
      this.#pending.shift();
      return head.conditions;
    }
    const before = this.#history.newest;
    const after = head ?? { sequence: this.#coreLatest, conditions: this.#closeConditions(this.#lastCloseMs) };
    if (before === undefined) return after.conditions;
    const share = (sequence - before.sequence) / (after.sequence - before.sequence);
    const closedAtMs = Math.round(before.closedAtMs + share * (after.conditions.closedAtMs - before.closedAtMs));
    return { ...after.conditions, closedAtMs, surgeFeeMultiplier: 1, submittedTransactions: 0 };
  }

  #applyEntryEffect(nowMs: number): void {
    switch (this.#behaviour.onEnter) {
      case "reset_network":
        this.#resetNetwork(nowMs);
        return;
      case "drain_pool":
        this.#poolDrainedAtLedger ??= this.#ingestedThrough;
        return;
      case undefined:
        return;
    }
  }

  /** A testnet-style reset: new genesis, new hashes, sequences restart just above 1. */
  #resetNetwork(nowMs: number): void {
    this.#history.clear();
    this.#pending.clear();
    this.#factory.resetToGenesis();
    const closeTimes = this.#closeTimesEndingAt(nowMs, LEDGERS_AFTER_RESET);
    this.#fillHistory(GENESIS_SEQUENCE + 1, closeTimes);
    this.#coreLatest = GENESIS_SEQUENCE + LEDGERS_AFTER_RESET;
    this.#ingestedThrough = this.#coreLatest;
    this.#lastCloseMs = closeTimes[closeTimes.length - 1] ?? nowMs;
    this.#nextCloseMs = this.#lastCloseMs + this.#drawIntervalMs();
    this.#closesSinceLaggingIngest = 0;
    if (this.#poolDrainedAtLedger !== null) this.#poolDrainedAtLedger = this.#coreLatest;
  }
}
