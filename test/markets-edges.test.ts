// Markets at their edges: a newly issued asset's first trades, offers served twice, bucket volumes past int64,
// the first poll's newest trade, and a Horizon whose ingestion lags the clock.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HorizonClient, type Query } from "../src/client/horizon-client.js";
import { MarketsJob } from "../src/collectors/markets.js";
import { rootJob } from "../src/collectors/root.js";
import type { WatchedMarket } from "../src/config/markets.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import type { HorizonJobParts } from "../src/job/job.js";
import { NetworkView } from "../src/job/network.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeMarkets, makeTrade, type JsonRecord } from "./support/fake-markets.js";
import { fixtureJson } from "./support/fixtures.js";
import { pollContext } from "./support/poll-context.js";
import { renderSamples } from "./support/render-samples.js";

const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const MAKER = "GBJPWEIFX6KO4H52BF3QJDYRCLXB2P3Z3QTKWUGFOOFH5MSRZV4WLRZ7";
const SCHEDULE = parseSchedule("1m") as Schedule;
const NOW = Date.UTC(2024, 6, 8, 9, 47, 30);

const trade = (token: string) =>
  makeTrade(token, { base: "native", counter: USDC, baseAmount: "1.0000000", counterAmount: "0.1000000" });

const tradesTotal = async (job: MarketsJob) => {
  const values = parseExposition(await renderSamples("h", job.samples().persistent));
  const at = (trade_type: string) => ({ horizon: "h", market: "m", trade_type });
  return (
    (valueOf(values, "stellar_horizon_market_trades_total", at("orderbook")) ?? 0) +
    (valueOf(values, "stellar_horizon_market_trades_total", at("liquidity_pool")) ?? 0)
  );
};

describe("the first trades of a pair whose asset Horizon had never seen", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [] };

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());
  beforeEach(() => {
    horizon.requests.length = 0;
  });

  it("are counted once they come, as for known assets that never traded (the exporter was already watching)", async () => {
    // The counter asset is not issued yet: Horizon answers 404 on both /trade_aggregations and /trades.
    horizon.buckets = undefined;
    horizon.trades = undefined;
    const job = new MarketsJob(client, [watched], SCHEDULE, () => NOW);
    const context = pollContext();
    await job.run(context);
    expect(await tradesTotal(job)).toBe(0);
    // The asset is launched: its first two trades happen between two polls.
    horizon.buckets = [];
    horizon.trades = [trade("100-0"), trade("101-0")];
    await job.run(context);
    await job.run(context);
    // The 404 started the stream with no cursor, as an empty answer does: both launch trades count.
    expect(await tradesTotal(job)).toBe(2);
  });
});

describe("a maker's offers served twice across a page boundary", () => {
  const template = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("offers-java-sdk.json")._embedded.records[0]!;
  const ask = (id: number): JsonRecord => ({
    ...template,
    id: String(id),
    paging_token: String(id),
    seller: MAKER,
    selling: { asset_type: "native" },
    buying: { asset_type: "credit_alphanum4", asset_code: "USDC", asset_issuer: USDC.split(":")[1] },
    amount: "1.0000000",
    price_r: { n: 1, d: 10 },
    price: "0.1000000",
  });

  it("are one offer each: maker_offers 201 and offer_amount 201 for offers 1..201", async () => {
    // The ask side: a full page of offers 1..200, then a page from cursor 200 that starts with offer 200 again (as the
    // trades pages of FakeMarkets' `repeatCursorTrade` do), then offer 201. The bid side has no offers.
    const cursors: unknown[] = [];
    const marketPage = async (path: string, query: Query) => {
      if (path !== "offers" || query.selling !== "native") return [];
      cursors.push(query.cursor);
      if (query.cursor === undefined) return Array.from({ length: 200 }, (_, index) => ask(index + 1));
      if (query.cursor === "200") return [ask(200), ask(201)];
      return [];
    };
    const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [MAKER] };
    const job = new MarketsJob({ marketPage } as unknown as HorizonClient, [watched], SCHEDULE, () => NOW);
    const context = pollContext();
    await job.run(context);
    expect(cursors).toEqual([undefined, "200"]);
    const values = parseExposition(await renderSamples("h", job.samples().live));
    const at = { horizon: "h", market: "m", maker: MAKER, side: "ask" };
    expect([
      valueOf(values, "stellar_horizon_market_maker_offers", at),
      valueOf(values, "stellar_horizon_market_maker_offer_amount", at),
    ]).toEqual([201, 201]);
  });
});

