import type { IncomingMessage, ServerResponse } from "node:http";
import { pino } from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import { HorizonClient } from "../src/client/horizon-client.js";
import { MAIN_THREAD_MAX_CHARS, MAX_VALUES, parseJson, stopJsonThread } from "../src/client/json-parse.js";
import { exceedsValues, surelyExceedsValues } from "../src/client/json-worker.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { configFrom, stopStarted } from "./support/exporter-harness.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeHorizon, makePool } from "./support/fake-horizon.js";
import { HostileHorizon } from "./support/hostile-horizon.js";
import { LoopbackServer } from "./support/loopback-server.js";
import { until } from "./support/wait.js";

/**
 * Issue 42: a page of millions of tiny records under the body cap must not stall the event loop,
 * and a legitimately large answer must still be read. Bodies over MAIN_THREAD_MAX_CHARS are parsed
 * by a worker thread, which sends back no answer of more than MAX_VALUES JSON values.
 */

const TINY_RECORDS = 2_500_000;
/** A pools page of 2.5 million empty records: 7.5 MB, under the 8 MiB body cap. */
const hostilePage = `{"_embedded":{"records":[${Array(TINY_RECORDS).fill("{}").join(",")}]}}`;
const PADDING = "x".repeat(3 * 1024 * 1024);

afterAll(() => stopJsonThread());

/** What a failed promise threw, as a PollError. */
async function pollErrorOf(promise: Promise<unknown>): Promise<PollError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PollError);
  return error as PollError;
}

describe("counting JSON values", () => {
  it("counts every value, containers included, and stops at the limit", () => {
    const value = { a: [1, 2, { b: null }], c: "text" };
    // The object, a, its three items, b, c.
    expect(exceedsValues(value, 7)).toBe(false);
    expect(exceedsValues(value, 6)).toBe(true);
    expect(exceedsValues("scalar", 1)).toBe(false);
    expect(exceedsValues([], 0)).toBe(true);
    expect(exceedsValues(Array(10).fill({}), 11)).toBe(false);
    expect(exceedsValues(Array(10).fill({}), 10)).toBe(true);
  });
});

describe("a body's values counted before parsing", () => {
  it("counts objects, arrays and commas outside strings, escaped quotes included, as floors on the values", () => {
    // Four containers and two commas: at least four values (there are six).
    const text = '{"a":[1,{"b":"{[,\\"{,"}],"c":[]}';
    expect(JSON.parse(text)).toEqual({ a: [1, { b: '{[,"{,' }], c: [] });
    expect(surelyExceedsValues(text, 4)).toBe(false);
    expect(surelyExceedsValues(text, 3)).toBe(true);
    // Three commas: at least four values, whatever their kind.
    expect(surelyExceedsValues("[0,1,2,3]", 4)).toBe(false);
    expect(surelyExceedsValues("[0,1,2,3]", 3)).toBe(true);
    expect(surelyExceedsValues('"an unterminated string, {[', 0)).toBe(false);
  });

  it("refuses the page of 2.5 million empty records, and one of as many zeros, unparsed", () => {
    expect(surelyExceedsValues(hostilePage, MAX_VALUES)).toBe(true);
    expect(surelyExceedsValues(`[${Array(TINY_RECORDS).fill(0).join(",")}]`, MAX_VALUES)).toBe(true);
    const pools = JSON.stringify({ _embedded: { records: [makePool(1, { padding: PADDING }), makePool(2)] } });
    expect(surelyExceedsValues(pools, MAX_VALUES)).toBe(false);
  });
});

describe("parseJson", () => {
  it("parses small bodies at once and says invalid_json, with the start of the body, for the rest", async () => {
    await expect(parseJson('{"a":[1,"x"]}')).resolves.toEqual({ a: [1, "x"] });
    const error = await pollErrorOf(parseJson("<html><title>Bad gateway</title></html>"));
    expect(error.reason).toBe("invalid_json");
    expect(error.message).toBe("body is not JSON: Bad gateway");
  });

  it("answers `schema` to a page of 2.5 million empty records, while the event loop keeps turning", async () => {
    expect(hostilePage.length).toBeGreaterThan(MAIN_THREAD_MAX_CHARS);
    const ping = new LoopbackServer((_request, response) => response.end("ok"));
    const pingUrl = await ping.start();
    try {
      let settled = false;
      const parsing = parseJson(hostilePage).finally(() => (settled = true));
      // Round trips to a server on this thread complete while the page is parsed: a parse on the
      // event loop would let none through before it settled.
      const answeredWhileParsing: boolean[] = [];
      for (let round = 0; round < 3; round += 1) {
        expect(await (await fetch(pingUrl)).text()).toBe("ok");
        answeredWhileParsing.push(!settled);
      }
      const error = await pollErrorOf(parsing);
      expect(answeredWhileParsing).toEqual([true, true, true]);
      expect(error.reason).toBe("schema");
      expect(error.message).toBe(`answer too complex: more than ${MAX_VALUES} JSON values`);
    } finally {
      await ping.stop();
    }
  });

  it("parses a large legitimate body in the worker, to the same values", async () => {
    const body = { _embedded: { records: [makePool(1, { padding: PADDING }), makePool(2)] } };
    const text = JSON.stringify(body);
    expect(text.length).toBeGreaterThan(MAIN_THREAD_MAX_CHARS);
    await expect(parseJson(text)).resolves.toEqual(body);
  });

  it("says invalid_json of a large body that is not JSON, showing its start in bounded time", async () => {
    // The excerpt's title search is bounded: over the whole body it would backtrack for hours.
    const error = await pollErrorOf(parseJson("<title".repeat(1_500_000)));
    expect(error.reason).toBe("invalid_json");
    expect(error.message).toBe(`body is not JSON: ${"<title".repeat(26)}<tit…`);
  });

  it("answers `schema` to arrays nested too deeply for a structured clone, and keeps its worker", async () => {
    const depth = 99_000;
    const text = JSON.stringify({ padding: PADDING, deep: "here" }).replace(
      '"here"',
      `${"[".repeat(depth)}${"]".repeat(depth)}`,
    );
    const error = await pollErrorOf(parseJson(text));
    expect(error.reason).toBe("schema");
    expect(error.message).toBe("answer too complex: nested too deeply to send back");
    await expect(parseJson(JSON.stringify({ padding: PADDING }))).resolves.toEqual({ padding: PADDING });
  });

  it("fails the parses of a worker that stopped, and starts another for the next body", async () => {
    const parsing = parseJson(hostilePage);
    await stopJsonThread();
    const error = await pollErrorOf(parsing);
    expect(error.reason).toBe("internal");
    expect(error.message).toBe("the JSON parsing thread stopped (exited)");
    await expect(parseJson(JSON.stringify({ padding: PADDING }))).resolves.toEqual({ padding: PADDING });
  });
});

