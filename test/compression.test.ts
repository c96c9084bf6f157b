import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { request, type IncomingHttpHeaders } from "node:http";
import { gunzipSync, gzipSync } from "node:zlib";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METRICS, type PublishedSource } from "../src/catalog/metrics.js";
import { HistogramData, type CollectorSamples, type Sample } from "../src/exposition/samples.js";
import { MetricStore, type ContentCoding } from "../src/exposition/store.js";
import { loadConfig } from "../src/config/config.js";
import { Secret } from "../src/config/secret.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import type { WebConfig } from "../src/config/web-config.js";
import { createServerApp, METRICS_CONTENT_TYPE } from "../src/server/app.js";
import { listen, type Listening } from "../src/server/listen.js";
import { negotiateContentCoding } from "../src/server/content-coding.js";
import { startSimulator, type RunningSimulator } from "../src/simulator/index.js";
import { parseExposition } from "./support/exposition.js";
import { pino } from "pino";
import { createStatusBoard, statusReport } from "../src/status/model.js";

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

/** How many gzip members a stream holds, counted by Python's zlib one member after another. */
function pythonMembers(bytes: Buffer): number {
  const script = [
    "import sys, zlib",
    "data, members = sys.stdin.buffer.read(), 0",
    "while data:",
    "    decoder = zlib.decompressobj(31)",
    "    decoder.decompress(data)",
    "    data, members = decoder.unused_data, members + 1",
    "print(members)",
  ].join("\n");
  const result = spawnSync("python3", ["-c", script], { input: bytes });
  if (result.status !== 0) throw new Error(`python3 zlib failed: ${result.stderr.toString()}`);
  return Number(result.stdout.toString());
}

/** Enough pools that the rendering hands the event loop back a few times. */
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

