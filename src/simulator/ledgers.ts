/**
 * Ledgers as Horizon stores them: what a close produces (counts, fees, coins,
 * a real header and its hash chained to the previous ledger) and the bounded
 * window of ingested ledgers the simulator keeps.
 */

import { createHash } from "node:crypto";
import { drawFeeSample, feesCollected, type LedgerFeeSample } from "./fees.js";
import { encodeLedgerHeader } from "./ledger-header.js";
import { Ring } from "./ring.js";
import type { Rng } from "./rng.js";

export interface LedgerRecord {
  readonly sequence: number;
  readonly hash: string;
  readonly prevHash: string;
  readonly closedAtMs: number;
  readonly successfulTransactionCount: number;
  readonly failedTransactionCount: number;
  readonly operationCount: number;
  readonly txSetOperationCount: number;
  readonly totalCoins: bigint;
  readonly feePool: bigint;
  readonly baseFee: number;
  readonly baseReserve: number;
  readonly maxTxSetSize: number;
  readonly protocolVersion: number;
  readonly headerXdr: string;
  readonly fees: LedgerFeeSample;
}

/** What the network looked like when a ledger closed. */
export interface CloseConditions {
  readonly closedAtMs: number;
  readonly protocolVersion: number;
  readonly surgeFeeMultiplier: number;
  readonly failedShare: readonly [number, number];
  /** Submitted (single-operation) transactions the ledger includes besides its random traffic. */
  readonly submittedTransactions: number;
}

export const BASE_FEE_STROOPS = 100;
export const BASE_RESERVE_STROOPS = 5_000_000;
const MAX_TX_SET_SIZE = 1000;

/** Mainnet's supply since inflation ended: 105443902087.3472865 XLM. */
const MAINNET_TOTAL_COINS = 1_054_439_020_873_472_865n;
const MAINNET_FEE_POOL = 47_610_684_157_944n;
const MAINNET_ID_POOL = 1_577_045_952n;
const MAINNET_INFLATION_SEQUENCE = 278;
/** A freshly reset network starts from the genesis supply of 100 billion XLM. */
const GENESIS_TOTAL_COINS = 1_000_000_000_000_000_000n;
const VALIDATOR_COUNT = 7;
const TYPICAL_FEES_PER_LEDGER = 60_000n;
const TYPICAL_IDS_PER_LEDGER = 400n;
/** Stellar-core refreshes skip-list entries at these ledger intervals. */
const SKIP_LIST_INTERVALS = [50, 5000, 50_000, 500_000] as const;

interface ChainTip {
  hash: Buffer;
  totalCoins: bigint;
  feePool: bigint;
  idPool: bigint;
  inflationSequence: number;
}

/**
 * A different transaction set hash for a forked ledger: what a node that externalised another
 * transaction set would have, so every later hash differs through the chain while the ledger's
 * counts, fees and coins stay those of the network it forked from.
 */
function forkedTxSetHash(txSetHash: Uint8Array): Uint8Array {
  return createHash("sha256").update("fork").update(txSetHash).digest();
}

/** Closes ledgers one after another, carrying the hash chain, fee pool and id pool along. */
export class LedgerFactory {
  readonly #rng: Rng;
  /** The first forked sequence: from it on the hashes differ from the unforked network's. */
  readonly #forkAt: number;
  readonly #validators: Uint8Array[];
  #tip: ChainTip;
  #networkEpoch = 0;
  /** Last skip-list entry per level: entries only change once per interval. */
  readonly #skipListCache: ({ bucket: number; hash: Buffer } | undefined)[] = [];