describe("through a Horizon client", () => {
  let server: LoopbackServer | undefined;
  afterEach(() => server?.stop());

  it("reads a pools page with a 3 MiB record, and fails the page of empty records as `schema`", async () => {
    let body = JSON.stringify({ _embedded: { records: [makePool(1, { padding: PADDING })] } });
    server = new LoopbackServer((_request, response) => {
      response.writeHead(200, { "Content-Type": "application/hal+json" });
      response.end(body);
    });
    const url = await server.start();
    const client = new HorizonClient({ url, timeoutMs: 30_000, retries: 0, maxBodyBytes: 8 * 1024 * 1024 });
    const pools = await client.liquidityPools({ limit: 200 });
    expect((pools as { id: string; padding: string }[]).map((pool) => [pool.id, pool.padding.length])).toEqual([
      [makePool(1).id, PADDING.length],
    ]);
    body = hostilePage;
    const error = await pollErrorOf(client.liquidityPools({ limit: 200 }));
    expect(error.reason).toBe("schema");
  });
});

describe("an exporter beside a Horizon serving hostile pools pages", () => {
  let exporter: RunningExporter | undefined;
  let good: FakeHorizon | undefined;
  let bad: HostileHorizon | undefined;
  afterEach(() => stopStarted(exporter, good, bad));

  it("keeps the other Horizon counting ledgers and /metrics and /healthz answering", { timeout: 120_000 }, async () => {
    good = new FakeHorizon();
    good.addLedgers(3);
    bad = new HostileHorizon();
    bad.healthy.addLedgers(3);
    bad.healthy.pools = [makePool(1, { padding: PADDING })];
    const hostileBytes = Buffer.from(hostilePage);
    let poolPolls = 0;
    const hostile = bad;
    // The first pools poll gets a record padded to 3 MiB, every later one the page of empty records.
    hostile.misbehaviour = (request: IncomingMessage, response: ServerResponse) => {
      const path = new URL(request.url ?? "/", "http://horizon").pathname;
      if (path !== "/liquidity_pools" || ++poolPolls === 1) return void hostile.answerHealthily(request, response);
      response.writeHead(200, { "Content-Type": "application/hal+json", "Content-Length": hostileBytes.length });
      response.end(hostileBytes);
    };
    const config = await configFrom([
      `--horizon.url=good=${await good.start()}`,
      `--horizon.url=bad=${await bad.start()}`,
      "--poll.interval=1s",
    ]);
    // Parsing a hostile page takes seconds of CPU on a loaded machine: the answer is `schema`, not a
    // timeout, so a run's deadline (the lesser of the timeout and the stale-after intervals) is long.
    const targets = config.targets.map((target) => (target.name === "bad" ? { ...target, timeoutMs: 60_000 } : target));
    exporter = await startExporter(
      { ...config, staleAfterIntervals: 60, targets },
      { logger: pino({ level: "silent" }) },
    );
    await exporter.firstPolls;
    const running = exporter;
    const scrape = async () => {
      const response = await fetch(`${running.url}/metrics`);
      expect(response.status).toBe(200);
      return parseExposition(await response.text());
    };
    let errorSeries = "";
    const schemaError = { horizon: "bad", endpoint: "liquidity_pools", reason: "schema" };
    await until(
      () => `a hostile pools page answered \`schema\` (${poolPolls} pools polls; ${errorSeries})`,
      async () => {
        const values = await scrape();
        errorSeries = [...values].filter(([series]) => series.includes("poll_errors")).join(" ");
        return (valueOf(values, "stellar_horizon_exporter_poll_errors_total", schemaError) ?? 0) >= 1 || undefined;
      },
      { timeoutMs: 60_000 },
    );
    const hostilePagesBefore = poolPolls;
    const counted = valueOf(await scrape(), "stellar_horizon_ledgers_total", { horizon: "good" }) ?? 0;
    for (let round = 1; round <= 3; round += 1) {
      good.addLedgers(1);
      await until(`ledger ${round} counted`, async () => {
        expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
        const total = valueOf(await scrape(), "stellar_horizon_ledgers_total", { horizon: "good" });
        return total === counted + round || undefined;
      });
    }
    // The hostile pages kept coming while the healthy target was polled (every pools poll is one).
    await until("another hostile pools page", () => poolPolls > hostilePagesBefore || undefined);
    expect(poolPolls).toBeGreaterThan(hostilePagesBefore);
    expect(valueOf(await scrape(), "stellar_horizon_up", { horizon: "good" })).toBe(1);
  });
});
