import { spawnSync } from "node:child_process";
import { request, type IncomingHttpHeaders } from "node:http";
import * as zlib from "node:zlib";
import { gunzipSync } from "node:zlib";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { METRICS, type PublishedSource } from "../src/catalog/metrics.js";
import { HistogramData, SOURCES_PER_PIECE, type CollectorSamples, type Sample } from "../src/exposition/samples.js";
import { MetricStore, PLAIN_KEPT_MS, gzipMember, type ContentCoding } from "../src/exposition/store.js";
import { loadConfig } from "../src/config/config.js";
import { Secret } from "../src/config/secret.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import type { WebConfig } from "../src/config/web-config.js";
import { createServerApp } from "../src/server/app.js";
import { METRICS_CONTENT_TYPE, type DirectHandler } from "../src/server/metrics-endpoint.js";
import { listen, type Listening } from "../src/server/listen.js";
import { negotiateContentCoding } from "../src/server/content-coding.js";
import { startSimulator, type RunningSimulator } from "../src/simulator/index.js";
import { parseExposition } from "./support/exposition.js";
import { pino } from "pino";
import { createStatusBoard, statusReport } from "../src/status/model.js";

// Counts the store's compressions (an unchanged piece must keep its member, not be compressed
// again) and decompressions (plain lines made again from members).
vi.mock("node:zlib", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:zlib")>();
  return { ...original, gzip: vi.fn(original.gzip), gunzipSync: vi.fn(original.gunzipSync) };
});

/** One publication under a lease of its own, as a runtime's first one. */
const publish = (
  store: MetricStore,
  target: string,
  source: PublishedSource,
  samples: CollectorSamples,
  freshUntilMs: number,
) => store.lease(target, source).publish(samples, freshUntilMs);

/** Python's gzip module, which reads every member of a multi-member stream. */
function pythonGunzip(bytes: Buffer): Buffer {
  const result = spawnSync(
    "python3",
    ["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"],
    {
      input: bytes,
      maxBuffer: 1 << 28,
    },
  );
  if (result.status !== 0) throw new Error(`python3 gzip failed: ${result.stderr.toString()}`);
  return result.stdout;
}

/** Enough pools that every pool family spans several pieces, and thus several gzip members. */
function poolSamples(count: number, version = 0): Sample[] {
  return Array.from({ length: count }, (_, index) => ({
    metric: METRICS.liquidityPoolShares,
    labels: { pool_id: index.toString(16).padStart(64, "0") },
    value: index === 700 ? 1000 + version : 1000 + index / 7,
  }));
}

async function fill(store: MetricStore, version = 0): Promise<void> {
  const histogram = new HistogramData([1, 5]);
  for (const value of [0.5, 3, 9]) histogram.observe(value);
  for (const horizon of ["a", 'quoted "b"']) {
    await publish(store, horizon, "liquidity_pools", { live: poolSamples(1500, version), persistent: [] }, 10_000);
    await publish(
      store,
      horizon,
      "ledgers",
      {
        live: [{ metric: METRICS.ledgerSequence, value: 7 }],
        persistent: [{ metric: METRICS.ledgerCloseInterval, histogram }],
      },
      5_000,
    );
  }
}

const body = (store: MetricStore, nowMs: number, coding: ContentCoding) => Buffer.concat(store.render(nowMs, coding));

describe("Accept-Encoding negotiation", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["x-gzip", "gzip"],
    ["GZIP;q=0.5", "gzip"],
    ["gzip, deflate, br", "gzip"],
    ["br, *", "gzip"],
    ["br", "identity"],
    ["gzip;q=0", "identity"],
    ["gzip;q=0.000", "identity"],
    ["gzip;q=0.4, identity;q=0.5", "identity"],
    ["gzip;q=0.5, identity;q=0.5", "gzip"],
    ["identity;q=0", undefined],
    ["identity;q=0, gzip;q=0.1", "gzip"],
    ["*;q=0", undefined],
    ["*;q=0, identity", "identity"],
    ["*;q=0, gzip", "gzip"],
    ["gzip;q=0, *;q=0", undefined],
  ] as const)("%j -> %s", (header, coding) => {
    expect(negotiateContentCoding(header)).toBe(coding);
  });
});

