import { METRICS } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { HorizonClient, Query } from "../client/horizon-client.js";
import {
  assetQuery,
  marketOfferSchema,
  priceOf,
  tradeAggregationSchema,
  tradeSchema,
  type MarketOffer,
  type TradeAggregation,
} from "../client/market-schemas.js";
import { cursorAfter, PAGE_LIMIT, readStream, startOver, validRecord, type CursorState } from "../client/paging.js";
import { amountStroops, stroopsToUnits } from "../client/wire-values.js";
import {
  MAKER_SIDES,
  MAX_MARKET_PAGES,
  marketRequestsPerPoll,
  type MakerSide,
  type WatchedMarket,
} from "../config/markets.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";
import { Poll, type HorizonJobParts, type PollContext, type PollJob } from "../job/job.js";
import { RestartWatch, type NetworkView } from "../job/network.js";

/** Room for a trade's index within its operation: the token's index has at most 10 digits, so order is kept. */
const TRADE_INDEX_ROOM = 10n ** 10n;

/** A trade's paging token, `OPERATION-INDEX`, as one number in the order of Horizon's pages; else undefined. */
function tradePlace(token: string): bigint | undefined {
  const match = /^(\d{1,20})(?:-(\d{1,10}))?$/.exec(token);
  return match === null ? undefined : BigInt(match[1]!) * TRADE_INDEX_ROOM + BigInt(match[2] ?? 0);
}

/** A valid trade of the market's pair, and whether it names the pair the other way round; else undefined. */
function tradeOfPair(market: WatchedMarket, raw: unknown) {
  const trade = validRecord(tradeSchema, raw);
  const straight = trade?.base === market.base && trade.counter === market.counter;
  const reversed = trade?.base === market.counter && trade.counter === market.base;
  return trade === undefined || !(straight || reversed) ? undefined : { trade, reversed };
}

/** Counts a trade, its amounts swapped when it names the pair the other way round; false when it is invalid. */
function countTrade(market: WatchedMarket, state: MarketState, raw: unknown): boolean {
  const { trade, reversed } = tradeOfPair(market, raw) ?? {};
  if (trade === undefined) return false;
  state.trades[trade.tradeType] += 1;
  state.amountStroops.base += amountStroops(reversed ? trade.counterAmount : trade.baseAmount);
  state.amountStroops.counter += amountStroops(reversed ? trade.baseAmount : trade.counterAmount);
  if (state.lastTradeMs === undefined || trade.closedAtMs > state.lastTradeMs) state.lastTradeMs = trade.closedAtMs;
  return true;
}

/** A maker's offers on one side at `nowMs`. An ask's `price_r` is counter per base, a bid's base per counter: on both
 * sides the lowest (compared exactly) is the best, an ask's read as `n / d`, a bid's inverted as `d / n`. */
function sideFigures(side: MakerSide, offers: readonly MarketOffer[], nowMs: number) {
  let amount = 0n;
  let best: MarketOffer["price_r"] | undefined;
  let oldestMs: number | undefined;
  let undated = false;
  for (const offer of offers) {
    amount += amountStroops(offer.amount);
    if (best === undefined || best.n * offer.price_r.d > offer.price_r.n * best.d) best = offer.price_r;
    // Horizon dates no offer last modified before its history starts: older than every dated one, it leaves the side's
    // oldest age unknown, which the dated ones' would understate.
    if (!offer.last_modified_time) undated = true;
    else oldestMs = Math.min(oldestMs ?? Number.POSITIVE_INFINITY, Date.parse(offer.last_modified_time));
  }
  const bestPrice = best && (side === "ask" ? priceOf(best.n, best.d) : priceOf(best.d, best.n));
  const ageSeconds = undated || oldestMs === undefined ? undefined : Math.max(0, (nowMs - oldestMs) / 1000);
  return { offers: offers.length, amountStroops: amount, bestPrice, ageSeconds };
}

class MarketState implements CursorState {
  /** The last completed bucket with trades, as last read. */
  price: TradeAggregation | undefined;
  /** A `/trade_aggregations` record came back for the pair once. */
  traded = false;
  /** The first poll read the newest trade: trades after `cursor` are counted from then on. */
  started = false;
  /** The newest trade's paging token; undefined after a start on a pair without trades: every trade counts. */
  cursor: string | undefined;
  readonly trades = { orderbook: 0, liquidity_pool: 0 };
  readonly amountStroops = { base: 0n, counter: 0n };
  lastTradeMs: number | undefined;
  /** By maker id, then side. */
  readonly makers = new Map<string, Readonly<Record<MakerSide, ReturnType<typeof sideFigures>>>>();
}

