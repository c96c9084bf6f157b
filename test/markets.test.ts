import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ALL_METRICS } from "../src/catalog/metrics.js";
import { PollError } from "../src/client/errors.js";
import { HorizonClient, type Query } from "../src/client/horizon-client.js";
import { priceOf, tradeAggregationSchema } from "../src/client/market-schemas.js";
import { MarketsJob } from "../src/collectors/markets.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import type { WatchedMarket } from "../src/config/markets.js";
import { NetworkView } from "../src/job/network.js";
import { renderSamples } from "./support/render-samples.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeMarkets, makeTrade, type JsonRecord } from "./support/fake-markets.js";
import { fixtureJson } from "./support/fixtures.js";
import { pollContext } from "./support/poll-context.js";

const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const MAKER = "GBJPWEIFX6KO4H52BF3QJDYRCLXB2P3Z3QTKWUGFOOFH5MSRZV4WLRZ7";
const OTHER = "GAKC3P3LQKBRCPOQ3ACI6NHKDNHKTIPGTX7EPOC3SGCMLQK4K3WYICWK";
const SCHEDULE = parseSchedule("1m") as Schedule;
/** 2024-07-08 09:47:30Z: the current 5-minute bucket started 09:45, so the last completed one is 09:40. */
const NOW = Date.UTC(2024, 6, 8, 9, 47, 30);
/** 2^63 − 1, the largest part of a rational Horizon can send. */
const INT64_MAX_TEXT = "9223372036854775807";
const BUCKETS = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("trade_aggregations-usdc-desc-java-sdk.json")
  ._embedded.records;

const market = (overrides: Partial<WatchedMarket> = {}): WatchedMarket => ({
  name: "xlm-usdc",
  base: "native",
  counter: USDC,
  resolutionMs: 300_000,
  makers: [],
  ...overrides,
});