describe("gzip members in the metric store", () => {
  it("decode, as one stream, to exactly the plain output, with Node's zlib and Python's gzip", async () => {
    const store = new MetricStore();
    await fill(store);
    expect(body(store, 0, "gzip").length).toBeLessThan(body(store, 0, "identity").length / 3);
    for (const nowMs of [0, 5_000, 10_000]) {
      const plain = body(store, nowMs, "identity");
      const compressed = store.render(nowMs, "gzip");
      // One buffer per family: its HELP and TYPE, then every target's members.
      expect(compressed.length).toBe(
        plain
          .toString()
          .split("\n")
          .filter((line) => line.startsWith("# TYPE ")).length,
      );
      expect(gunzipSync(Buffer.concat(compressed)).equals(plain)).toBe(true);
      expect(pythonGunzip(Buffer.concat(compressed)).equals(plain)).toBe(true);
    }
    // Live series leave both codings when stale; persistent ones stay.
    expect(gunzipSync(body(store, 10_000, "gzip")).toString()).toContain(
      'stellar_horizon_ledger_close_interval_seconds_count{horizon="a"} 3',
    );
    expect(gunzipSync(body(store, 10_000, "gzip")).toString()).not.toContain("stellar_horizon_ledger_sequence");
  });

  it("keeps only the gzip members until a plain scrape, which gets its lines made again from them; then keeps plain lines PLAIN_KEPT_MS", async () => {
    let clockMs = 0;
    const store = new MetricStore(undefined, () => clockMs);
    const expected: string[] = [];
    for (let version = 0; version < 4; version += 1) {
      const reference = new MetricStore();
      await fill(reference, version);
      expected.push(body(reference, 0, "identity").toString());
    }
    const decompressions = () => vi.mocked(zlib.gunzipSync).mock.calls.length;
    await fill(store);
    // A gzip scrape keeps nothing plain; the first plain scrape makes every piece's lines again.
    const gzipBody = body(store, 0, "gzip");
    let before = decompressions();
    const plain = body(store, 0, "identity").toString();
    expect(decompressions() - before).toBeGreaterThan(4);
    expect(plain).toBe(expected[0]);
    expect(gunzipSync(gzipBody).toString()).toBe(plain);
    before = decompressions();
    expect(body(store, 0, "identity").toString()).toBe(plain);
    expect(decompressions()).toBe(before);

    // Within PLAIN_KEPT_MS of that scrape, a publication (pool 700 changed) keeps its plain lines.
    clockMs = PLAIN_KEPT_MS - 1;
    await fill(store, 1);
    before = decompressions();
    expect(body(store, 0, "identity").toString()).toBe(expected[1]);
    expect(decompressions()).toBe(before);

    // Later, with no plain scrape since, only the members are kept again; a changed piece is
    // rendered from the lines of the last, made again from its member.
    clockMs = PLAIN_KEPT_MS;
    await fill(store, 2);
    expect(gunzipSync(body(store, 0, "gzip")).toString()).toBe(expected[2]);
    clockMs = 2 * PLAIN_KEPT_MS;
    await fill(store, 3);
    before = decompressions();
    expect(body(store, 0, "identity").toString()).toBe(expected[3]);
    expect(decompressions()).toBeGreaterThan(before);
    expect(gunzipSync(body(store, 0, "gzip")).toString()).toBe(expected[3]);
  });

  it("makes the plain lines again off the event loop when asked to hold them, so the plain scrape after that decompresses nothing", async () => {
    const reference = new MetricStore();
    await fill(reference);
    const expected = body(reference, 0, "identity");
    const store = new MetricStore(undefined, () => 0);
    await fill(store);
    const decompressions = () => vi.mocked(zlib.gunzipSync).mock.calls.length;
    const before = decompressions();
    await store.holdPlain(0);
    expect(body(store, 0, "identity").equals(expected)).toBe(true);
    expect(decompressions()).toBe(before);
    // Held from then on: a publication keeps its plain lines.
    await fill(store, 1);
    expect(body(store, 0, "identity").toString()).toContain(
      `pool_id="${(700).toString(16).padStart(64, "0")}"} 1001\n`,
    );
    expect(decompressions()).toBe(before);
  });

  it("compresses again only the pieces whose bytes changed, at the fastest level, having compressed them first for size", async () => {
    const store = new MetricStore();
    const compressedSince = (start: number) =>
      vi
        .mocked(zlib.gzip)
        .mock.calls.slice(start)
        .map(([bytes, options]) => ({
          text: Buffer.from(bytes as Uint8Array).toString(),
          level: (options as zlib.ZlibOptions).level,
        }));
    const first = vi.mocked(zlib.gzip).mock.calls.length;
    await fill(store);
    const firstPoolPieces = compressedSince(first).filter(({ text }) => text.includes("pool_id="));
    expect(firstPoolPieces.length).toBeGreaterThan(2);
    expect(new Set(firstPoolPieces.map(({ level }) => level))).toEqual(new Set([5]));
    const before = body(store, 0, "gzip");
    const compressions = vi.mocked(zlib.gzip).mock.calls.length;
    await fill(store, 1);
    // Pool 700 sits in one piece of each target's pool block: those two pieces alone are compressed again.
    const pieces = compressedSince(compressions).map(({ text }) => text);
    expect(compressedSince(compressions).map(({ level }) => level)).toEqual([
      zlib.constants.Z_BEST_SPEED,
      zlib.constants.Z_BEST_SPEED,
    ]);
    expect(pieces).toHaveLength(2);
    for (const piece of pieces) {
      expect(piece).toContain(`pool_id="${(700).toString(16).padStart(64, "0")}"} 1001\n`);
      expect(piece.split("\n").length - 1).toBeLessThanOrEqual(SOURCES_PER_PIECE);
    }
    expect(gunzipSync(before).toString()).toContain(`pool_id="${(700).toString(16).padStart(64, "0")}"} 1000\n`);
    const after = body(store, 0, "gzip");
    expect(gunzipSync(after).toString()).toContain(`pool_id="${(700).toString(16).padStart(64, "0")}"} 1001\n`);
    expect(gunzipSync(after).equals(body(store, 0, "identity"))).toBe(true);
  });

  it("makes one member of any bytes, whether they compress as expected or not at all", async () => {
    const text = Buffer.from(
      Array.from(
        { length: 3_000 },
        (_, index) => `stellar_horizon_liquidity_pool_shares{horizon="a",pool_id="${index}"} ${index * 7}\n`,
      ).join(""),
    );
    // Random bytes do not compress: the member outgrows the buffer zlib was given for it.
    let state = 0x2545f491;
    const random = Buffer.from(
      Array.from({ length: 200_000 }, () => {
        // xorshift32: the same bytes every run
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        return state & 0xff;
      }),
    );
    for (const plain of [text, random, Buffer.alloc(0), Buffer.from("x")]) {
      const member = await gzipMember(plain);
      expect(gunzipSync(member).equals(plain)).toBe(true);
      expect(pythonGunzip(member).equals(plain)).toBe(true);
    }
    expect((await gzipMember(random)).length).toBeGreaterThan(random.length);
  });
});

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly bytes: Buffer;
}

