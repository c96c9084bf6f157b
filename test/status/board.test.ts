import { describe, expect, it } from "vitest";
import { METRICS, RPC_METRICS, type MetricDefinition } from "../../src/catalog/metrics.js";
import { HistogramData } from "../../src/exposition/samples.js";
import { HISTORY_CAPACITY, HISTORY_WINDOW_MS } from "../../src/status/board.js";
import { createStatusBoard } from "../../src/status/model.js";

const A = { label: "horizon", name: "a" } as const;

function clock(startMs: number) {
  const time = { nowMs: startMs };
  return { time, now: () => time.nowMs };
}

describe("StatusBoard", () => {
  it("keeps the families the page reads and none of the per-pool ones", () => {
    const board = createStatusBoard();
    expect(board.wants(METRICS.ingestLagLedgers)).toBe(true);
    expect(board.wants(METRICS.liquidityPools)).toBe(true);
    expect(board.wants(METRICS.liquidityPoolReserve)).toBe(false);
    expect(board.wants(METRICS.liquidityPoolInfo)).toBe(false);
    expect(board.wants(METRICS.liquidityPoolShares)).toBe(false);
  });

  it("shows live series while fresh and persistent ones always, as /metrics does", () => {
    const board = createStatusBoard();
    board.published(
      A,
      "root",
      { live: [{ metric: METRICS.ingestLagLedgers, value: 3 }], persistent: [{ metric: METRICS.up, value: 1 }] },
      10_000,
    );
    expect(board.series(A, METRICS.ingestLagLedgers.name, 9_999)).toEqual([{ labels: {}, value: 3 }]);
    expect(board.series(A, METRICS.ingestLagLedgers.name, 10_000)).toEqual([]);
    expect(board.series(A, METRICS.up.name, 99_999)).toEqual([{ labels: {}, value: 1 }]);
    expect(board.series({ label: "horizon", name: "b" }, METRICS.up.name, 0)).toEqual([]);
    board.removed(A, "root");
    expect(board.series(A, METRICS.up.name, 0)).toEqual([]);
  });

  it("keeps a Horizon and a Stellar RPC of the same name apart", () => {
    const board = createStatusBoard();
    board.published(A, "root", { live: [], persistent: [{ metric: METRICS.up, value: 0 }] }, Infinity);
    const rpc = { label: "rpc", name: "a" } as const;
    board.published(rpc, "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] }, Infinity);
    expect(board.series(A, METRICS.up.name, 0)).toEqual([{ labels: {}, value: 0 }]);
    expect(board.series(rpc, RPC_METRICS.up.name, 0)).toEqual([{ labels: {}, value: 1 }]);
    expect(board.series(rpc, METRICS.up.name, 0)).toEqual([]);
    // The Horizon leaving takes nothing of the RPC's.
    board.removed(A, "root");
    expect(board.series(rpc, RPC_METRICS.up.name, 0)).toEqual([{ labels: {}, value: 1 }]);
  });

  it("records gauge points at publication time, matching labels, and none after a failed poll", () => {
    const { time, now } = clock(1_000_000);
    const board = createStatusBoard(now);
    const fees = (p50: number, p90: number) => [
      { metric: METRICS.feeCharged, labels: { stat: "p10" }, value: 1 },
      { metric: METRICS.feeCharged, labels: { stat: "p50" }, value: p50 },
      { metric: METRICS.feeCharged, labels: { stat: "p90" }, value: p90 },
    ];
    board.published(A, "fee_stats", { live: fees(100, 200), persistent: [] }, Infinity);
    time.nowMs += 10_000;
    board.published(A, "fee_stats", { live: [], persistent: [] }, 0);
    time.nowMs += 10_000;
    board.published(A, "fee_stats", { live: fees(150, 300), persistent: [] }, Infinity);
    expect(board.history(A, "fee_p50", time.nowMs)).toEqual([
      { atMs: 1_000_000, value: 100 },
      { atMs: 1_020_000, value: 150 },
    ]);
    expect(board.history(A, "fee_p90", time.nowMs)).toEqual([
      { atMs: 1_000_000, value: 200 },
      { atMs: 1_020_000, value: 300 },
    ]);
    expect(board.history(A, "fee_p90", 1_000_000 + HISTORY_WINDOW_MS + 1)).toEqual([{ atMs: 1_020_000, value: 300 }]);
  });

  it("plots the mean of each poll's new histogram observations, from the copied _sum and _count", () => {
    const { time, now } = clock(0);
    const board = createStatusBoard(now);
    const intervals = new HistogramData(METRICS.ledgerCloseInterval.buckets);
    const publish = () =>
      board.published(
        A,
        "ledgers",
        { live: [], persistent: [{ metric: METRICS.ledgerCloseInterval, histogram: intervals }] },
        0,
      );
    publish();
    intervals.observe(5);
    intervals.observe(6);
    time.nowMs = 10_000;
    publish();
    time.nowMs = 20_000;
    publish(); // nothing new: no point
    intervals.observe(7);
    time.nowMs = 30_000;
    publish();
    // The board copied the totals: a later observation does not change what it shows.
    intervals.observe(100);
    expect(board.history(A, "ledger_close_interval", 30_000)).toEqual([
      { atMs: 10_000, value: 5.5 },
      { atMs: 30_000, value: 7 },
    ]);
    expect(board.series(A, `${METRICS.ledgerCloseInterval.name}_count`, 30_000)).toEqual([{ labels: {}, value: 3 }]);
    expect(board.latestMean(A, METRICS.ledgerCloseInterval.name)).toBe(7);
  });

  it("keeps at most HISTORY_CAPACITY points per sparkline", () => {
    const { time, now } = clock(0);
    const board = createStatusBoard(now);
    for (let second = 0; second < HISTORY_CAPACITY + 50; second++) {
      time.nowMs = second * 1000;
      board.published(
        A,
        "root",
        { live: [{ metric: METRICS.ingestLagLedgers, value: second }], persistent: [] },
        Infinity,
      );
    }
    const points = board.history(A, "ingest_lag", time.nowMs);
    expect(points).toHaveLength(HISTORY_CAPACITY);
    expect(points[0]).toEqual({ atMs: 50_000, value: 50 });
  });

  it("ignores families it does not want", () => {
    const board = createStatusBoard();
    const unknown: MetricDefinition = {
      name: "stellar_horizon_something_else",
      type: "gauge",
      help: "x",
      labels: [],
      source: "root",
    };
    expect(board.wants(unknown)).toBe(false);
  });
});

describe("a contract's event rate", () => {
  it("counts a counter that restarted (its events job restarted on a reload) from 0, as PromQL's rate does", () => {
    const { time, now } = clock(1_000_000);
    const board = createStatusBoard(now);
    const rpc = { label: "rpc", name: "r" } as const;
    const events = (value: number) => {
      const labels = { contract: "usdc", type: "contract", topic: "transfer" };
      const persistent = [{ metric: RPC_METRICS.contractEvents, labels, value }];
      board.published(rpc, "events", { live: [], persistent }, Infinity);
    };
    board.published(rpc, "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] }, Infinity);
    events(1_000);
    time.nowMs += 60_000;
    events(1_060);
    // The reload stops the job and starts its successor, whose counts start at 0.
    board.removed(rpc, "events");
    time.nowMs += 60_000;
    events(0);
    time.nowMs += 60_000;
    events(30);
    // 60 events before the restart and 30 since, in 180 s.
    expect(board.eventRate(rpc, "usdc", time.nowMs)).toBeCloseTo(0.5, 9);
  });
});