describe("MarketsJob against an independent Horizon", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  let invalid = 0;
  const context = () => ({
    signal: new AbortController().signal,
    invalidRecords: (count: number) => {
      invalid += count;
    },
    progressed: () => {},
  });
  const job = (watched: WatchedMarket, now = () => NOW) => new MarketsJob(client, [watched], SCHEDULE, now);
  const series = async (marketsJob: MarketsJob) => {
    const samples = marketsJob.samples();
    const rendered = await renderSamples("h", [...samples.persistent, ...samples.live]);
    return parseExposition(rendered);
  };
  const at = (labels: Record<string, string> = {}) => ({ horizon: "h", market: "xlm-usdc", ...labels });

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());
  beforeEach(() => {
    horizon.buckets = [];
    horizon.trades = [];
    horizon.offers = [];
    horizon.repeatCursorTrade = false;
    horizon.requests.length = 0;
    invalid = 0;
  });
  afterEach(() => expect(invalid).toBe(0));

  it("price (from the rationals; avg as served), volume, count and time are the last completed bucket's", async () => {
    // The bucket of 09:45 is still open: the job asks for buckets before it.
    horizon.buckets = BUCKETS;
    const marketsJob = job(market({ referencePrice: 0.09 }));
    await marketsJob.run(context());
    const [request] = horizon.requestsTo("/trade_aggregations");
    expect(Object.fromEntries(request!.searchParams)).toEqual({
      base_asset_type: "native",
      counter_asset_type: "credit_alphanum4",
      counter_asset_code: "USDC",
      counter_asset_issuer: "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN",
      resolution: "300000",
      end_time: String(Date.UTC(2024, 6, 8, 9, 45)),
      order: "desc",
      limit: "1",
    });
    const values = await series(marketsJob);
    // Record 0 of the capture is the bucket of 09:45 (1720431900000); the one served here, of 09:40, is record 1.
    const bucket = BUCKETS[1]!;
    expect(bucket.timestamp).toBe("1720431600000");
    // Its `open` "0.0864528" and `close` "0.0862999" are these rationals rounded to seven decimals; every part is
    // below 2^53, so the division of the literals is the nearest float64 itself.
    expect(bucket.open_r).toEqual({ n: "179618750", d: "2077650591" });
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "open" }))).toBe(179618750 / 2077650591);
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "high" }))).toBe(1000 / 11567);
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "low" }))).toBe(1630158 / 18889448);
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "close" }))).toBe(1630158 / 18889448);
    // avg has no rational form.
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "avg" }))).toBe(0.0863634);
    expect(valueOf(values, "stellar_horizon_market_bucket_volume", at({ asset: "base" }))).toBe(33616.8908143);
    expect(valueOf(values, "stellar_horizon_market_bucket_volume", at({ asset: "counter" }))).toBe(2903.2698207);
    expect(valueOf(values, "stellar_horizon_market_bucket_trades", at())).toBe(154);
    expect(valueOf(values, "stellar_horizon_market_bucket_timestamp_seconds", at())).toBe(1720431600);
    expect(valueOf(values, "stellar_horizon_market_traded", at())).toBe(1);
    expect(valueOf(values, "stellar_horizon_market_reference_price", at())).toBe(0.09);
    expect(valueOf(values, "stellar_horizon_market_price_deviation_ratio", at())).toBe(
      (1630158 / 18889448 - 0.09) / 0.09,
    );
  });

  it("reads Horizon's pre-1.0 bucket shape: numbers for timestamp and trade_count, capital N and D", () => {
    const old = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("trade_aggregations-stellar-docs.json");
    const bucket = tradeAggregationSchema.parse(old._embedded.records[0]);
    expect(bucket.timestamp).toBe(old._embedded.records[0]!.timestamp);
    // open_r {"N": 652169, "D": 10000000}, low_r and close_r {"N": 8107550, "D": 127010393}.
    expect(bucket).toMatchObject({ trade_count: 3, open: 0.0652169, low: 8107550 / 127010393, avg: 0.06394 });
  });

  it("a pair Horizon never saw is no poll error: traded 0, no price, no trades", async () => {
    horizon.buckets = undefined;
    horizon.trades = undefined;
    const marketsJob = job(market());
    await marketsJob.run(context());
    await marketsJob.run(context());
    const values = await series(marketsJob);
    expect(valueOf(values, "stellar_horizon_market_traded", at())).toBe(0);
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "close" }))).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_market_trades_total", at({ trade_type: "orderbook" }))).toBe(0);
  });

  it("known assets that never traded each other: 200 without records, traded 0, and the first trade counts", async () => {
    const marketsJob = job(market());
    await marketsJob.run(context());
    expect(valueOf(await series(marketsJob), "stellar_horizon_market_traded", at())).toBe(0);
    horizon.trades = [
      makeTrade("100-0", { base: "native", counter: USDC, baseAmount: "1.0000000", counterAmount: "0.1000000" }),
    ];
    await marketsJob.run(context());
    const values = await series(marketsJob);
    expect(valueOf(values, "stellar_horizon_market_trades_total", at({ trade_type: "orderbook" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_market_last_trade_timestamp_seconds", at())).toBe(
      Date.UTC(2024, 6, 8, 9, 40) / 1000,
    );
  });
});

describe("MarketsJob's output", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());

  it("has every market family, and promtool accepts it", async () => {
    const offers = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("offers-java-sdk.json")._embedded.records;
    horizon.buckets = BUCKETS;
    const trade = (token: string) =>
      makeTrade(token, { base: "native", counter: USDC, baseAmount: "1.0000000", counterAmount: "0.1000000" });
    horizon.trades = [trade("1-0")];
    horizon.offers = [
      {
        ...offers[0]!,
        seller: MAKER,
        selling: { asset_type: "native" },
        buying: { asset_type: "credit_alphanum4", asset_code: "USDC", asset_issuer: USDC.split(":")[1] },
      },
    ];
    const marketsJob = new MarketsJob(client, [market({ referencePrice: 0.09, makers: [MAKER] })], SCHEDULE, () => NOW);
    await marketsJob.run(pollContext());
    horizon.trades.push(trade("2-0"));
    await marketsJob.run(pollContext());
    const samples = marketsJob.samples();
    const rendered = await renderSamples("h", [...samples.persistent, ...samples.live]);
    const lines = rendered.toString().split("\n").filter(Boolean);
    const families = ALL_METRICS.filter((candidate) => candidate.source === "markets");
    const text = families
      .map((metric) => {
        const series = lines.filter((line) => line.startsWith(`${metric.name}{`));
        expect(series.length, metric.name).toBeGreaterThan(0);
        return `# HELP ${metric.name} ${metric.help}\n# TYPE ${metric.name} ${metric.type}\n${series.join("\n")}\n`;
      })
      .join("");
    expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" }).trim()).toBe("");
  });
});