/** A market's gauges, and its counters (from zero at start). */
function marketSamples(market: WatchedMarket, state: MarketState): CollectorSamples<Sample> {
  const labels = { market: market.name };
  const reference = market.referencePrice;
  const live: Sample[] = [{ metric: METRICS.marketTraded, labels, value: state.traded ? 1 : 0 }];
  if (reference !== undefined) live.push({ metric: METRICS.marketReferencePrice, labels, value: reference });
  const price = state.price;
  if (price !== undefined) {
    for (const stat of ["open", "high", "low", "close", "avg"] as const)
      live.push({ metric: METRICS.marketPrice, labels: { ...labels, stat }, value: price[stat] });
    for (const asset of ["base", "counter"] as const) {
      const value = Number(price[`${asset}_volume`]);
      live.push({ metric: METRICS.marketBucketVolume, labels: { ...labels, asset }, value });
    }
    live.push(
      { metric: METRICS.marketBucketTrades, labels, value: price.trade_count },
      { metric: METRICS.marketBucketTimestamp, labels, value: price.timestamp / 1000 },
    );
    if (reference !== undefined)
      live.push({ metric: METRICS.marketPriceDeviation, labels, value: (price.close - reference) / reference });
  }
  if (state.lastTradeMs !== undefined)
    live.push({ metric: METRICS.marketLastTrade, labels, value: state.lastTradeMs / 1000 });
  for (const [maker, sides] of state.makers) {
    for (const side of MAKER_SIDES) {
      const figures = sides[side];
      const makerLabels = { ...labels, maker, side };
      live.push(
        { metric: METRICS.marketMakerOffers, labels: makerLabels, value: figures.offers },
        { metric: METRICS.marketMakerOfferAmount, labels: makerLabels, value: stroopsToUnits(figures.amountStroops) },
      );
      if (figures.bestPrice !== undefined)
        live.push({ metric: METRICS.marketMakerBestPrice, labels: makerLabels, value: figures.bestPrice });
      if (figures.ageSeconds !== undefined)
        live.push({ metric: METRICS.marketMakerOfferAge, labels: makerLabels, value: figures.ageSeconds });
    }
  }
  const persistent: Sample[] = [];
  for (const [trade_type, value] of Object.entries(state.trades))
    persistent.push({ metric: METRICS.marketTrades, labels: { ...labels, trade_type }, value });
  for (const [asset, stroops] of Object.entries(state.amountStroops)) {
    const value = stroopsToUnits(stroops);
    persistent.push({ metric: METRICS.marketTradedAmount, labels: { ...labels, asset }, value });
  }
  return { live, persistent };
}

/** Watched DEX markets of one Horizon: per market, its last completed bucket, new trades and each maker's offers. Each
 * answer is folded into the market's state as it arrives, so an aborted poll leaves it consistent. */
export class MarketsJob extends Poll implements PollJob {
  readonly source = "markets";
  private readonly states: readonly (readonly [WatchedMarket, MarketState])[];
  private readonly restarts: RestartWatch;

  constructor(
    private readonly client: HorizonClient,
    markets: readonly WatchedMarket[],
    schedule: Schedule,
    private readonly now: () => number,
    private readonly network?: NetworkView,
  ) {
    super({ schedule, requestsPerRun: marketRequestsPerPoll(markets) });
    this.states = markets.map((market) => [market, new MarketState()]);
    this.restarts = new RestartWatch(network);
  }

  async run(context: PollContext): Promise<void> {
    if (this.restarts.restarted()) for (const [, state] of this.states) startOver(state);
    for (const [market, state] of this.states) {
      await this.readPrice(market, state, context);
      await this.readTrades(market, state, context);
      for (const maker of market.makers) await this.readMaker(market, maker, state, context);
    }
  }

  samples(): CollectorSamples<Sample> {
    const all = this.states.map(([market, state]) => marketSamples(market, state));
    return { live: all.flatMap((one) => one.live), persistent: all.flatMap((one) => one.persistent) };
  }

