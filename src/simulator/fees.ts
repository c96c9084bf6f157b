/**
 * Fee statistics the way Horizon computes `/fee_stats`: over the transactions of
 * the last five ingested ledgers, percentiles (Postgres `percentile_disc`) and the
 * mode of the fee per operation, for both `fee_charged` and `max_fee`.
 *
 * Each ledger keeps only a histogram over a fixed set of per-operation fee
 * levels, so memory per ledger is constant while the statistics stay exact for
 * the simulated transactions.
 */

import type { Rng } from "./rng.js";

export const FEE_STATS_WINDOW = 5;

interface FeeLevels {
  readonly stroopsPerOperation: readonly number[];
  readonly weights: readonly number[];
}

/** Outside surge pricing almost everyone pays the base fee; Soroban resource fees make the tail. */
const FEE_CHARGED_LEVELS: FeeLevels = {
  stroopsPerOperation: [100, 101, 150, 200, 500],
  weights: [0.955, 0.02, 0.01, 0.01, 0.005],
};

/** Bids follow the shape of a mainnet capture: mode 1000, p30 120, p95 3000, p99 15000. */
const MAX_FEE_LEVELS: FeeLevels = {
  stroopsPerOperation: [100, 120, 300, 1000, 2000, 3000, 10000, 15000, 1000000],
  weights: [0.25, 0.08, 0.1, 0.45, 0.05, 0.04, 0.018, 0.01, 0.002],
};

/** What one ledger contributes to fee statistics. */
export interface LedgerFeeSample {
  /** Surge pricing multiplies every level (1 when the network is not congested). */
  readonly multiplier: number;
  readonly feeChargedCounts: Uint16Array;
  readonly maxFeeCounts: Uint16Array;
  readonly txSetOperationCount: number;
  readonly maxTxSetSize: number;
  readonly baseFee: number;
}

function drawCounts(levels: FeeLevels, transactions: number, rng: Rng): Uint16Array {
  const counts = new Uint16Array(levels.weights.length);
  let assigned = 0;
  levels.weights.forEach((weight, level) => {
    if (level === 0) return;
    const count = Math.min(transactions - assigned, Math.round(weight * transactions * rng.between(0.5, 1.5)));
    counts[level] = count;
    assigned += count;
  });
  counts[0] = transactions - assigned;
  return counts;
}

export function drawFeeSample(
  transactions: number,
  multiplier: number,
  txSetOperationCount: number,
  maxTxSetSize: number,
  baseFee: number,
  rng: Rng,
): LedgerFeeSample {
  return {
    multiplier,
    feeChargedCounts: drawCounts(FEE_CHARGED_LEVELS, transactions, rng),
    maxFeeCounts: drawCounts(MAX_FEE_LEVELS, transactions, rng),
    txSetOperationCount,
    maxTxSetSize,
    baseFee,
  };
}

/** Stroops charged by a ledger's transactions: the per-operation fee times operations per transaction. */
export function feesCollected(sample: LedgerFeeSample): bigint {
  const transactions = sample.feeChargedCounts.reduce((sum, count) => sum + count, 0);
  if (transactions === 0) return 0n;
  const perOperationTotal = FEE_CHARGED_LEVELS.stroopsPerOperation.reduce(
    (sum, level, index) => sum + level * sample.multiplier * (sample.feeChargedCounts[index] ?? 0),
    0,
  );
  return BigInt(Math.round((perOperationTotal * sample.txSetOperationCount) / transactions));
}

export interface FeeDistribution {
  max: string;
  min: string;
  mode: string;
  p10: string;
  p20: string;
  p30: string;
  p40: string;
  p50: string;
  p60: string;
  p70: string;
  p80: string;
  p90: string;
  p95: string;
  p99: string;
}

export interface FeeStats {
  last_ledger: string;
  last_ledger_base_fee: string;
  ledger_capacity_usage: string;
  fee_charged: FeeDistribution;
  max_fee: FeeDistribution;
}

function distribution(values: ReadonlyMap<number, number>, emptyValue: number): FeeDistribution {
  const counted = [...values.entries()].filter(([, count]) => count > 0).sort(([left], [right]) => left - right);
  // Horizon reports the last base fee everywhere when the window has no transactions.
  const sorted: [number, number][] = counted.length > 0 ? counted : [[emptyValue, 1]];
  const total = sorted.reduce((sum, [, count]) => sum + count, 0);
  const valueAt = (index: number): string => String(sorted[index]?.[0] ?? emptyValue);
  const percentile = (p: number): string => {
    // percentile_disc: the first value whose cumulative share reaches p.
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    return valueAt(sorted.findIndex(([, count]) => (seen += count) >= rank));
  };
  // Postgres mode() keeps the first (smallest) value among equally frequent ones.
  const mode = sorted.reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  return {
    max: valueAt(sorted.length - 1),
    min: valueAt(0),
    mode: String(mode[0]),
    p10: percentile(10),
    p20: percentile(20),
    p30: percentile(30),
    p40: percentile(40),
    p50: percentile(50),
    p60: percentile(60),
    p70: percentile(70),
    p80: percentile(80),
    p90: percentile(90),
    p95: percentile(95),
    p99: percentile(99),
  };
}

function mergeLevels(
  samples: readonly LedgerFeeSample[],
  levels: FeeLevels,
  pick: (sample: LedgerFeeSample) => Uint16Array,
): Map<number, number> {
  const merged = new Map<number, number>();
  for (const sample of samples) {
    pick(sample).forEach((count, index) => {
      const value = (levels.stroopsPerOperation[index] ?? 0) * sample.multiplier;
      merged.set(value, (merged.get(value) ?? 0) + count);
    });
  }
  return merged;
}

/** Stellar RPC's getFeeStats distribution: inclusion fees per operation over a window of ledgers, newest last. */
export function inclusionFeeStats(
  window: readonly LedgerFeeSample[],
): FeeDistribution & { transactionCount: string; ledgerCount: number } {
  const charged = mergeLevels(window, FEE_CHARGED_LEVELS, (sample) => sample.feeChargedCounts);
  const transactions = [...charged.values()].reduce((sum, count) => sum + count, 0);
  // Unlike Horizon, stellar-rpc answers a window without transactions with its zero FeeDistribution, ledgerCount too.
  return {
    ...distribution(charged, 0),
    transactionCount: String(transactions),
    ledgerCount: transactions === 0 ? 0 : window.length,
  };
}

/**
 * `/fee_stats` for a window of ledgers, newest last. Capacity usage is Horizon's
 * `ROUND(SUM(operations) / SUM(max_tx_set_size), 2)`, rendered as Go renders a float.
 */
export function computeFeeStats(lastLedger: number, window: readonly LedgerFeeSample[]): FeeStats {
  const newest = window[window.length - 1];
  const baseFee = newest?.baseFee ?? 100;
  const operations = window.reduce((sum, sample) => sum + sample.txSetOperationCount, 0);
  const capacity = window.reduce((sum, sample) => sum + sample.maxTxSetSize, 0);
  const usage = capacity === 0 ? 0 : Math.round((operations / capacity) * 100) / 100;
  return {
    last_ledger: String(lastLedger),
    last_ledger_base_fee: String(baseFee),
    ledger_capacity_usage: String(usage),
    fee_charged: distribution(
      mergeLevels(window, FEE_CHARGED_LEVELS, (sample) => sample.feeChargedCounts),
      baseFee,
    ),
    max_fee: distribution(
      mergeLevels(window, MAX_FEE_LEVELS, (sample) => sample.maxFeeCounts),
      baseFee,
    ),
  };
}
