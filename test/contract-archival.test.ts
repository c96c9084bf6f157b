import { describe, expect, it } from "vitest";
import {
  ArchivalJudge,
  DEFAULT_CLOSE_INTERVAL_SECONDS,
  LedgerCloseWindow,
} from "../src/collectors/contract-archival.js";

function judgeWithWarnings() {
  const warnings: { about: string; lastKnownLiveUntil: number; latestLedger: number }[] = [];
  const judge = new ArchivalJudge<string>((about, state, latestLedger) =>
    warnings.push({ about, lastKnownLiveUntil: state.lastKnownLiveUntil, latestLedger }),
  );
  return { judge, warnings };
}

describe("ArchivalJudge", () => {
  it("live: ttl is live-until minus latestLedger of the same response, 0 on the last live ledger", () => {
    const { judge } = judgeWithWarnings();
    expect(judge.judge("k", { liveUntilLedgerSeq: 2531884, latestLedger: 458386 }, "k")).toEqual({
      kind: "live",
      liveUntilLedger: 2531884,
      ttlLedgers: 2073498,
    });
    expect(judge.judge("k", { liveUntilLedgerSeq: 1000, latestLedger: 1000 }, "k")).toEqual({
      kind: "live",
      liveUntilLedger: 1000,
      ttlLedgers: 0,
    });
  });

  it("forgets an entry not judged in a round: watched again, a 0 is archived and warned about anew", () => {
    const { judge, warnings } = judgeWithWarnings();
    judge.judge("k", { liveUntilLedgerSeq: 9000, latestLedger: 4000 }, "k");
    judge.judge("j", { liveUntilLedgerSeq: 9000, latestLedger: 4000 }, "j");
    expect(judge.judge("j", { liveUntilLedgerSeq: 0, latestLedger: 4001 }, "j").kind).toBe("unknown");
    judge.forgetUnjudged();
    // "k" and "j" retired: a round that judges neither.
    judge.judge("other", { liveUntilLedgerSeq: 9000, latestLedger: 4001 }, "other");
    judge.forgetUnjudged();
    expect(judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 4002 }, "k")).toEqual({ kind: "archived" });
    expect(judge.judge("j", { liveUntilLedgerSeq: 9000, latestLedger: 4002 }, "j").kind).toBe("live");
    expect(judge.judge("j", { liveUntilLedgerSeq: 0, latestLedger: 4003 }, "j").kind).toBe("unknown");
    expect(warnings.map(({ about, latestLedger }) => [about, latestLedger])).toEqual([
      ["j", 4001],
      ["j", 4003],
    ]);
  });

  it("a missing entry is a new one when it comes back: its old warning is forgotten", () => {
    const { judge, warnings } = judgeWithWarnings();
    judge.judge("k", { liveUntilLedgerSeq: 9000, latestLedger: 4000 }, "k");
    judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 4001 }, "k");
    judge.judge("k", undefined, "k");
    judge.judge("k", { liveUntilLedgerSeq: 9500, latestLedger: 4002 }, "k");
    judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 4003 }, "k");
    expect(warnings.map(({ latestLedger }) => latestLedger)).toEqual([4001, 4003]);
  });

  it("not returned: missing", () => {
    const { judge } = judgeWithWarnings();
    expect(judge.judge("k", undefined, "k")).toEqual({ kind: "missing" });
  });

  it("v22: a live-until behind the latest ledger is archived", () => {
    const { judge, warnings } = judgeWithWarnings();
    expect(judge.judge("k", { liveUntilLedgerSeq: 1040, latestLedger: 1030 }, "k").kind).toBe("live");
    // The same live-until, now behind: the entry expired, as the exporter saw it coming.
    expect(judge.judge("k", { liveUntilLedgerSeq: 1040, latestLedger: 1041 }, "k")).toEqual({ kind: "archived" });
    expect(warnings).toEqual([]);
  });

  it("v23+: 0 is archived when the exporter never saw the entry live beyond that ledger", () => {
    const { judge, warnings } = judgeWithWarnings();
    expect(judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 5000 }, "k")).toEqual({ kind: "archived" });
    expect(judge.judge("j", { liveUntilLedgerSeq: 4990, latestLedger: 4000 }, "j").kind).toBe("live");
    expect(judge.judge("j", { liveUntilLedgerSeq: 0, latestLedger: 4991 }, "j")).toEqual({ kind: "archived" });
    expect(warnings).toEqual([]);
  });

  it("stellar-rpc#990: 0 for an entry last seen live beyond the latest ledger is unknown, with one warning per entry", () => {
    const { judge, warnings } = judgeWithWarnings();
    judge.judge("k", { liveUntilLedgerSeq: 9000, latestLedger: 4000 }, "counter/instance");
    expect(judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 4001 }, "counter/instance")).toEqual({
      kind: "unknown",
      lastKnownLiveUntil: 9000,
    });
    expect(judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 4002 }, "counter/instance").kind).toBe("unknown");
    // A live-until below the latest ledger while the last one seen is ahead: also unknown.
    expect(judge.judge("k", { liveUntilLedgerSeq: 3000, latestLedger: 4003 }, "counter/instance").kind).toBe("unknown");
    expect(warnings).toEqual([{ about: "counter/instance", lastKnownLiveUntil: 9000, latestLedger: 4001 }]);
    // Past the last known live-until, a 0 is archival again.
    expect(judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 9001 }, "counter/instance")).toEqual({
      kind: "archived",
    });
    // Live again: the RPC reports it, and so do we.
    expect(judge.judge("k", { liveUntilLedgerSeq: 20000, latestLedger: 9002 }, "counter/instance").kind).toBe("live");
    expect(warnings).toHaveLength(1);
  });

  it("an entry without a live-until is unknown, never archived", () => {
    const { judge, warnings } = judgeWithWarnings();
    expect(judge.judge("k", { latestLedger: 10 }, "k")).toEqual({ kind: "unknown", lastKnownLiveUntil: 0 });
    expect(warnings).toHaveLength(1);
  });

  it("a deleted entry is forgotten: recreated, its 0 is judged afresh", () => {
    const { judge } = judgeWithWarnings();
    judge.judge("k", { liveUntilLedgerSeq: 9000, latestLedger: 4000 }, "k");
    expect(judge.judge("k", undefined, "k").kind).toBe("missing");
    expect(judge.judge("k", { liveUntilLedgerSeq: 0, latestLedger: 4100 }, "k").kind).toBe("archived");
  });
});

