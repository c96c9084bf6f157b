import { Asset, Horizon } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HorizonClient } from "../../src/client/horizon-client.js";
import { MarketsJob } from "../../src/collectors/markets.js";
import { parseSchedule, type Schedule } from "../../src/config/schedule.js";
import { renderSamples } from "../support/render-samples.js";
import { startSimulator, USDC, type RunningSimulator } from "../../src/simulator/index.js";
import { DEMO_MAKER, USDX } from "../../src/simulator/order-book.js";
import { parseExposition, valueOf } from "../support/exposition.js";
import { fixtureText, ManualClock } from "./helpers.js";
import { pollContext } from "../support/poll-context.js";

const [USDC_CODE, USDC_ISSUER] = USDC.split(":") as [string, string];
const [USDX_CODE, USDX_ISSUER] = USDX.split(":") as [string, string];
const usdc = new Asset(USDC_CODE, USDC_ISSUER);
const usdx = new Asset(USDX_CODE, USDX_ISSUER);
const NEVER_SEEN = new Asset("NOPE", "GBJPWEIFX6KO4H52BF3QJDYRCLXB2P3Z3QTKWUGFOOFH5MSRZV4WLRZ7");
const MINUTE = 60_000;

describe("the simulator's DEX", () => {
  const clock = new ManualClock();
  let running: RunningSimulator;
  let server: Horizon.Server;

  beforeAll(async () => {
    running = await startSimulator({ now: clock.now, ledgerIntervalMs: 5_000 });
    server = new Horizon.Server(running.url, { allowHttp: true });
    clock.tick(10 * MINUTE);
  });
  afterAll(() => running.close());

  it("the SDK's trades builder pages the same trades in both orders, oriented to the pair asked for", async () => {
    const ascending = await server.trades().forAssetPair(Asset.native(), usdc).order("asc").limit(200).call();
    expect(ascending.records.length).toBeGreaterThan(20);
    const descending = await server.trades().forAssetPair(Asset.native(), usdc).order("desc").limit(200).call();
    expect(descending.records.map((trade) => trade.paging_token)).toEqual(
      ascending.records.map((trade) => trade.paging_token).reverse(),
    );
    // Cursor paging: the second half after the first's last token.
    const first = await server.trades().forAssetPair(Asset.native(), usdc).order("asc").limit(10).call();
    const next = await first.next();
    expect(next.records.map((trade) => trade.paging_token)).toEqual(
      ascending.records.slice(10, 20).map((trade) => trade.paging_token),
    );
    const reversed = await server.trades().forAssetPair(usdc, Asset.native()).order("asc").limit(200).call();
    expect(reversed.records.map((trade) => [trade.base_amount, trade.counter_amount, trade.base_asset_type])).toEqual(
      ascending.records.map((trade) => [trade.counter_amount, trade.base_amount, "credit_alphanum4"]),
    );
    for (const trade of ascending.records) {
      const price = trade.price as unknown as { n: string; d: string };
      expect(typeof price.n).toBe("string");
      expect(trade.base_asset_type).toBe("native");
    }
  });

  it("the SDK's tradeAggregation builder gets buckets in Horizon's wire format that sum the trades", async () => {
    const end = Math.floor(running.simulator.now() / MINUTE) * MINUTE;
    const page = await server.tradeAggregation(Asset.native(), usdc, 0, end, MINUTE, 0).order("desc").limit(200).call();
    expect(page.records.length).toBeGreaterThan(3);
    const trades = running.simulator.orderBook.trades.filter(
      (trade) => trade.base === "native" && trade.counter === USDC && trade.closedAtMs < end,
    );
    const counted = page.records.reduce((sum, bucket) => sum + Number(bucket.trade_count), 0);
    expect(counted).toBe(trades.length);
    const [newest] = page.records;
    expect(newest).toMatchObject({
      timestamp: expect.stringMatching(/^\d+$/),
      trade_count: expect.stringMatching(/^\d+$/),
      close_r: { n: expect.stringMatching(/^\d+$/), d: expect.stringMatching(/^\d+$/) },
    });
    const raw = (await (
      await fetch(
        `${running.url}/trade_aggregations?base_asset_type=native&counter_asset_type=credit_alphanum4&counter_asset_code=USDC&counter_asset_issuer=${USDC_ISSUER}&resolution=60000&order=desc&limit=1`,
      )
    ).json()) as { _links: { prev: { href: string } } };
    expect(raw._links.prev).toEqual({ href: "" });
  });

  it("answers Horizon's exact 400 for a bad resolution and 404 for an asset it never saw", async () => {
    const base = `${running.url}/trade_aggregations?base_asset_type=native&counter_asset_type=credit_alphanum4&counter_asset_code=USDC&counter_asset_issuer=${USDC_ISSUER}`;
    const bad = await fetch(`${base}&resolution=120000`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe(fixtureText("error-bad_request-resolution_invalid-horizon-src.json"));
    const unknown = await fetch(
      `${running.url}/trade_aggregations?base_asset_type=credit_alphanum4&base_asset_code=NOPE&base_asset_issuer=${NEVER_SEEN.getIssuer()}&counter_asset_type=native&resolution=60000`,
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(fixtureText("error-not_found-base_asset-horizon-src.json"));
    await expect(server.trades().forAssetPair(NEVER_SEEN, Asset.native()).call()).rejects.toMatchObject({
      response: { status: 404 },
    });
  });

  it("answers a limit over 200 with Horizon's 400, as for every list, and 10 buckets at most by default", async () => {
    const base = `${running.url}/trade_aggregations?base_asset_type=native&counter_asset_type=credit_alphanum4&counter_asset_code=USDC&counter_asset_issuer=${USDC_ISSUER}&resolution=60000`;
    const over = await fetch(`${base}&limit=201`);
    expect(over.status).toBe(400);
    expect(await over.text()).toBe(fixtureText("error-bad_request-limit_over_max-horizon-src.json"));
    const bad = await fetch(`${base}&limit=ten`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe(fixtureText("error-bad_request-limit_unparseable-horizon-src.json"));
    expect((await fetch(`${base}&limit=200`)).status).toBe(200);
    const page = (await (await fetch(base)).json()) as { _embedded: { records: unknown[] } };
    const all = (await (await fetch(`${base}&limit=200`)).json()) as { _embedded: { records: unknown[] } };
    expect(page._embedded.records).toHaveLength(Math.min(10, all._embedded.records.length));
  });

  it("the SDK's offers builder filters by seller, selling and buying", async () => {
    const asks = await server.offers().seller(DEMO_MAKER).selling(Asset.native()).buying(usdc).limit(200).call();
    expect(asks.records).toHaveLength(3);
    for (const offer of asks.records) {
      expect(offer.seller).toBe(DEMO_MAKER);
      expect(offer.selling.asset_type).toBe("native");
      expect(offer.buying.asset_code).toBe("USDC");
    }
    // The book by pair, best first, for whatever routes through it.
    const book = running.simulator.orderBook;
    // Both sides of the two traded markets and of the four the demo's corridors route through.
    expect(book.pairs()).toHaveLength(12);
    const best = book.offersFor("native", USDC);
    expect(best.map((offer) => offer.price.n / offer.price.d)).toEqual(
      best.map((offer) => offer.price.n / offer.price.d).sort((a, b) => a - b),
    );
    const asksOfUsdx = await server.offers().seller(DEMO_MAKER).selling(usdx).buying(usdc).call();
    expect(asksOfUsdx.records.length).toBeGreaterThan(0);
    const both = await fetch(`${running.url}/offers?selling=native&selling_asset_type=native`);
    expect(both.status).toBe(400);
    expect(await both.text()).toBe(fixtureText("error-bad_request-selling_ambiguous-horizon-src.json"));
  });

  it("an account's offers (forAccount) are the offers it sells (seller), in both orders", async () => {
    const ids = (page: Horizon.ServerApi.CollectionPage<Horizon.ServerApi.OfferRecord>) =>
      page.records.map((offer) => offer.id);
    const bySeller = await server.offers().seller(DEMO_MAKER).limit(200).call();
    expect(bySeller.records.length).toBeGreaterThan(3);
    expect(ids(await server.offers().forAccount(DEMO_MAKER).limit(200).call())).toEqual(ids(bySeller));
    const firstTwo = await server.offers().forAccount(DEMO_MAKER).limit(2).call();
    expect(ids(await firstTwo.next())).toEqual(ids(bySeller).slice(2, 4));
    const descending = await server.offers().forAccount(DEMO_MAKER).order("desc").limit(200).call();
    expect(ids(descending)).toEqual(ids(bySeller).reverse());
  });
});

describe("MarketsJob against the simulator", () => {
  const clock = new ManualClock();
  let running: RunningSimulator;
  let client: HorizonClient;
  const context = pollContext();
  const values = async (job: MarketsJob) => {
    const samples = job.samples();
    const rendered = await renderSamples("sim", [...samples.persistent, ...samples.live]);
    return parseExposition(rendered);
  };

  beforeAll(async () => {
    running = await startSimulator({ now: clock.now, ledgerIntervalMs: 5_000 });
    client = new HorizonClient({ url: running.url, timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 22 });
    clock.tick(5 * MINUTE);
  });
  afterAll(() => running.close());

  it("counts exactly the simulated trades, sees a depeg, and a maker whose asks disappear", async () => {
    const job = new MarketsJob(
      client,
      [
        { name: "usdx", base: USDX, counter: USDC, resolutionMs: MINUTE, referencePrice: 1, makers: [DEMO_MAKER] },
        { name: "never", base: "native", counter: `NOPE:${NEVER_SEEN.getIssuer()}`, resolutionMs: MINUTE, makers: [] },
      ],
      parseSchedule("1m") as Schedule,
      () => running.simulator.now(),
    );
    await job.run(context);
    const startedAt = running.simulator.orderBook.trades.filter((trade) => trade.base === USDX).at(-1)!;
    clock.tick(3 * MINUTE);
    await job.run(context);
    const book = running.simulator.orderBook;
    const since = book.trades.filter((trade) => trade.base === USDX && trade.operationId > startedAt.operationId);
    let series = await values(job);
    const at = (labels: Record<string, string> = {}) => ({ horizon: "sim", market: "usdx", ...labels });
    const trades = (type: string) => valueOf(series, "stellar_horizon_market_trades_total", at({ trade_type: type }));
    expect((trades("orderbook") ?? 0) + (trades("liquidity_pool") ?? 0)).toBe(since.length);
    expect(valueOf(series, "stellar_horizon_market_traded", at())).toBe(1);
    expect(Math.abs(valueOf(series, "stellar_horizon_market_price_deviation_ratio", at())!)).toBeLessThan(0.01);
    expect(valueOf(series, "stellar_horizon_market_maker_offers", at({ maker: DEMO_MAKER, side: "ask" }))).toBe(3);
    expect(valueOf(series, "stellar_horizon_market_traded", { horizon: "sim", market: "never" })).toBe(0);

    running.simulator.setScenario("stablecoin_depeg");
    clock.tick(3 * MINUTE);
    await job.run(context);
    series = await values(job);
    expect(valueOf(series, "stellar_horizon_market_price_deviation_ratio", at())).toBeLessThan(-0.01);

    running.simulator.setScenario("maker_stops_quoting");
    clock.tick(MINUTE);
    await job.run(context);
    series = await values(job);
    expect(valueOf(series, "stellar_horizon_market_maker_offers", at({ maker: DEMO_MAKER, side: "ask" }))).toBe(0);
    expect(valueOf(series, "stellar_horizon_market_maker_offers", at({ maker: DEMO_MAKER, side: "bid" }))).toBe(3);
  });
});
