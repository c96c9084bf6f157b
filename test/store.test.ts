import { describe, expect, it } from "vitest";
import {
  HORIZON_ACCOUNT_METRICS,
  METRICS,
  RPC_ACCOUNT_METRICS,
  RPC_METRICS,
  type PublishedSource,
} from "../src/catalog/metrics.js";
import {
  HistogramData,
  SOURCES_PER_PIECE,
  escapeLabelValue,
  renderSamples,
  type CollectorSamples,
  type Sample,
} from "../src/exposition/samples.js";
import { MetricStore, type SampleTap, type TappedSamples } from "../src/exposition/store.js";

/** One publication under a lease of its own, as a runtime's first one. */
const publish = (
  store: MetricStore,
  target: string,
  source: PublishedSource,
  samples: CollectorSamples,
  freshUntilMs: number,
) => store.lease(target, source).publish(samples, freshUntilMs);

const text = (store: MetricStore, nowMs: number) => Buffer.concat(store.render(nowMs)).toString();

describe("metric store", () => {
  it("hands its tap the samples of the families it wants, in order, also when their pieces are kept", async () => {
    const seen: TappedSamples[] = [];
    const tap: SampleTap = {
      wants: (metric) => metric === METRICS.liquidityPoolShares || metric === METRICS.ledgersTotal,
      published: (_horizon, _endpoint, samples) => seen.push(samples),
      removed: () => {},
    };
    const store = new MetricStore(tap);
    const pool = (index: number) => ({ pool_id: String(index).padStart(64, "0") });
    const shares = Array.from({ length: 2 * SOURCES_PER_PIECE + 3 }, (_, index) => ({
      metric: METRICS.liquidityPoolShares,
      labels: pool(index),
      value: index,
    }));
    const samples: Sample[] = [{ metric: METRICS.liquidityPools, value: shares.length }];
    for (const share of shares)
      samples.push({ metric: METRICS.liquidityPoolTrustlines, labels: share.labels, value: 1 }, share);
    const persistent: Sample[] = [{ metric: METRICS.ledgersTotal, value: 9 }];
    // The same sample objects again: every piece is the last one, kept.
    for (let publication = 0; publication < 2; publication += 1)
      await publish(store, "a", "liquidity_pools", { live: samples, persistent }, Infinity);
    expect(seen).toHaveLength(2);
    for (const { live, persistent: tappedPersistent } of seen) {
      expect(live).toEqual(shares);
      expect(live.every((sample, index) => sample === shares[index])).toBe(true);
      expect(tappedPersistent).toEqual(persistent);
    }
  });

  it("drops live series once they are older than their freshness deadline, and keeps persistent ones", async () => {
    const store = new MetricStore();
    await publish(
      store,
      "a",
      "ledgers",
      {
        live: [{ metric: METRICS.ledgerSequence, value: 7 }],
        persistent: [{ metric: METRICS.ledgersTotal, value: 3 }],
      },
      1_000,
    );
    expect(text(store, 999)).toContain('stellar_horizon_ledger_sequence{horizon="a"} 7');
    const stale = text(store, 1_000);
    expect(stale).not.toContain("stellar_horizon_ledger_sequence");
    expect(stale).toContain('stellar_horizon_ledgers_total{horizon="a"} 3');
  });

  it("writes one HELP and TYPE per family, with every target's series together", async () => {
    const store = new MetricStore();
    const leases = ["a", "b"].map((horizon) => store.lease(horizon, "root"));
    for (const lease of leases) {
      await lease.publish(
        { live: [{ metric: METRICS.coreLatestLedger, value: 1 }], persistent: [{ metric: METRICS.up, value: 1 }] },
        Infinity,
      );
    }
    const body = text(store, 0);
    expect(body.match(/# TYPE stellar_horizon_up gauge/g)).toHaveLength(1);
    expect(body).toContain(
      '# TYPE stellar_horizon_up gauge\nstellar_horizon_up{horizon="a"} 1\nstellar_horizon_up{horizon="b"} 1\n',
    );
    leases[0]!.retire();
    expect(text(store, 0)).not.toContain('horizon="a"');
  });

  it("drops the writes of a retired lease, even one in flight when it retired, and of a superseded one", async () => {
    const store = new MetricStore();
    const up = (value: number): CollectorSamples => ({ live: [], persistent: [{ metric: METRICS.up, value }] });
    const gone = store.lease("gone", "root");
    await gone.publish(up(1), Infinity);
    // A stale timer's publication, still rendering when the target is removed.
    const inFlight = gone.publish(up(0), Infinity);
    gone.retire();
    expect(await inFlight).toBe(false);
    expect(await gone.publish(up(0), Infinity)).toBe(false);
    expect(text(store, 0)).not.toContain('horizon="gone"');

    const old = store.lease("kept", "root");
    await old.publish(up(1), Infinity);
    const successor = store.lease("kept", "root");
    expect(await old.publish(up(0), Infinity)).toBe(false);
    expect(text(store, 0)).toContain('stellar_horizon_up{horizon="kept"} 1');
    // The old lease retiring late does not take the successor's series with it.
    old.retire();
    expect(await successor.publish(up(1), Infinity)).toBe(true);
    expect(text(store, 0)).toContain('stellar_horizon_up{horizon="kept"} 1');
  });

  it("keeps a Horizon's and a Stellar RPC's accounts apart when they share a name and a source", async () => {
    const store = new MetricStore();
    const horizon = store.lease("x", "accounts", "horizon");
    const rpc = store.lease("x", "accounts", "rpc");
    await horizon.publish(
      { live: [{ metric: HORIZON_ACCOUNT_METRICS.accountExists, labels: { account: "a" }, value: 1 }], persistent: [] },
      Infinity,
    );
    expect(
      await rpc.publish(
        { live: [{ metric: RPC_ACCOUNT_METRICS.accountExists, labels: { account: "a" }, value: 0 }], persistent: [] },
        Infinity,
      ),
    ).toBe(true);
    expect(text(store, 0)).toContain('stellar_horizon_account_exists{horizon="x",account="a"} 1');
    expect(text(store, 0)).toContain('stellar_rpc_account_exists{rpc="x",account="a"} 0');
    horizon.retire();
    expect(text(store, 0)).not.toContain("stellar_horizon_account_exists");
    expect(text(store, 0)).toContain('stellar_rpc_account_exists{rpc="x",account="a"} 0');
  });

  it("keeps a Stellar RPC's series when a Horizon of the same name leaves", async () => {
    const store = new MetricStore();
    const horizon = store.lease("sdf", "root");
    await horizon.publish({ live: [], persistent: [{ metric: METRICS.up, value: 1 }] }, Infinity);
    await publish(store, "sdf", "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] }, Infinity);
    horizon.retire();
    expect(text(store, 0)).toBe(
      `# HELP stellar_rpc_up ${RPC_METRICS.up.help}\n# TYPE stellar_rpc_up gauge\nstellar_rpc_up{rpc="sdf"} 1\n`,
    );
  });

  it("renders many samples in pieces of SOURCES_PER_PIECE, byte for byte, with non-ASCII text and a line longer than the scratch buffer", async () => {
    const ids = Array.from({ length: 2 * SOURCES_PER_PIECE + 88 }, (_, index) =>
      index === 300 ? "x".repeat(200_000) : `pool-${index}-☃`,
    );
    const rendered = await renderSamples(
      "zürich",
      ids.map((pool_id, index) => ({ metric: METRICS.liquidityPoolShares, labels: { pool_id }, value: index / 8 })),
    );
    const pieces = rendered.get("stellar_horizon_liquidity_pool_shares")!.pieces as Buffer[];
    expect(pieces.map((piece) => piece.toString().split("\n").length - 1)).toEqual([
      SOURCES_PER_PIECE,
      SOURCES_PER_PIECE,
      88,
    ]);
    expect(Buffer.concat(pieces).toString()).toBe(
      ids
        .map(
          (pool_id, index) =>
            `stellar_horizon_liquidity_pool_shares{horizon="zürich",pool_id="${pool_id}"} ${index / 8}\n`,
        )
        .join(""),
    );
  });

  it("reuses the bytes of samples rendered last time: unchanged pieces are the same buffers, changed ones equal a fresh rendering", async () => {
    const shares = (pool_id: string, value: number): Sample => ({
      metric: METRICS.liquidityPoolShares,
      labels: { pool_id },
      value,
    });
    const histogram = new HistogramData([1, 5]);
    histogram.observe(2);
    const first: Sample[] = Array.from({ length: 3 * SOURCES_PER_PIECE + 5 }, (_, index) =>
      shares(`pool-${index}-☃`, index / 8),
    );
    first.splice(10, 0, { metric: METRICS.ledgerCloseInterval, histogram });
    const before = await renderSamples("zürich", first);
    const second = [...first];
    // The histogram changed in place; of the shares, pieces 1 (two pools changed) and 2 (one pool, to a longer line) changed.
    histogram.observe(9);
    // A new object with the same values renders to the same bytes: piece 0 stays the same buffer.
    second[5] = shares("pool-5-☃", 5 / 8);
    second[SOURCES_PER_PIECE + 3] = shares("pool-changed", 1.5);
    second[2 * SOURCES_PER_PIECE - 1] = shares("pool-last-of-piece", 2.5);
    second[2 * SOURCES_PER_PIECE + 7] = shares(`pool-${"x".repeat(9000)}`, 3);
    const after = await renderSamples("zürich", second, before);
    const fresh = await renderSamples("zürich", second);
    for (const name of ["stellar_horizon_liquidity_pool_shares", "stellar_horizon_ledger_close_interval_seconds"]) {
      expect(after.get(name)!.pieces.map(String)).toEqual(fresh.get(name)!.pieces.map(String));
    }
    const kept = after
      .get("stellar_horizon_liquidity_pool_shares")!
      .pieces.map((piece, index) => piece === before.get("stellar_horizon_liquidity_pool_shares")!.pieces[index]);
    expect(kept).toEqual([true, false, false, true]);
    expect(after.get("stellar_horizon_ledger_close_interval_seconds")!.pieces[0]!.toString()).toContain(
      '_count{horizon="zürich"} 2\n',
    );
    // A piece that lost its last sample is not the longer piece of last time.
    const shorter = await renderSamples("zürich", second.slice(0, -1), after);
    expect(shorter.get("stellar_horizon_liquidity_pool_shares")!.pieces.map(String)).toEqual(
      (await renderSamples("zürich", second.slice(0, -1)))
        .get("stellar_horizon_liquidity_pool_shares")!
        .pieces.map(String),
    );
  });

  it("renders histograms cumulatively and escapes label values", async () => {
    const histogram = new HistogramData([1, 5]);
    for (const value of [0.5, 3, 3, 9]) histogram.observe(value);
    const rendered = await renderSamples('q"\\\n', [{ metric: METRICS.ledgerCloseInterval, histogram }]);
    const lines = Buffer.concat(
      (rendered.get("stellar_horizon_ledger_close_interval_seconds")?.pieces ?? []) as Buffer[],
    ).toString();
    expect(lines).toBe(
      [
        'stellar_horizon_ledger_close_interval_seconds_bucket{horizon="q\\"\\\\\\n",le="1"} 1',
        'stellar_horizon_ledger_close_interval_seconds_bucket{horizon="q\\"\\\\\\n",le="5"} 3',
        'stellar_horizon_ledger_close_interval_seconds_bucket{horizon="q\\"\\\\\\n",le="+Inf"} 4',
        'stellar_horizon_ledger_close_interval_seconds_sum{horizon="q\\"\\\\\\n"} 15.5',
        'stellar_horizon_ledger_close_interval_seconds_count{horizon="q\\"\\\\\\n"} 4',
        "",
      ].join("\n"),
    );
    expect(escapeLabelValue('a"b')).toBe('a\\"b');
  });
});