describe("a bucket whose volume exceeds int64 stroops (stellar/go#1268, rendered as a string since #1319)", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  const BUCKETS = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("trade_aggregations-usdc-desc-java-sdk.json")
    ._embedded.records;

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());

  it("is read: its price, volume and timestamp are exported, nothing is counted invalid", async () => {
    const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 300_000, makers: [] };
    // First poll at 09:42:30: the last completed bucket is the capture's 09:35 one (record 2).
    let now = Date.UTC(2024, 6, 8, 9, 42, 30);
    horizon.buckets = [BUCKETS[2]!];
    const job = new MarketsJob(client, [watched], SCHEDULE, () => now);
    const context = pollContext();
    await job.run(context);
    // Five minutes later the 09:40 bucket (record 1) completed, with a counter volume of 16087203088192073132 stroops:
    // the value Horizon's database held in stellar/go#1268, over int64's 9223372036854775807.
    now = Date.UTC(2024, 6, 8, 9, 47, 30);
    horizon.buckets = [{ ...BUCKETS[1]!, counter_volume: "1608720308819.2073132" }, BUCKETS[2]!];
    await job.run(context);
    const values = parseExposition(await renderSamples("h", job.samples().live));
    const at = (labels: Record<string, string> = {}) => ({ horizon: "h", market: "m", ...labels });
    expect(context.invalid).toBe(0);
    expect(valueOf(values, "stellar_horizon_market_bucket_timestamp_seconds", at())).toBe(1720431600);
    expect(valueOf(values, "stellar_horizon_market_bucket_volume", at({ asset: "counter" }))).toBe(1608720308819.2073);
    expect(valueOf(values, "stellar_horizon_market_price", at({ stat: "close" }))).toBe(1630158 / 18889448);
  });
});

describe("the first poll's newest trade", () => {
  it("is validated like every record: one that is no trade of the pair fails the poll or is counted invalid", async () => {
    // The desc page of the first poll holds a record with a usable paging token and nothing else a trade has
    // (no amounts, no assets, no trade_type), or a trade of another pair.
    for (const newest of [
      { paging_token: "5-1" },
      makeTrade("5-1", { base: "native", counter: `EURC:${MAKER}`, baseAmount: "1.0000000", counterAmount: "0.1" }),
    ]) {
      const marketPage = async (path: string) => (path === "trades" ? [newest] : []);
      const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 60_000, makers: [] };
      const job = new MarketsJob({ marketPage } as unknown as HorizonClient, [watched], SCHEDULE, () => NOW);
      const context = pollContext();
      let failed = false;
      await job.run(context).catch(() => {
        failed = true;
      });
      expect(failed || context.invalid === 1).toBe(true);
    }
  });
});

describe("the last completed bucket while Horizon's ingestion lags the clock", () => {
  const horizon = new FakeMarkets();
  let client: HorizonClient;
  const BUCKETS = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("trade_aggregations-usdc-desc-java-sdk.json")
    ._embedded.records;
  const ROOT = fixtureJson<JsonRecord>("root-java-sdk.json");

  beforeAll(async () => {
    client = new HorizonClient({ url: await horizon.start(), timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  });
  afterAll(() => horizon.stop());

  it("is the newest bucket that ended by Horizon's latest ledger, as the root poll tells it, not by the clock", async () => {
    const watched: WatchedMarket = { name: "m", base: "native", counter: USDC, resolutionMs: 300_000, makers: [] };
    const network = new NetworkView();
    const root = rootJob({ client, network, target: { schedules: { root: SCHEDULE } } } as unknown as HorizonJobParts);
    const job = new MarketsJob(client, [watched], SCHEDULE, () => NOW, network);
    const context = pollContext();
    const poll = async (latestClosedAt: string) => {
      horizon.root = { ...ROOT, history_latest_ledger_closed_at: latestClosedAt };
      await root.run(context);
      await job.run(context);
      const values = parseExposition(await renderSamples("h", job.samples().live));
      const at = { horizon: "h", market: "m" };
      const endTime = horizon.requestsTo("/trade_aggregations").at(-1)?.searchParams.get("end_time");
      return {
        endTime: new Date(Number(endTime)).toISOString(),
        bucket: valueOf(values, "stellar_horizon_market_bucket_timestamp_seconds", at),
        trades: valueOf(values, "stellar_horizon_market_bucket_trades", at),
      };
    };
    // At 09:47:30 Horizon has ingested ledgers up to one that closed at 09:44:58: the trades of the 09:40 bucket's last
    // seconds are not in yet, so the 150 of its 154 trades served are not its close. The 09:35 bucket is complete.
    horizon.buckets = [{ ...BUCKETS[1]!, trade_count: "150" }, BUCKETS[2]!];
    expect(await poll("2024-07-08T09:44:58Z")).toEqual({
      endTime: "2024-07-08T09:40:00.000Z",
      bucket: Date.UTC(2024, 6, 8, 9, 35) / 1000,
      trades: 103,
    });
    // Horizon ingested a ledger that closed at 09:45:03: the 09:40 bucket is complete, all its trades in.
    horizon.buckets = [BUCKETS[1]!, BUCKETS[2]!];
    expect(await poll("2024-07-08T09:45:03Z")).toEqual({
      endTime: "2024-07-08T09:45:00.000Z",
      bucket: Date.UTC(2024, 6, 8, 9, 40) / 1000,
      trades: 154,
    });
    expect(context.invalid).toBe(0);
  });
});
