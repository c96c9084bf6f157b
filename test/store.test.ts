import { request } from "node:http";
import { gunzipSync } from "node:zlib";
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
  escapeLabelValue,
  type CollectorSamples,
  type Sample,
  type SeriesGroup,
} from "../src/exposition/samples.js";
import { MetricStore, PLAIN_HOLD_MS, type SampleTap, type TappedSamples } from "../src/exposition/store.js";
import { accountSchema } from "../src/client/account-schemas.js";
import { AccountSamples, type AccountObservation } from "../src/collectors/accounts.js";
import { fixtureJson } from "./support/fixtures.js";
import { createServerApp } from "../src/server/app.js";
import { listen } from "../src/server/listen.js";
import { createStatusBoard, statusReport } from "../src/status/model.js";
import { renderSamples } from "./support/render-samples.js";

/** One publication under a lease of its own, as a runtime's first one. */
const publish = (
  store: MetricStore,
  target: string,
  source: PublishedSource,
  samples: CollectorSamples,
  freshUntilMs: number,
) => store.lease(target, source).publish(samples, freshUntilMs);

const text = async (store: MetricStore, nowMs: number) => (await store.scrape(nowMs, "identity")).toString();

describe("metric store", () => {
  it("hands its tap the samples of the families it wants, in order, at every publication", async () => {
    const seen: TappedSamples[] = [];
    const tap: SampleTap = {
      wants: (metric) => metric === METRICS.liquidityPoolShares || metric === METRICS.ledgersTotal,
      published: (_horizon, _endpoint, samples) => seen.push(samples),
      removed: () => {},
    };
    const store = new MetricStore(tap);
    const pool = (index: number) => ({ pool_id: String(index).padStart(64, "0") });
    const shares = Array.from({ length: 2051 }, (_, index) => ({
      metric: METRICS.liquidityPoolShares,
      labels: pool(index),
      value: index,
    }));
    const samples: Sample[] = [{ metric: METRICS.liquidityPools, value: shares.length }];
    for (const share of shares)
      samples.push({ metric: METRICS.liquidityPoolTrustlines, labels: share.labels, value: 1 }, share);
    const persistent: Sample[] = [{ metric: METRICS.ledgersTotal, value: 9 }];
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
    expect(await text(store, 999)).toContain('stellar_horizon_ledger_sequence{horizon="a"} 7');
    const stale = await text(store, 1_000);
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
    const body = await text(store, 0);
    expect(body.match(/# TYPE stellar_horizon_up gauge/g)).toHaveLength(1);
    expect(body).toContain(
      '# TYPE stellar_horizon_up gauge\nstellar_horizon_up{horizon="a"} 1\nstellar_horizon_up{horizon="b"} 1\n',
    );
    leases[0]!.retire();
    expect(await text(store, 0)).not.toContain('horizon="a"');
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
    expect(await text(store, 0)).not.toContain('horizon="gone"');

    const old = store.lease("kept", "root");
    await old.publish(up(1), Infinity);
    const successor = store.lease("kept", "root");
    expect(await old.publish(up(0), Infinity)).toBe(false);
    expect(await text(store, 0)).toContain('stellar_horizon_up{horizon="kept"} 1');
    // The old lease retiring late does not take the successor's series with it.
    old.retire();
    expect(await successor.publish(up(1), Infinity)).toBe(true);
    expect(await text(store, 0)).toContain('stellar_horizon_up{horizon="kept"} 1');
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
    expect(await text(store, 0)).toContain('stellar_horizon_account_exists{horizon="x",account="a"} 1');
    expect(await text(store, 0)).toContain('stellar_rpc_account_exists{rpc="x",account="a"} 0');
    horizon.retire();
    expect(await text(store, 0)).not.toContain("stellar_horizon_account_exists");
    expect(await text(store, 0)).toContain('stellar_rpc_account_exists{rpc="x",account="a"} 0');
  });

  it("keeps a Stellar RPC's series when a Horizon of the same name leaves", async () => {
    const store = new MetricStore();
    const horizon = store.lease("sdf", "root");
    await horizon.publish({ live: [], persistent: [{ metric: METRICS.up, value: 1 }] }, Infinity);
    await publish(store, "sdf", "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] }, Infinity);
    horizon.retire();
    expect(await text(store, 0)).toBe(
      `# HELP stellar_rpc_up ${RPC_METRICS.up.help}\n# TYPE stellar_rpc_up gauge\nstellar_rpc_up{rpc="sdf"} 1\n`,
    );
  });

  it("renders many samples byte for byte, with non-ASCII text and a line of 200 000 characters", async () => {
    const ids = Array.from({ length: 2136 }, (_, index) => (index === 300 ? "x".repeat(200_000) : `pool-${index}-☃`));
    const store = new MetricStore();
    await publish(
      store,
      "zürich",
      "liquidity_pools",
      {
        live: ids.map((pool_id, index) => ({
          metric: METRICS.liquidityPoolShares,
          labels: { pool_id },
          value: index / 8,
        })),
        persistent: [],
      },
      Infinity,
    );
    const lines = ids.map(
      (pool_id, index) => `stellar_horizon_liquidity_pool_shares{horizon="zürich",pool_id="${pool_id}"} ${index / 8}\n`,
    );
    const shares = METRICS.liquidityPoolShares;
    expect(await text(store, 0)).toBe(
      `# HELP ${shares.name} ${shares.help}\n# TYPE ${shares.name} gauge\n${lines.join("")}`,
    );
  });

  it("shows what each publication held, whether a collector published new objects or changed its own in place", async () => {
    const histogram = new HistogramData([1, 5]);
    histogram.observe(2);
    const sequence = { metric: METRICS.ledgerSequence, value: 1 };
    const samples: CollectorSamples = {
      live: [sequence],
      persistent: [{ metric: METRICS.ledgerCloseInterval, histogram }],
    };
    const store = new MetricStore();
    const writer = store.lease("a", "ledgers");
    await writer.publish(samples, Infinity);
    // Changed in place after publishing: the store shows the published state until the next publication.
    sequence.value = 2;
    histogram.observe(9);
    const published = await text(store, 0);
    expect(published).toContain('stellar_horizon_ledger_sequence{horizon="a"} 1\n');
    expect(published).toContain('stellar_horizon_ledger_close_interval_seconds_count{horizon="a"} 1\n');
    await writer.publish(samples, Infinity);
    const republished = await text(store, 0);
    expect(republished).toContain('stellar_horizon_ledger_sequence{horizon="a"} 2\n');
    expect(republished).toContain('stellar_horizon_ledger_close_interval_seconds_count{horizon="a"} 2\n');
    // A new array of new objects: a series no longer published leaves.
    await writer.publish({ live: [{ metric: METRICS.ledgerSequence, value: 3 }], persistent: [] }, Infinity);
    const replaced = await text(store, 0);
    expect(replaced).toContain('stellar_horizon_ledger_sequence{horizon="a"} 3\n');
    expect(replaced).not.toContain("ledger_close_interval");
  });

  it("keeps the last rendering for a publication of the same version, and renders a new version", async () => {
    const sequence = { metric: METRICS.ledgerSequence, value: 1 };
    const store = new MetricStore();
    const writer = store.lease("a", "ledgers");
    await writer.publish({ live: [sequence], persistent: [], version: 1 }, 1_000);
    // The job says nothing changed: the bytes stay, and only the freshness moves.
    sequence.value = 2;
    await writer.publish({ live: [sequence], persistent: [], version: 1 }, 2_000);
    expect(await text(store, 1_500)).toContain('stellar_horizon_ledger_sequence{horizon="a"} 1\n');
    expect(await text(store, 2_000)).not.toContain("stellar_horizon_ledger_sequence");
    await writer.publish({ live: [sequence], persistent: [], version: 2 }, 3_000);
    expect(await text(store, 2_500)).toContain('stellar_horizon_ledger_sequence{horizon="a"} 2\n');
    // Without a version, every publication is rendered.
    sequence.value = 3;
    await writer.publish({ live: [sequence], persistent: [] }, 3_000);
    expect(await text(store, 0)).toContain('stellar_horizon_ledger_sequence{horizon="a"} 3\n');
    await writer.publish({ live: [sequence], persistent: [], version: 2 }, 3_000);
    // A new lease (a reload's new job) counts its versions afresh.
    sequence.value = 4;
    await store.lease("a", "ledgers").publish({ live: [sequence], persistent: [], version: 2 }, 3_000);
    expect(await text(store, 0)).toContain('stellar_horizon_ledger_sequence{horizon="a"} 4\n');
  });

  it("serves every change at the next scrape in both codings, though it keeps the body between changes", async () => {
    const store = new MetricStore();
    const [a, b] = ["a", "b"].map((target) => store.lease(target, "ledgers"));
    const sequence = (value: number): CollectorSamples => ({
      live: [{ metric: METRICS.ledgerSequence, value }],
      persistent: [],
    });
    const line = (target: string, value: number) => `stellar_horizon_ledger_sequence{horizon="${target}"} ${value}\n`;
    /** The plain body, checked against the gzip one of the same instant. */
    const both = async (nowMs: number) => {
      const [plain, gzip] = await Promise.all([store.scrape(nowMs, "identity"), store.scrape(nowMs, "gzip")]);
      expect(gzip.byteLength === 0 ? "" : gunzipSync(gzip).toString()).toBe(plain.toString());
      return plain.toString();
    };
    await a!.publish(sequence(1), 1_000);
    await b!.publish(sequence(5), 2_000);
    for (const nowMs of [0, 999, 0]) {
      expect(await both(nowMs)).toContain(line("a", 1));
      expect(await both(nowMs)).toContain(line("b", 5));
    }
    // Each live series leaves at its own deadline, though nothing was published in between.
    expect(await both(1_000)).not.toContain('horizon="a"');
    expect(await both(1_999)).toContain(line("b", 5));
    expect(await both(2_000)).toBe("");
    // A clock set back shows what is fresh at that instant again.
    expect(await both(500)).toContain(line("a", 1));
    await a!.publish(sequence(2), 3_000);
    expect(await both(500)).toContain(line("a", 2));
    expect(await both(2_500)).toBe(`# HELP ${METRICS.ledgerSequence.name} ${METRICS.ledgerSequence.help}
# TYPE ${METRICS.ledgerSequence.name} gauge
${line("a", 2)}`);
    // A plain scrape still decompressing when a publication lands answers what it began with; the next shows the new.
    const inFlight = store.scrape(2_500, "identity");
    await a!.publish(sequence(3), 3_000);
    expect((await inFlight).toString()).toContain(line("a", 2));
    expect(await both(2_500)).toContain(line("a", 3));
    b!.retire();
    a!.retire();
    expect(await both(0)).toBe("");
  });

  it("keeps a plain scrape's text for the plain scrapes of the next PLAIN_HOLD_MS only", async () => {
    const store = new MetricStore();
    await publish(store, "a", "ledgers", { live: [], persistent: [{ metric: METRICS.ledgerSequence, value: 7 }] }, 0);
    const first = await store.scrape(1_000, "identity");
    expect(first.toString()).toContain('stellar_horizon_ledger_sequence{horizon="a"} 7\n');
    // Within the window the same text is served, not decompressed again.
    expect(await store.scrape(1_000 + PLAIN_HOLD_MS - 1, "identity")).toBe(first);
    // A gzip scrape past the window lets it go; the next plain scrape decompresses the same text anew.
    const gzip = await store.scrape(1_000 + PLAIN_HOLD_MS, "gzip");
    const again = await store.scrape(1_000 + PLAIN_HOLD_MS, "identity");
    expect(again).not.toBe(first);
    expect(again.equals(first)).toBe(true);
    expect(gunzipSync(gzip).equals(first)).toBe(true);
    expect(await store.scrape(1_000 + PLAIN_HOLD_MS + 1, "identity")).toBe(again);
  });

  it("shows a watched account's every change at the next scrape, though unchanged accounts keep their version", async () => {
    const account = accountSchema.parse(fixtureJson("account-java-sdk.json"));
    const watched = [{ name: "treasury", id: account.id, lowBalance: {}, cold: false }];
    const accountSamples = new AccountSamples(RPC_ACCOUNT_METRICS);
    const store = new MetricStore();
    const writer = store.lease("r", "accounts", "rpc");
    /** Publishes the samples of this state, and expects the store to show what a store seeing them anew shows. */
    const step = async (observation: AccountObservation | undefined, signerChanges: number, baseReserve: number) => {
      const samples = accountSamples.of(watched, [observation], new Map([["treasury", signerChanges]]), baseReserve);
      await writer.publish(samples, Infinity);
      const reference = new MetricStore();
      await reference.lease("r", "accounts", "rpc").publish({ live: samples.live, persistent: samples.persistent }, 0);
      const shown = await text(store, 0);
      expect(shown).toBe(await text(reference, -1));
      return { version: samples.version, shown };
    };
    const first = { exists: true, account } as const;
    const start = await step(first, 0, 5_000_000);
    expect(start.shown).toContain(
      `stellar_rpc_account_subentries{rpc="r",account="treasury"} ${account.subentryCount}\n`,
    );
    // The same observation (a poll that found the entries unchanged) keeps the version.
    expect((await step(first, 0, 5_000_000)).version).toBe(start.version);
    const changed = { exists: true, account: { ...account, subentryCount: account.subentryCount + 1 } } as const;
    const versions = new Set([start.version]);
    for (const [observation, signerChanges, baseReserve] of [
      [changed, 0, 5_000_000],
      [changed, 1, 5_000_000],
      [changed, 1, 1_000_000],
      [{ exists: false }, 1, 1_000_000],
      [undefined, 1, 1_000_000],
      [first, 1, 1_000_000],
    ] as const) {
      const { version } = await step(observation, signerChanges, baseReserve);
      expect(versions.has(version)).toBe(false);
      versions.add(version);
    }
    expect(await text(store, 0)).toContain(
      `stellar_rpc_account_subentries{rpc="r",account="treasury"} ${account.subentryCount}\n`,
    );
  });

  it("renders histograms cumulatively and escapes label values", async () => {
    const histogram = new HistogramData([1, 5]);
    for (const value of [0.5, 3, 3, 9]) histogram.observe(value);
    const lines = await renderSamples('q"\\\n', [{ metric: METRICS.ledgerCloseInterval, histogram }]);
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

  it("answers /metrics while a publication of 10 000 accounts' series renders, with what was published before", async () => {
    const store = new MetricStore();
    const writer = store.lease("big", "accounts", "rpc");
    const { accountExists, accountSubentries, accountTrustlineExists } = RPC_ACCOUNT_METRICS;
    const families = [accountExists, accountSubentries, accountTrustlineExists];
    const account = (index: number) => `G${String(index).padStart(55, "A")}`;
    let made = 0;
    const group = (index: number, value: number): SeriesGroup => ({
      families,
      samplesOf: (metric): Sample[] => {
        made += 1;
        if (metric === accountExists) return [{ metric: accountExists, labels: { account: account(index) }, value }];
        if (metric === accountSubentries)
          return [{ metric: accountSubentries, labels: { account: account(index) }, value }];
        return [{ metric: accountTrustlineExists, labels: { account: account(index), asset: "X" }, value }];
      },
    });
    const groups = (value: number) => Array.from({ length: 10_000 }, (_, index) => group(index, value));
    await writer.publish({ live: groups(1), persistent: [] }, Infinity);
    const app = createServerApp({
      version: "test",
      web: () => undefined,
      renderMetrics: async (coding) => [await store.scrape(0, coding)],
      status: () => statusReport("test", [], createStatusBoard(), 0),
      isReady: () => true,
    });
    const server = await listen(app, "127.0.0.1", 0);
    try {
      made = 0;
      let published = false;
      const publishing = writer.publish({ live: groups(0), persistent: [] }, Infinity).then((written) => {
        published = written;
      });
      // Prometheus' coding, which the event loop answers without a round trip through the thread pool.
      const answer = await new Promise<{ status: number; body: string; madeThen: number; publishedThen: boolean }>(
        (resolve, reject) =>
          request(`${server.url}/metrics`, { headers: { "Accept-Encoding": "gzip" } }, (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => {
              const body = gunzipSync(Buffer.concat(chunks)).toString();
              resolve({ status: response.statusCode ?? 0, body, madeThen: made, publishedThen: published });
            });
          })
            .on("error", reject)
            .end(),
      );
      // The scrape was answered in the middle of the publication, from the one before it.
      expect(answer.status).toBe(200);
      expect(answer.publishedThen).toBe(false);
      expect(answer.madeThen).toBeGreaterThan(0);
      expect(answer.madeThen).toBeLessThan(30_000);
      expect(answer.body.match(/^stellar_rpc_account_exists\{.*\} 1$/gm)).toHaveLength(10_000);
      await publishing;
      expect(published).toBe(true);
      const after = (await store.scrape(0, "identity")).toString();
      expect(after.match(/^stellar_rpc_account_trustline_exists\{.*\} 0$/gm)).toHaveLength(10_000);
    } finally {
      await server.close();
    }
  });
});