describe("MarketsJob counts every trade exactly once", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  const context = pollContext();

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());
  beforeEach(() => {
    horizon.trades = [];
    horizon.repeatCursorTrade = false;
    horizon.requests.length = 0;
  });

  /** Trades `from`..`to` (operation ids), each of 1.0000001 base for 0.1000002 counter. */
  const tradesBetween = (from: number, to: number, reversed = false) =>
    Array.from({ length: to - from + 1 }, (_, index) =>
      reversed
        ? makeTrade(`${from + index}-1`, {
            base: USDC,
            counter: "native",
            baseAmount: "0.1000002",
            counterAmount: "1.0000001",
          })
        : makeTrade(`${from + index}-1`, {
            base: "native",
            counter: USDC,
            baseAmount: "1.0000001",
            counterAmount: "0.1000002",
            tradeType: index % 2 === 0 ? "orderbook" : "liquidity_pool",
          }),
    );

  const counted = async (marketsJob: MarketsJob) => {
    const samples = marketsJob.samples();
    const rendered = await renderSamples("h", samples.persistent);
    const values = parseExposition(rendered);
    const at = (labels: Record<string, string>) => ({ horizon: "h", market: "m", ...labels });
    return {
      orderbook: valueOf(values, "stellar_horizon_market_trades_total", at({ trade_type: "orderbook" })),
      pool: valueOf(values, "stellar_horizon_market_trades_total", at({ trade_type: "liquidity_pool" })),
      base: valueOf(values, "stellar_horizon_market_traded_amount_total", at({ asset: "base" })),
      counter: valueOf(values, "stellar_horizon_market_traded_amount_total", at({ asset: "counter" })),
    };
  };
  const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [] };

  it("the first poll starts at the newest trade and counts nothing; later polls count each new trade once", async () => {
    horizon.trades = tradesBetween(1, 50);
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    const [first] = horizon.requestsTo("/trades");
    expect(first!.searchParams.get("order")).toBe("desc");
    expect(first!.searchParams.get("limit")).toBe("1");
    expect(await counted(marketsJob)).toEqual({ orderbook: 0, pool: 0, base: 0, counter: 0 });

    horizon.trades.push(...tradesBetween(51, 53));
    await marketsJob.run(context);
    const second = horizon.requestsTo("/trades")[1]!;
    expect(Object.fromEntries(second.searchParams)).toMatchObject({ order: "asc", limit: "200", cursor: "50-1" });
    // 51 and 53 are orderbook trades (even offsets), 52 a pool trade.
    expect(await counted(marketsJob)).toEqual({ orderbook: 2, pool: 1, base: 3.0000003, counter: 0.3000006 });

    await marketsJob.run(context);
    expect(await counted(marketsJob)).toEqual({ orderbook: 2, pool: 1, base: 3.0000003, counter: 0.3000006 });
  });

  it("full pages are followed, a record served again on a page boundary counts once, and five pages is the cap", async () => {
    horizon.trades = tradesBetween(1, 1);
    horizon.repeatCursorTrade = true;
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    // 1 200 new trades: with the cursor's trade repeated, each page brings 199 new ones.
    horizon.trades.push(...tradesBetween(2, 1201));
    await marketsJob.run(context);
    const afterCap = await counted(marketsJob);
    expect(horizon.requestsTo("/trades")).toHaveLength(1 + 5);
    expect(afterCap.orderbook! + afterCap.pool!).toBe(5 * 199);
    await marketsJob.run(context);
    const all = await counted(marketsJob);
    expect(horizon.requestsTo("/trades")).toHaveLength(1 + 5 + 2);
    expect(all).toEqual({ orderbook: 600, pool: 600, base: 1200.00012, counter: 120.00024 });
  });

  it("after a restart counts nothing old: a new job's first poll counts nothing, its next only what came after", async () => {
    // History from before the first job started, which Horizon keeps serving.
    horizon.trades = tradesBetween(1, 50);
    const before = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    await before.run(context);
    horizon.trades.push(...tradesBetween(51, 53));
    await before.run(context);
    horizon.trades.push(...tradesBetween(54, 55));
    await before.run(context);
    // 51, 53 and 54 are orderbook trades, 52 and 55 pool trades.
    expect(await counted(before)).toEqual({ orderbook: 3, pool: 2, base: 5.0000005, counter: 0.500001 });

    // The restarted process, against the same Horizon: all 55 trades are history to it.
    const after = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    await after.run(context);
    expect(await counted(after)).toEqual({ orderbook: 0, pool: 0, base: 0, counter: 0 });
    horizon.trades.push(...tradesBetween(56, 57));
    await after.run(context);
    const resumed = horizon.requestsTo("/trades").at(-1)!;
    expect(Object.fromEntries(resumed.searchParams)).toMatchObject({ order: "asc", cursor: "55-1" });
    expect(await counted(after)).toEqual({ orderbook: 1, pool: 1, base: 2.0000002, counter: 0.2000004 });
  });

  it("a record naming the pair the other way round is counted with its amounts swapped", async () => {
    horizon.trades = tradesBetween(1, 1);
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    horizon.trades.push(...tradesBetween(2, 3, true));
    await marketsJob.run(context);
    expect(await counted(marketsJob)).toEqual({ orderbook: 2, pool: 0, base: 2.0000002, counter: 0.2000004 });
  });
});