const body = (store: MetricStore, nowMs: number, coding: ContentCoding) => store.scrape(nowMs, coding);

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
    expect((await body(store, 0, "gzip")).length).toBeLessThan((await body(store, 0, "identity")).length / 3);
    for (const nowMs of [0, 5_000, 10_000]) {
      const plain = await body(store, nowMs, "identity");
      const compressed = await body(store, nowMs, "gzip");
      expect(gunzipSync(compressed).equals(plain)).toBe(true);
      expect(pythonGunzip(compressed).equals(plain)).toBe(true);
    }
    const plain = (await body(store, 0, "identity")).toString();
    expect(plain.match(/^# TYPE /gm)).toHaveLength(3);
    expect(plain).toContain(`pool_id="${(700).toString(16).padStart(64, "0")}"} 1000\n`);
    // Live series leave both codings when stale; persistent ones stay.
    const stale = gunzipSync(await body(store, 10_000, "gzip")).toString();
    expect(stale).toContain('stellar_horizon_ledger_close_interval_seconds_count{horizon="a"} 3');
    expect(stale).not.toContain("stellar_horizon_ledger_sequence");
    expect(stale).not.toContain("stellar_horizon_liquidity_pool_shares");
  });

  it("shows each publication's values in both codings, and nothing of an empty store", async () => {
    const store = new MetricStore();
    for (const coding of ["identity", "gzip"] as const) expect((await body(store, 0, coding)).length).toBe(0);
    await fill(store);
    await fill(store, 1);
    const plain = await body(store, 0, "identity");
    expect(plain.toString()).toContain(`pool_id="${(700).toString(16).padStart(64, "0")}"} 1001\n`);
    expect(gunzipSync(await body(store, 0, "gzip")).equals(plain)).toBe(true);
  });

  it("makes one member of a family, over many slices, whether its text compresses or not", async () => {
    // xorshift32: label values of random hex that barely compress, the same every run.
    let state = 0x2545f491;
    const randomHex = () =>
      Array.from({ length: 8 }, () => {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        return (state >>> 0).toString(16).padStart(8, "0");
      }).join("");
    const samples: Sample[] = Array.from({ length: 3_000 }, (_, index) => ({
      metric: METRICS.liquidityPoolShares,
      labels: { pool_id: randomHex() },
      value: index,
    }));
    const store = new MetricStore();
    await publish(store, "a", "liquidity_pools", { live: samples, persistent: [] }, 10_000);
    const plain = await body(store, 0, "identity");
    const compressed = await body(store, 0, "gzip");
    expect(plain.toString().split("\n")).toHaveLength(3_000 + 3);
    expect(gunzipSync(compressed).equals(plain)).toBe(true);
    expect(pythonGunzip(compressed).equals(plain)).toBe(true);
    // One header member and one member for the family, however many slices were compressed into it.
    const members = pythonMembers(compressed);
    expect(members).toBe(2);
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
    // A fresh connection each time: a kept-alive socket the server closes as it idles hangs up the next request.
    request(url, { method, headers, agent: false }, (response) => {
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

  beforeAll(async () => {
    await fill(store);
    const app = createServerApp({
      version: "test",
      web: () => web,
      // In parts, as the exporter sends the store's body and its own metrics.
      renderMetrics: async (coding) => [
        await store.scrape(0, coding),
        coding === "gzip" ? gzipSync(ownText) : Buffer.from(ownText),
      ],
      status: () => statusReport("test", [], createStatusBoard(), 0),
      isReady: () => true,
    });
    server = await listen(app, "127.0.0.1", 0);
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
    expect(plain.bytes.equals(Buffer.concat([await body(store, 0, "identity"), Buffer.from(ownText)]))).toBe(true);

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

  it("answers another spelling of the path the same, and only GET and HEAD", async () => {
    const headersOf = (answer: RawAnswer) => {
      const { date: _date, connection: _connection, "keep-alive": _keepAlive, ...rest } = answer.headers;
      return rest;
    };
    for (const acceptEncoding of [undefined, "gzip", "gzip;q=0, identity;q=0"]) {
      const plainPath = await scrape(acceptEncoding);
      const withQuery = await rawRequest(`${server.url}/metrics?from=test`, { headers: accepting(acceptEncoding) });
      expect(withQuery.status).toBe(plainPath.status);
      expect(headersOf(withQuery)).toEqual(headersOf(plainPath));
      expect(withQuery.bytes.equals(plainPath.bytes)).toBe(true);
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
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const allowed = await scrape("gzip", asAlice("right password"));
        expect(allowed.status).toBe(200);
        expect(allowed.headers["strict-transport-security"]).toBe("max-age=60");
        expect(allowed.headers["x-content-type-options"]).toBe("nosniff");
        expect(allowed.headers["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'");
        expect(gunzipSync(allowed.bytes).toString()).toMatch(/own_metric 1\n$/);
      }
      expect((await scrape("gzip", asAlice("wrong password"))).status).toBe(401);
      expect((await scrape("gzip")).status).toBe(401);
    } finally {
      web = undefined;
    }
  });
});

describe("/metrics to a client that leaves", () => {
  /** Far more than loopback's socket buffers hold, so the server is still writing when the client leaves. */
  const piece = Buffer.alloc(1 << 20, "x 1\n");
  const half = Buffer.concat(Array.from({ length: 32 }, () => piece));
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
        // Two parts, as the exporter's store body and own metrics: written one after the other, each as the socket drains.
        return [half, Buffer.alloc(0), half];
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
    // The same series, but for the process metrics, collected at each scrape: their values move, and
    // a series may appear between two scrapes (a first major garbage collection).
    const stable = (series: Map<string, number>) =>
      [...series.keys()].filter((key) => !/^(process|nodejs)_/.test(key)).sort();
    expect(stable(compressedSeries)).toEqual(stable(plainSeries));
    const horizonSeries = [...plainSeries].filter(
      ([key]) => key.startsWith("stellar_horizon_") && !key.startsWith("stellar_horizon_exporter_"),
    );
    expect(horizonSeries.length).toBeGreaterThan(2000);
    for (const [key, value] of horizonSeries) expect(compressedSeries.get(key), key).toBe(value);
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 3);
  });
});

describe("/metrics in a process where another server answered first", () => {
  /** A fresh process: a server answers before the app's module is first imported, as a simulator or test server may. */
  const SCRIPT = `
    import { Hono } from "hono";
    import { listen } from "./dist/server/listen.js";
    const first = await listen(new Hono().get("/", (c) => c.text("x")), "127.0.0.1", 0);
    await (await fetch(first.url + "/")).text();
    const { createServerApp } = await import("./dist/server/app.js");
    const part = Buffer.alloc(4_000_000, "x 1\\n");
    const renderMetrics = async () => [part, part, part, part];
    const app = createServerApp({ version: "x", web: () => undefined, renderMetrics, status: () => ({}), isReady: () => true });
    const server = await listen(app, "127.0.0.1", 0);
    const answer = await fetch(server.url + "/metrics", { headers: { "accept-encoding": "identity" } });
    console.log(answer.status, (await answer.arrayBuffer()).byteLength);
    await server.close();
    await first.close();
  `;

  it("is whole: no server replaces Node's Response, so the app's already-sent answer is never answered again", () => {
    const root = resolve(import.meta.dirname, "..");
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.stdout, result.stderr).toBe("200 16000000\n");
    expect(result.stderr).toBe("");
  });
});
