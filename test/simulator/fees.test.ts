import { describe, expect, it } from "vitest";
import { FEE_STATS } from "../../src/catalog/metrics.js";
import { computeFeeStats, inclusionFeeStats, type LedgerFeeSample } from "../../src/simulator/fees.js";

/** Counts per level: fee_charged levels 100, 101, 150, 200, 500; max_fee levels 100 ... 1000000. */
function sample(feeCharged: number[], maxFee: number[], options: Partial<LedgerFeeSample> = {}): LedgerFeeSample {
  return {
    multiplier: 1,
    feeChargedCounts: Uint16Array.from(feeCharged),
    maxFeeCounts: Uint16Array.from(maxFee),
    txSetOperationCount: 500,
    maxTxSetSize: 1000,
    baseFee: 100,
    ...options,
  };
}

describe("fee stats as Horizon computes them", () => {
  it("percentiles are percentile_disc over the per-operation fees of the window's transactions", () => {
    const stats = computeFeeStats(1234, [sample([90, 5, 0, 0, 5], [0, 0, 0, 100, 0, 0, 0, 0, 0])]);
    expect(stats).toEqual({
      last_ledger: "1234",
      last_ledger_base_fee: "100",
      ledger_capacity_usage: "0.5",
      fee_charged: {
        max: "500",
        min: "100",
        mode: "100",
        p10: "100",
        p20: "100",
        p30: "100",
        p40: "100",
        p50: "100",
        p60: "100",
        p70: "100",
        p80: "100",
        p90: "100",
        p95: "101",
        p99: "500",
      },
      max_fee: {
        max: "1000",
        min: "1000",
        mode: "1000",
        p10: "1000",
        p20: "1000",
        p30: "1000",
        p40: "1000",
        p50: "1000",
        p60: "1000",
        p70: "1000",
        p80: "1000",
        p90: "1000",
        p95: "1000",
        p99: "1000",
      },
    });
  });

  it("merges ledgers with and without surge pricing, and rounds capacity to two decimals", () => {
    const calm = sample([10, 0, 0, 0, 0], [10, 0, 0, 0, 0, 0, 0, 0, 0], { txSetOperationCount: 333 });
    const surge = sample([30, 0, 0, 0, 0], [0, 30, 0, 0, 0, 0, 0, 0, 0], { multiplier: 50, txSetOperationCount: 1000 });
    const stats = computeFeeStats(7, [calm, surge]);
    expect(stats.ledger_capacity_usage).toBe("0.67");
    expect(stats.fee_charged).toMatchObject({ min: "100", p20: "100", p30: "5000", mode: "5000", max: "5000" });
    expect(stats.max_fee).toMatchObject({ min: "100", p30: "6000", max: "6000" });
  });

  it("a window without transactions reports the base fee everywhere; mode ties go to the smaller fee", () => {
    const empty = computeFeeStats(9, [
      sample([0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0], { txSetOperationCount: 0 }),
    ]);
    expect(empty.ledger_capacity_usage).toBe("0");
    expect(new Set([...Object.values(empty.fee_charged), ...Object.values(empty.max_fee)])).toEqual(new Set(["100"]));
    const tied = computeFeeStats(9, [sample([3, 0, 0, 3, 0], [0, 0, 0, 0, 0, 0, 0, 0, 1])]);
    expect(tied.fee_charged.mode).toBe("100");
    expect(tied.max_fee.max).toBe("1000000");
  });
});

describe("getFeeStats' distribution as stellar-rpc computes it", () => {
  it("a window without transactions is stellar-rpc's zero FeeDistribution: every value 0, ledgerCount 0", () => {
    const quiet = sample([0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const stats = inclusionFeeStats([quiet, quiet, quiet]);
    for (const stat of FEE_STATS) expect(stats[stat]).toBe("0");
    expect(stats.transactionCount).toBe("0");
    expect(stats.ledgerCount).toBe(0);
  });
});