/** A Horizon serving the pair's trades as scripted, one page a request (then empty ones), each cursor noted. */
function scriptedTrades(...pages: (JsonRecord[] | Error)[]) {
  const cursors: unknown[] = [];
  const marketPage = async (path: string, query: Query) => {
    if (path !== "trades") return [];
    cursors.push(query.cursor);
    const page = pages.shift() ?? [];
    if (page instanceof Error) throw page;
    return page;
  };
  return { client: { marketPage } as unknown as HorizonClient, cursors };
}

describe("MarketsJob's cursor follows the rules of the activity and ledgers jobs", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  let context = pollContext();
  const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [] };
  const trade = (token: string) =>
    makeTrade(token, { base: "native", counter: USDC, baseAmount: "1.0000000", counterAmount: "0.1000000" });
  const trades = async (marketsJob: MarketsJob) => {
    const values = parseExposition(await renderSamples("h", marketsJob.samples().persistent));
    const at = (trade_type: string) => ({ horizon: "h", market: "m", trade_type });
    const count = (type: string) => valueOf(values, "stellar_horizon_market_trades_total", at(type)) ?? 0;
    return count("orderbook") + count("liquidity_pool");
  };

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());
  beforeEach(() => {
    context = pollContext();
  });

  it("drops a cursor Horizon refuses (400): that poll fails, the next starts after the newest trade again", async () => {
    const refused = new PollError("http_4xx", "400 Bad Request", { status: 400 });
    const unavailable = new PollError("http_5xx", "503 Service Unavailable", { status: 503 });
    const scripted = scriptedTrades([trade("1-1")], unavailable, refused, [trade("7-1")], [trade("8-1")]);
    const marketsJob = new MarketsJob(scripted.client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    await expect(marketsJob.run(context)).rejects.toBe(unavailable);
    await expect(marketsJob.run(context)).rejects.toBe(refused);
    await marketsJob.run(context);
    expect(await trades(marketsJob)).toBe(0);
    await marketsJob.run(context);
    expect(await trades(marketsJob)).toBe(1);
    // A 503 keeps the cursor; the refused one is dropped and reading starts again from the newest trade.
    expect(scripted.cursors).toEqual([undefined, "1-1", "1-1", undefined, "7-1"]);
  });

  it("fails a first poll whose newest trade's token cannot be a cursor, and starts at the next one", async () => {
    const scripted = scriptedTrades([trade("abc")], [trade("5-1")], [trade("6-1")]);
    const marketsJob = new MarketsJob(scripted.client, [watched], SCHEDULE, () => NOW);
    await expect(marketsJob.run(context)).rejects.toMatchObject({
      reason: "paging",
      message: "markets: the newest record of m has no paging token a cursor can use",
    });
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect([await trades(marketsJob), context.invalid]).toEqual([1, 0]);
    expect(scripted.cursors).toEqual([undefined, undefined, "5-1"]);
  });

  it("starts over after the newest trade once the network restarted, its cursor past every new trade", async () => {
    const scripted = scriptedTrades([trade("5-1")], [trade("6-1")], [], [trade("2-1")], [trade("3-1")]);
    const network = new NetworkView();
    const marketsJob = new MarketsJob(scripted.client, [watched], SCHEDULE, () => NOW, network);
    await marketsJob.run(context);
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect(await trades(marketsJob)).toBe(1);
    network.ledgerRead(1_000_000);
    network.ledgerRead(5);
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect(await trades(marketsJob)).toBe(2);
    expect(scripted.cursors).toEqual([undefined, "5-1", "6-1", undefined, "2-1"]);
  });

  it("fails with reason paging, counting nothing, when a full page does not move the cursor", async () => {
    const stuck = Array.from({ length: 200 }, () => trade("1-1"));
    const scripted = scriptedTrades([trade("1-1")], stuck);
    const marketsJob = new MarketsJob(scripted.client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    await expect(marketsJob.run(context)).rejects.toMatchObject({ reason: "paging" });
    expect(scripted.cursors).toEqual([undefined, "1-1"]);
    expect([await trades(marketsJob), context.invalid]).toEqual([0, 0]);
  });

  it("takes a page holding only the trade at the cursor as nothing newer, poll after poll", async () => {
    horizon.trades = [trade("1-1"), trade("5-1")];
    horizon.repeatCursorTrade = true;
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    for (let poll = 0; poll < 3; poll += 1) await marketsJob.run(context);
    expect(await trades(marketsJob)).toBe(0);
    horizon.trades.push(trade("6-1"), trade("7-1"));
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect([await trades(marketsJob), context.invalid]).toEqual([2, 0]);
    const cursors = horizon.requestsTo("/trades").map((url) => url.searchParams.get("cursor"));
    expect(cursors).toEqual([null, "5-1", "5-1", "5-1", "7-1"]);
  });

  it("counts each trade of a page out of order once, the cursor moving to the newest", async () => {
    const scripted = scriptedTrades([trade("1-1")], [trade("2-2"), trade("2-1"), trade("2-2"), trade("1-1")], []);
    const marketsJob = new MarketsJob(scripted.client, [watched], SCHEDULE, () => NOW);
    for (let poll = 0; poll < 3; poll++) await marketsJob.run(context);
    expect([await trades(marketsJob), context.invalid]).toEqual([2, 0]);
    expect(scripted.cursors).toEqual([undefined, "1-1", "2-2"]);
  });

  it("counts a trade whose token cannot be the cursor once, and moves past it with a later trade", async () => {
    const scripted = scriptedTrades(
      [trade("1-1")],
      [trade("abc"), trade("2-1"), trade("3-1"), trade("4-x")],
      [trade("4-x")],
      [trade("4-x")],
      [trade("4-x"), trade("4-1")],
    );
    const marketsJob = new MarketsJob(scripted.client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect([await trades(marketsJob), context.invalid]).toEqual([2, 2]);
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect([await trades(marketsJob), context.invalid]).toEqual([2, 2]);
    await marketsJob.run(context);
    await marketsJob.run(context);
    expect([await trades(marketsJob), context.invalid]).toEqual([3, 2]);
    // The cursor moved past "abc" at once, and past "4-x" with the trade after it.
    expect(scripted.cursors).toEqual([undefined, "1-1", "3-1", "3-1", "3-1", "4-1"]);
  });
});

describe("MarketsJob reads each maker's offers on both sides", () => {
  const watched: WatchedMarket = {
    name: "m",
    base: "native",
    counter: USDC,
    resolutionMs: 60_000,
    makers: [MAKER, OTHER],
  };
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  const context = pollContext();
  const offersPage = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("offers-java-sdk.json");
  const template = offersPage._embedded.records[0]!;
  const native = { asset_type: "native" };
  const usdc = {
    asset_type: "credit_alphanum4",
    asset_code: "USDC",
    asset_issuer: "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN",
  };
  const offer = (id: number, fields: JsonRecord): JsonRecord => ({
    ...template,
    id: String(id),
    paging_token: String(id),
    seller: MAKER,
    ...fields,
  });

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());

  it("counts and sums them; the best ask is n / d of price_r, the best bid d / n", async () => {
    horizon.offers = [
      // Asks: selling XLM for USDC, price in USDC per XLM.
      offer(1, {
        selling: native,
        buying: usdc,
        amount: "100.0000000",
        price_r: { n: 1001, d: 10000 },
        price: "0.1001000",
        last_modified_time: "2024-07-08T09:00:00Z",
      }),
      offer(2, {
        selling: native,
        buying: usdc,
        amount: "50.5000001",
        price_r: { n: 999, d: 10000 },
        price: "0.0999000",
        last_modified_time: "2024-07-08T09:30:00Z",
      }),
      // Bids: selling USDC for XLM, price in XLM per USDC; 1/price is USDC per XLM.
      offer(3, {
        selling: usdc,
        buying: native,
        amount: "10.0000000",
        price_r: { n: 11, d: 1 },
        price: "11.0000000",
        last_modified_time: null,
      }),
      offer(4, {
        selling: usdc,
        buying: native,
        amount: "20.0000000",
        price_r: { n: 1000, d: 97 },
        price: "10.3092783",
        last_modified_time: null,
      }),
    ];
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    expect(marketsJob.requestsPerRun).toBe(2 + 2 * 2 * 5);
    await marketsJob.run(context);
    const offerRequests = horizon.requestsTo("/offers");
    expect(offerRequests).toHaveLength(4);
    expect(Object.fromEntries(offerRequests[0]!.searchParams)).toEqual({
      seller: MAKER,
      selling: "native",
      buying: USDC,
      order: "asc",
      limit: "200",
    });
    const samples = marketsJob.samples();
    const rendered = await renderSamples("h", samples.live);
    const values = parseExposition(rendered);
    const at = (side: string, maker = MAKER) => ({ horizon: "h", market: "m", maker, side });
    expect(valueOf(values, "stellar_horizon_market_maker_offers", at("ask"))).toBe(2);
    expect(valueOf(values, "stellar_horizon_market_maker_offer_amount", at("ask"))).toBe(150.5000001);
    expect(valueOf(values, "stellar_horizon_market_maker_best_price", at("ask"))).toBe(999 / 10000);
    expect(valueOf(values, "stellar_horizon_market_maker_offer_age_seconds", at("ask"))).toBe(47.5 * 60);
    expect(valueOf(values, "stellar_horizon_market_maker_offers", at("bid"))).toBe(2);
    expect(valueOf(values, "stellar_horizon_market_maker_offer_amount", at("bid"))).toBe(30);
    expect(valueOf(values, "stellar_horizon_market_maker_best_price", at("bid"))).toBe(97 / 1000);
    expect(valueOf(values, "stellar_horizon_market_maker_offer_age_seconds", at("bid"))).toBeUndefined();
    // A maker without offers: zero, and neither a best price nor an age.
    expect(valueOf(values, "stellar_horizon_market_maker_offers", at("ask", OTHER))).toBe(0);
    expect(valueOf(values, "stellar_horizon_market_maker_offer_amount", at("bid", OTHER))).toBe(0);
    expect(valueOf(values, "stellar_horizon_market_maker_best_price", at("ask", OTHER))).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_market_maker_offer_age_seconds", at("ask", OTHER))).toBeUndefined();
  });

  it("gives no age for a side one of whose offers has no last_modified_time: its oldest offer's age is unknown", async () => {
    // Horizon sends `last_modified_time: null` for an offer last modified in a ledger before its history starts: that
    // offer is older than the dated one, so the dated one's 17.5 minutes would understate the side's oldest offer.
    const ask = (id: number, last_modified_time: string | null) =>
      offer(id, { selling: native, buying: usdc, amount: "1.0000000", price_r: { n: 1, d: 10 }, last_modified_time });
    horizon.offers = [ask(21, "2024-07-08T09:30:00Z"), ask(22, null)];
    const single: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [MAKER] };
    const marketsJob = new MarketsJob(client, [single], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    const values = parseExposition(await renderSamples("h", marketsJob.samples().live));
    const at = { horizon: "h", market: "m", maker: MAKER, side: "ask" };
    expect(valueOf(values, "stellar_horizon_market_maker_offers", at)).toBe(2);
    expect(valueOf(values, "stellar_horizon_market_maker_offer_age_seconds", at)).toBeUndefined();
  });

  it("follows full pages of offers, five at most", async () => {
    horizon.requests.length = 0;
    horizon.offers = Array.from({ length: 1100 }, (_, index) =>
      offer(index + 1, {
        selling: native,
        buying: usdc,
        amount: "1.0000000",
        price_r: { n: 1, d: 10 },
        price: "0.1000000",
      }),
    );
    const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [MAKER] };
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    await marketsJob.run(context);
    expect(horizon.requestsTo("/offers")).toHaveLength(5 + 1);
    const rendered = await renderSamples("h", marketsJob.samples().live);
    const values = parseExposition(rendered);
    expect(
      valueOf(values, "stellar_horizon_market_maker_offers", { horizon: "h", market: "m", maker: MAKER, side: "ask" }),
    ).toBe(1000);
  });

  it("prices from price_r, never the decimal price; an offer with d = 0, or a bid with n = 0, is invalid", async () => {
    const ask = (fields: JsonRecord) => ({ selling: native, buying: usdc, ...fields });
    const bid = (fields: JsonRecord) => ({ selling: usdc, buying: native, ...fields });
    horizon.offers = [
      // Horizon's `price` disagrees with `price_r` here: the rational decides both the best offer and its price.
      offer(11, ask({ price_r: { n: 1, d: 3 }, price: "0.0000001" })),
      offer(12, ask({ price_r: { n: 1, d: 2 }, price: "0.5000000" })),
      offer(13, ask({ price_r: { n: 1, d: 0 }, price: "0.0000000" })),
      offer(14, bid({ price_r: { n: "1", d: INT64_MAX_TEXT }, price: "0.0000000" })),
      offer(15, bid({ price_r: { n: 0, d: 1 }, price: "0.0000000" })),
      offer(16, ask({ seller: OTHER, price_r: { n: INT64_MAX_TEXT, d: "1" }, price: "9223372036854775807.0000000" })),
      offer(17, bid({ seller: OTHER, price_r: { n: INT64_MAX_TEXT, d: "1" }, price: "9223372036854775807.0000000" })),
    ];
    const marketsJob = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    const ownContext = pollContext();
    await marketsJob.run(ownContext);
    expect(ownContext.invalid).toBe(2);
    const values = parseExposition(await renderSamples("h", marketsJob.samples().live));
    const at = (metric: string, side: string, maker = MAKER) =>
      valueOf(values, `stellar_horizon_market_maker_${metric}`, { horizon: "h", market: "m", maker, side });
    expect([at("offers", "ask"), at("best_price", "ask")]).toEqual([2, 0.3333333333333333]);
    // A bid's best price is d / n: (2^63 − 1) / 1, whose nearest float64 is 2^63.
    expect([at("offers", "bid"), at("best_price", "bid")]).toEqual([1, 2 ** 63]);
    expect(at("best_price", "ask", OTHER)).toBe(2 ** 63);
    expect(at("best_price", "bid", OTHER)).toBe(1.0842021724855044e-19);
  });
});