  /** A page about the market's pair; undefined when the pair never traded. */
  private async pairPage(
    path: "trade_aggregations" | "trades",
    market: WatchedMarket,
    query: Query,
    signal: AbortSignal,
  ) {
    const pair = { ...assetQuery("base", market.base), ...assetQuery("counter", market.counter) };
    return this.client.marketPage(path, { ...pair, ...query }, signal).catch((error: unknown) => {
      if (!(error instanceof PollError) || error.details.status !== 404) throw error;
      // A 404 that says Horizon never saw one of the pair's assets is data, not a failure.
      const field = error.details.problem?.extras?.invalid_field;
      // Horizon knows no trade of an asset before its first: a stream that starts then counts that first trade.
      if (path === "trades") return [];
      if (field === "base_asset" || field === "counter_asset") return undefined;
      throw error;
    });
  }

  /** The last completed bucket with trades: the newest that ended by the close of the latest ledger Horizon ingested
   * (while Horizon lags, trades of a bucket the clock has passed may still come), and by the clock. Until the root
   * poll tells that close, the clock alone decides. */
  private async readPrice(
    market: WatchedMarket,
    state: MarketState,
    { signal, invalidRecords, progressed }: PollContext,
  ) {
    const resolution = market.resolutionMs;
    const ingestedMs = (this.network?.current.latestLedgerClose?.closeTime ?? Number.POSITIVE_INFINITY) * 1000;
    const end_time = Math.floor(Math.min(this.now(), ingestedMs) / resolution) * resolution;
    const query = { resolution, end_time, order: "desc", limit: 1 };
    const records = await this.pairPage("trade_aggregations", market, query, signal);
    progressed();
    const raw = records?.[0];
    const bucket = validRecord(tradeAggregationSchema, raw);
    // An invalid bucket is counted and keeps the last price; no bucket at all clears it.
    if (raw !== undefined && bucket === undefined) return invalidRecords(1);
    state.price = bucket;
    if (bucket !== undefined) state.traded = true;
  }

  /** The first poll starts after the newest trade, counting nothing; later ones page on while full, up to the cap. */
  private readTrades(market: WatchedMarket, state: MarketState, context: PollContext): Promise<void> {
    return readStream(state, context, {
      endpoint: "markets",
      stream: market.name,
      maxPages: MAX_MARKET_PAGES,
      page: (query) => this.pairPage("trades", market, query, context.signal),
      place: tradePlace,
      count: (raw, usable) => usable && countTrade(market, state, raw),
      sawNewest: (raw) => tradeOfPair(market, raw) !== undefined,
    });
  }

  /** A maker's offers on both sides; its figures change only once both sides are read. */
  private async readMaker(market: WatchedMarket, maker: string, state: MarketState, context: PollContext) {
    const { base, counter } = market;
    const ask = sideFigures("ask", await this.makerOffers(maker, base, counter, context), this.now());
    const bid = sideFigures("bid", await this.makerOffers(maker, counter, base, context), this.now());
    state.makers.set(maker, { ask, bid });
  }

  private async makerOffers(seller: string, selling: string, buying: string, context: PollContext) {
    // By paging token (the offer id): an offer served again, as overlapping pages do, is summed once.
    const offers = new Map<string, MarketOffer>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_MARKET_PAGES; page += 1) {
      const query = { seller, selling, buying, order: "asc", limit: PAGE_LIMIT, cursor };
      const records = await this.client.marketPage("offers", query, context.signal);
      context.progressed();
      let invalid = 0;
      for (const raw of records) {
        const offer = validRecord(marketOfferSchema, raw);
        const matches = offer?.seller === seller && offer.selling === selling && offer.buying === buying;
        if (offer === undefined || !matches) invalid += 1;
        else offers.set(offer.paging_token, offer);
      }
      if (invalid > 0) context.invalidRecords(invalid);
      if (records.length < PAGE_LIMIT) break;
      cursor = cursorAfter(records, cursor, "markets");
    }
    return [...offers.values()];
  }
}

export function marketsJob({ client, target, clock, network }: HorizonJobParts): MarketsJob {
  return new MarketsJob(client, target.markets, target.schedules.markets, () => clock.now(), network);
}