/** The raw bytes and headers, undecoded (fetch would decode them). */
function rawRequest(
  url: string,
  { method = "GET", headers = {} }: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }),
      );
    })
      .on("error", reject)
      .end();
  });
}

const accepting = (acceptEncoding?: string): Record<string, string> =>
  acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding };

describe("/metrics content coding", () => {
  const store = new MetricStore();
  const ownText = "# HELP own_metric Own.\n# TYPE own_metric gauge\nown_metric 1\n";
  let web: WebConfig | undefined;
  let server: Listening;
  const scrape = (acceptEncoding?: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    rawRequest(`${server.url}/metrics`, { ...init, headers: { ...accepting(acceptEncoding), ...init.headers } });

  /** Scrapes answered by the direct handler, without Hono. */
  let directAnswers = 0;

  beforeAll(async () => {
    await fill(store);
    const app = createServerApp({
      version: "test",
      web: () => web,
      renderMetrics: async (coding) => [
        ...store.render(0, coding),
        coding === "gzip" ? await gzipMember(Buffer.from(ownText)) : Buffer.from(ownText),
      ],
      status: () => statusReport("test", [], createStatusBoard(), 0),
      isReady: () => true,
    });
    const direct: DirectHandler = (request, response) => {
      const taken = app.direct(request, response);
      if (taken) directAnswers += 1;
      return taken;
    };
    server = await listen({ ...app, direct }, "127.0.0.1", 0);
  });
  afterAll(() => server?.close());

  it("answers Prometheus' Accept-Encoding with gzip that decodes to the plain body, each with its length", async () => {
    const plain = await scrape();
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toBe(METRICS_CONTENT_TYPE);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(plain.headers["content-length"]).toBe(String(plain.bytes.length));
    expect(plain.headers["transfer-encoding"]).toBeUndefined();
    expect(plain.bytes.equals(Buffer.concat([body(store, 0, "identity"), Buffer.from(ownText)]))).toBe(true);

    const gzip = await scrape("gzip");
    expect(gzip.status).toBe(200);
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.headers.vary).toBe("Accept-Encoding");
    expect(gzip.headers["content-length"]).toBe(String(gzip.bytes.length));
    expect(gunzipSync(gzip.bytes).equals(plain.bytes)).toBe(true);
    expect(pythonGunzip(gzip.bytes).equals(plain.bytes)).toBe(true);
  });

  it("sends identity when gzip is refused, and 406 when both are", async () => {
    const refused = await scrape("gzip;q=0");
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.bytes.equals((await scrape()).bytes)).toBe(true);
    const neither = await scrape("gzip;q=0, identity;q=0");
    expect(neither.status).toBe(406);
    expect(neither.headers.vary).toBe("Accept-Encoding");
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    for (const acceptEncoding of [undefined, "gzip"]) {
      const get = await scrape(acceptEncoding);
      const head = await scrape(acceptEncoding, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.bytes.length).toBe(0);
      for (const name of ["content-type", "content-encoding", "content-length", "vary", "x-content-type-options"]) {
        expect(head.headers[name], name).toBe(get.headers[name]);
      }
    }
  });

  it("answers the same directly and through Hono, which takes what the direct handler leaves", async () => {
    const headersOf = (answer: RawAnswer) => {
      const { date: _date, connection: _connection, "keep-alive": _keepAlive, ...rest } = answer.headers;
      return rest;
    };
    for (const acceptEncoding of [undefined, "gzip", "gzip;q=0, identity;q=0"]) {
      const before = directAnswers;
      const direct = await scrape(acceptEncoding);
      expect(directAnswers).toBe(before + 1);
      // A query string is another spelling of the path: Hono routes it.
      const throughHono = await rawRequest(`${server.url}/metrics?from=test`, { headers: accepting(acceptEncoding) });
      expect(directAnswers).toBe(before + 1);
      expect(throughHono.status).toBe(direct.status);
      expect(headersOf(throughHono)).toEqual(headersOf(direct));
      expect(throughHono.bytes.equals(direct.bytes)).toBe(true);
    }
    expect((await scrape(undefined, { method: "POST" })).status).toBe(404);
  });

  it("keeps the web config's security headers and basic auth in front", async () => {
    const hash = bcrypt.hashSync("right password", 4);
    web = { basicAuthUsers: { alice: new Secret(hash) }, headers: { "Strict-Transport-Security": "max-age=60" } };
    try {
      const denied = await scrape("gzip");
      expect(denied.status).toBe(401);
      expect(denied.headers["x-frame-options"]).toBe("DENY");
      const asAlice = (password: string) => ({
        headers: { Authorization: `Basic ${Buffer.from(`alice:${password}`).toString("base64")}` },
      });
      // The first scrape with these credentials runs bcrypt, through Hono; the next ones are answered directly.
      for (const expectedDirect of [0, 1, 2]) {
        const before = directAnswers;
        const allowed = await scrape("gzip", asAlice("right password"));
        expect(directAnswers - before).toBe(expectedDirect === 0 ? 0 : 1);
        expect(allowed.status).toBe(200);
        expect(allowed.headers["strict-transport-security"]).toBe("max-age=60");
        expect(allowed.headers["x-content-type-options"]).toBe("nosniff");
        expect(allowed.headers["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'");
        expect(gunzipSync(allowed.bytes).toString()).toMatch(/own_metric 1\n$/);
      }
      const before = directAnswers;
      expect((await scrape("gzip", asAlice("wrong password"))).status).toBe(401);
      expect((await scrape("gzip")).status).toBe(401);
      expect(directAnswers).toBe(before);
    } finally {
      web = undefined;
    }
  });
});