describe("MarketsJob reads every bucket price from its rational, not from Horizon's seven decimals", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  /** The capture's bucket of 09:40, the last completed one at NOW, with `fields` in place of its own. */
  const bucket = (fields: JsonRecord): JsonRecord => ({ ...BUCKETS[1]!, ...fields });
  const prices = async (marketsJob: MarketsJob) => {
    const values = parseExposition(await renderSamples("h", marketsJob.samples().live));
    const at = (labels: Record<string, string> = {}) => ({ horizon: "h", market: "xlm-usdc", ...labels });
    const price = (stat: string) => valueOf(values, "stellar_horizon_market_price", at({ stat }));
    return {
      open: price("open"),
      high: price("high"),
      low: price("low"),
      close: price("close"),
      deviation: valueOf(values, "stellar_horizon_market_price_deviation_ratio", at()),
    };
  };

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());

  it("divides a rational's parts as Numbers, huge ones included, and refuses a zero part", () => {
    expect(priceOf(1n, 3n)).toBe(0.3333333333333333);
    expect(priceOf(2n, 3n)).toBe(0.6666666666666666);
    expect(priceOf(1n, BigInt(INT64_MAX_TEXT))).toBe(1.0842021724855044e-19);
    expect(priceOf(BigInt(INT64_MAX_TEXT), 1n)).toBe(2 ** 63);
    expect(() => priceOf(1n, 0n)).toThrow(RangeError);
    expect(() => priceOf(0n, 1n)).toThrow(RangeError);
  });

  it("exports open, high, low and close from open_r…, whatever the decimal strings say", async () => {
    horizon.buckets = [
      bucket({
        open: "0.3333333",
        open_r: { n: "1", d: "3" },
        close: "0.6666667",
        close_r: { n: "2", d: "3" },
        low: "0.0000000",
        low_r: { n: "1", d: INT64_MAX_TEXT },
        high: "9223372036854775807.0000000",
        high_r: { n: INT64_MAX_TEXT, d: "1" },
      }),
    ];
    const marketsJob = new MarketsJob(client, [market({ referencePrice: 0.5 })], SCHEDULE, () => NOW);
    const context = pollContext();
    await marketsJob.run(context);
    expect(context.invalid).toBe(0);
    expect(await prices(marketsJob)).toEqual({
      open: 0.3333333333333333,
      high: 2 ** 63,
      low: 1.0842021724855044e-19,
      close: 0.6666666666666666,
      deviation: (0.6666666666666666 - 0.5) / 0.5,
    });
  });

  it("counts a bucket whose close_r has d = 0 invalid, and keeps the last price: never Infinity", async () => {
    horizon.buckets = BUCKETS;
    const marketsJob = new MarketsJob(client, [market({ referencePrice: 0.09 })], SCHEDULE, () => NOW);
    const context = pollContext();
    await marketsJob.run(context);
    horizon.buckets = [bucket({ close_r: { n: "1", d: "0" } })];
    await marketsJob.run(context);
    expect(context.invalid).toBe(1);
    const { close, deviation } = await prices(marketsJob);
    expect([close, deviation]).toEqual([1630158 / 18889448, (1630158 / 18889448 - 0.09) / 0.09]);
  });

  it.each([
    ["d = 0", { n: "1", d: "0" }],
    ["n = 0", { n: "0", d: "1" }],
    ["capital D = 0", { N: 1, D: 0 }],
    ["a negative part", { n: "-1", d: "3" }],
    ["a negative number", { N: -1, D: 3 }],
    ["a fraction", { n: "1.5", d: "3" }],
    ["a fractional number", { N: 1.5, D: 3 }],
    ["an unreadable part", { n: "one", d: "3" }],
    ["an empty part", { n: "", d: "3" }],
    ["a part over int64", { n: "9223372036854775808", d: "1" }],
    ["no value", undefined],
  ])("refuses a bucket whose close_r has %s", (_case, close_r) => {
    expect(tradeAggregationSchema.safeParse(bucket({ close_r })).success).toBe(false);
  });
});