describe("LedgerCloseWindow", () => {
  it("5 s until two ledgers are seen, then the mean over the last hour", () => {
    const window = new LedgerCloseWindow();
    expect(window.meanIntervalSeconds()).toBe(DEFAULT_CLOSE_INTERVAL_SECONDS);
    window.observe({ sequence: 100, closeTime: 10_000 });
    window.observe({ sequence: 100, closeTime: 10_000 });
    expect(window.meanIntervalSeconds()).toBe(5);
    window.observe({ sequence: 110, closeTime: 10_060 });
    expect(window.meanIntervalSeconds()).toBe(6);
    window.observe({ sequence: 700, closeTime: 13_600 });
    expect(window.meanIntervalSeconds()).toBe(6);
    // Ledgers closed over an hour before the newest leave the window, but for the newest of them.
    window.observe({ sequence: 900, closeTime: 14_100 });
    expect(window.meanIntervalSeconds()).toBe((14_100 - 10_060) / (900 - 110));
    window.observe({ sequence: 1000, closeTime: 17_300 });
    expect(window.meanIntervalSeconds()).toBe((17_300 - 13_600) / (1000 - 700));
  });

  it("seen once an hour or less often, the mean spans the last two ledgers seen, not 5 s", () => {
    const window = new LedgerCloseWindow();
    window.observe({ sequence: 1_000, closeTime: 50_000 });
    window.observe({ sequence: 2_200, closeTime: 57_200 });
    expect(window.meanIntervalSeconds()).toBe(6);
    window.observe({ sequence: 3_000, closeTime: 61_200 });
    expect(window.meanIntervalSeconds()).toBe(5);
  });

  it("starts again after a network reset", () => {
    const window = new LedgerCloseWindow();
    window.observe({ sequence: 5000, closeTime: 10_000 });
    window.observe({ sequence: 5010, closeTime: 10_070 });
    window.observe({ sequence: 3, closeTime: 10_100 });
    expect(window.meanIntervalSeconds()).toBe(5);
    window.observe({ sequence: 13, closeTime: 10_155 });
    expect(window.meanIntervalSeconds()).toBe(5.5);
  });
});