  constructor(rng: Rng, forkAt = Infinity) {
    this.#rng = rng;
    this.#forkAt = forkAt;
    this.#validators = Array.from({ length: VALIDATOR_COUNT }, () => rng.fill(new Uint8Array(32)));
    this.#tip = {
      hash: Buffer.from(rng.fill(new Uint8Array(32))),
      totalCoins: MAINNET_TOTAL_COINS,
      feePool: MAINNET_FEE_POOL + BigInt(rng.int(0, 1_000_000_000)),
      idPool: MAINNET_ID_POOL + BigInt(rng.int(0, 100_000_000)),
      inflationSequence: MAINNET_INFLATION_SEQUENCE,
    };
  }

  /** Starts a brand-new chain from genesis, as a testnet reset does. */
  resetToGenesis(): void {
    this.#networkEpoch += 1;
    this.#skipListCache.length = 0;
    this.#tip = {
      hash: this.#derivedHash("genesis"),
      totalCoins: GENESIS_TOTAL_COINS,
      feePool: 0n,
      idPool: 0n,
      inflationSequence: 0,
    };
  }

  /**
   * Moves the chain past ledgers that are never materialised because they would
   * leave the retained window at once (a long jump of the clock), keeping the
   * fee pool and id pool growing as if they had closed.
   */
  skipLedgers(count: number): void {
    this.#tip = {
      ...this.#tip,
      hash: Buffer.from(this.#rng.fill(new Uint8Array(32))),
      feePool: this.#tip.feePool + TYPICAL_FEES_PER_LEDGER * BigInt(count),
      idPool: this.#tip.idPool + TYPICAL_IDS_PER_LEDGER * BigInt(count),
    };
  }

  close(sequence: number, conditions: CloseConditions): LedgerRecord {
    const rng = this.#rng;
    const surge = conditions.surgeFeeMultiplier > 1;
    const txSetOperationCount = surge ? rng.int(985, MAX_TX_SET_SIZE) : rng.int(250, 900);
    const transactions = Math.max(1, Math.round(txSetOperationCount / rng.between(1.6, 2.4)));
    const failedTransactionCount = Math.round(transactions * rng.between(...conditions.failedShare));
    const successfulTransactionCount = transactions - failedTransactionCount + conditions.submittedTransactions;
    const failedOperations = Math.min(
      txSetOperationCount - successfulTransactionCount,
      Math.round(failedTransactionCount * rng.between(1, 1.3)),
    );
    const fees = drawFeeSample(
      transactions,
      conditions.surgeFeeMultiplier,
      txSetOperationCount,
      MAX_TX_SET_SIZE,
      BASE_FEE_STROOPS,
      rng,
    );
    const feePool = this.#tip.feePool + feesCollected(fees);
    const idPool = this.#tip.idPool + BigInt(transactions + rng.int(0, transactions));

    const previousHash = this.#tip.hash;
    const header = this.#header(sequence, conditions, feePool, idPool);
    this.#tip = { ...this.#tip, hash: header.hash, feePool, idPool };

    return {
      sequence,
      hash: header.hash.toString("hex"),
      prevHash: previousHash.toString("hex"),
      closedAtMs: conditions.closedAtMs,
      successfulTransactionCount,
      failedTransactionCount,
      operationCount: txSetOperationCount - failedOperations + conditions.submittedTransactions,
      txSetOperationCount: txSetOperationCount + conditions.submittedTransactions,
      totalCoins: this.#tip.totalCoins,
      feePool,
      baseFee: BASE_FEE_STROOPS,
      baseReserve: BASE_RESERVE_STROOPS,
      maxTxSetSize: MAX_TX_SET_SIZE,
      protocolVersion: conditions.protocolVersion,
      headerXdr: header.xdr.toString("base64"),
      fees,
    };
  }

  /** The header of the ledger closing on the tip; its random fields drawn in the one order the seed fixes. */
  #header(sequence: number, conditions: CloseConditions, feePool: bigint, idPool: bigint) {
    const rng = this.#rng;
    const txSetHash = rng.fill(new Uint8Array(32));
    return encodeLedgerHeader({
      protocolVersion: conditions.protocolVersion,
      previousLedgerHash: this.#tip.hash,
      txSetHash: sequence >= this.#forkAt ? forkedTxSetHash(txSetHash) : txSetHash,
      closeTimeSeconds: Math.floor(conditions.closedAtMs / 1000),
      validatorKey: rng.pick(this.#validators),
      validatorSignature: rng.fill(new Uint8Array(64)),
      txSetResultHash: rng.fill(new Uint8Array(32)),
      bucketListHash: rng.fill(new Uint8Array(32)),
      sequence,
      totalCoins: this.#tip.totalCoins,
      feePool,
      inflationSequence: this.#tip.inflationSequence,
      idPool,
      baseFee: BASE_FEE_STROOPS,
      baseReserve: BASE_RESERVE_STROOPS,
      maxTxSetSize: MAX_TX_SET_SIZE,
      skipList: [
        this.#skipListEntry(0, sequence),
        this.#skipListEntry(1, sequence),
        this.#skipListEntry(2, sequence),
        this.#skipListEntry(3, sequence),
      ],
    });
  }

  /** Stand-in for the hash of an older ledger; stable for a whole skip-list interval. */
  #skipListEntry(level: 0 | 1 | 2 | 3, sequence: number): Buffer {
    const bucket = Math.floor(sequence / SKIP_LIST_INTERVALS[level]);
    const cached = this.#skipListCache[level];
    if (cached?.bucket === bucket) return cached.hash;
    const hash = this.#derivedHash(`skip:${level}:${bucket}`);
    this.#skipListCache[level] = { bucket, hash };
    return hash;
  }

  #derivedHash(label: string): Buffer {
    return createHash("sha256").update(`${this.#networkEpoch}:${label}`).digest();
  }
}

/** The ingested ledgers Horizon can serve: consecutive sequences, oldest evicted first. */
export class LedgerHistory {
  readonly #ring: Ring<LedgerRecord>;

  constructor(capacity: number) {
    this.#ring = new Ring(capacity);
  }

  get capacity(): number {
    return this.#ring.capacity;
  }

  get oldest(): LedgerRecord | undefined {
    return this.#ring.at(0);
  }

  get newest(): LedgerRecord | undefined {
    return this.#ring.at(this.#ring.length - 1);
  }

  append(record: LedgerRecord): void {
    const newest = this.newest;
    if (newest !== undefined && record.sequence !== newest.sequence + 1) {
      throw new RangeError(`ledger ${record.sequence} does not follow ${newest.sequence}`);
    }
    this.#ring.push(record);
  }

  get(sequence: number): LedgerRecord | undefined {
    const oldest = this.oldest;
    return oldest === undefined ? undefined : this.#ring.at(sequence - oldest.sequence);
  }

  /** Up to `count` consecutive ledgers starting at `sequence`, walking up (step 1) or down (step -1). */
  walk(sequence: number, step: 1 | -1, count: number): LedgerRecord[] {
    const records: LedgerRecord[] = [];
    for (let current = sequence; records.length < count; current += step) {
      const record = this.get(current);
      if (record === undefined) break;
      records.push(record);
    }
    return records;
  }

  /** The newest `count` ledgers, oldest first. */
  latest(count: number): LedgerRecord[] {
    const newest = this.newest;
    return newest === undefined ? [] : this.walk(newest.sequence, -1, count).reverse();
  }

  clear(): void {
    this.#ring.clear();
  }
}