describe("/metrics to a client that leaves", () => {
  /** Far more than loopback's socket buffers hold, so the server is still writing when the client leaves. */
  const piece = Buffer.alloc(1 << 20, "x 1\n");
  const pieces = Array.from({ length: 64 }, () => piece);
  /** When set, the next render waits for it, having called `started`. */
  let held: { readonly started: () => void; readonly release: Promise<void> } | undefined;
  let server: Listening;

  beforeAll(async () => {
    const app = createServerApp({
      version: "test",
      web: () => undefined,
      renderMetrics: async () => {
        const hold = held;
        held = undefined;
        if (hold !== undefined) {
          hold.started();
          await hold.release;
        }
        return pieces;
      },
      status: () => statusReport("test", [], createStatusBoard(), 0),
      isReady: () => true,
    });
    server = await listen(app, "127.0.0.1", 0);
  });
  afterAll(() => server?.close());

  const scrapeWhole = async () => {
    const answer = await rawRequest(`${server.url}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-length"]).toBe(String(64 * piece.length));
    expect(answer.bytes.length).toBe(64 * piece.length);
  };

  it("serves the next scrape whole after a client hung up in the middle of a body", async () => {
    const firstBytes = await new Promise<number>((resolve, reject) => {
      const leaving = request(`${server.url}/metrics`, (response) => {
        response.once("data", (chunk: Buffer) => {
          leaving.destroy();
          resolve(chunk.length);
        });
      }).on("error", (error) => (leaving.destroyed ? undefined : reject(error)));
      leaving.end();
    });
    expect(firstBytes).toBeGreaterThan(0);
    await scrapeWhole();
  });

  it("serves the next scrape whole after a client hung up while its body was being rendered", async () => {
    let release!: () => void;
    const rendering = new Promise<void>(
      (started) => (held = { started, release: new Promise((done) => (release = done)) }),
    );
    const leaving = request(`${server.url}/metrics`).on("error", () => {});
    leaving.end();
    await rendering;
    leaving.destroy();
    // By the time another scrape is answered, the server has seen the first client go.
    await scrapeWhole();
    release();
    await scrapeWhole();
  });
});

describe("the exporter's /metrics with Accept-Encoding: gzip", () => {
  let simulator: RunningSimulator;
  let exporter: RunningExporter;

  const rawScrape = (acceptEncoding?: string) =>
    rawRequest(new URL("/metrics", exporter.url).href, { headers: accepting(acceptEncoding) });

  beforeAll(async () => {
    simulator = await startSimulator({ host: "127.0.0.1", port: 0, ledgerIntervalMs: 1000, pools: 600, seed: 3 });
    const command = await loadConfig(
      [
        `--horizon.url=a=${simulator.url}`,
        `--horizon.url=b=${simulator.url}`,
        "--poll.interval=1h",
        "--web.listen-address=127.0.0.1:0",
      ],
      {},
    );
    if (command.kind !== "run") throw new Error(`config rejected: ${JSON.stringify(command)}`);
    exporter = await startExporter(command.config, { logger: pino({ level: "silent" }) });
    await exporter.firstPolls;
  }, 60_000);

  afterAll(async () => {
    await exporter?.close();
    await simulator?.close();
  });

  it("sends gzip members, its own metrics included, that decode to the plain exposition", async () => {
    const gzip = await rawScrape("gzip");
    const plain = await rawScrape();
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const decoded = gunzipSync(gzip.bytes);
    expect(pythonGunzip(gzip.bytes).equals(decoded)).toBe(true);
    const compressedSeries = parseExposition(decoded.toString());
    const plainSeries = parseExposition(plain.bytes.toString());
    // The same series; the values of the exporter's own process metrics move between two scrapes.
    expect([...compressedSeries.keys()].sort()).toEqual([...plainSeries.keys()].sort());
    const horizonSeries = [...plainSeries].filter(
      ([key]) => key.startsWith("stellar_horizon_") && !key.startsWith("stellar_horizon_exporter_"),
    );
    expect(horizonSeries.length).toBeGreaterThan(2000);
    for (const [key, value] of horizonSeries) expect(compressedSeries.get(key), key).toBe(value);
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 3);
  });
});
