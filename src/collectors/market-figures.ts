/**
 * What a watched market's answers fold into: the trade cursor's order, a maker's figures on a
 * side, and the market's series. Pure functions of the records, kept apart from the job's requests.
 */
import { METRICS } from "../catalog/metrics.js";
import type { MarketOffer, TradeAggregation } from "../client/market-schemas.js";
import { amountStroops, stroopsToUnits } from "../client/wire-values.js";
import type { WatchedMarket } from "../config/markets.js";
import type { Sample } from "../exposition/samples.js";

import { MAKER_SIDES, type MakerSide } from "../config/markets.js";

export { MAKER_SIDES, type MakerSide };

/**
 * A trade's paging token, `OPERATION-INDEX`, as a pair that orders like Horizon's pages; undefined
 * for a token of another shape, whose record cannot be placed and is left out.
 */
export function tradeTokenKey(token: string | undefined): readonly [bigint, bigint] | undefined {
  const match = token === undefined ? null : /^(\d{1,20})(?:-(\d{1,10}))?$/.exec(token);
  if (match === null) return undefined;
  return [BigInt(match[1]!), BigInt(match[2] ?? 0)];
}

/** True when trade token `token` comes after `cursor` (any token comes after no cursor). */
export function tradeAfter(token: readonly [bigint, bigint], cursor: readonly [bigint, bigint] | undefined): boolean {
  if (cursor === undefined) return true;
  return token[0] > cursor[0] || (token[0] === cursor[0] && token[1] > cursor[1]);
}

/** A maker's offers on one side, as read in one poll. */
export interface SideFigures {
  readonly offers: number;
  readonly amountStroops: bigint;
  /** Counter per base; absent without offers. */
  readonly bestPrice?: number;
  /** Seconds since the oldest `last_modified_time`; absent when no offer carries one. */
  readonly ageSeconds?: number;
}

/** n/d > n'/d', exactly. */
function greater(left: { n: bigint; d: bigint }, right: { n: bigint; d: bigint }): boolean {
  return left.n * right.d > right.n * left.d;
}

/**
 * A side's figures from its offers at `nowMs`. An ask's `price` is counter per base already: the
 * lowest is its best. A bid's is base per counter: its best is the highest `1 / price`, taken
 * from `price_r` as `d / n`, one division of two exact integers.
 */
export function sideFigures(side: MakerSide, offers: readonly MarketOffer[], nowMs: number): SideFigures {
  let amount = 0n;
  let best: MarketOffer | undefined;
  let oldestMs: number | undefined;
  for (const offer of offers) {
    amount += amountStroops(offer.amount);
    const better =
      best === undefined ||
      (side === "ask"
        ? greater(best.price_r, offer.price_r)
        : greater({ n: offer.price_r.d, d: offer.price_r.n }, { n: best.price_r.d, d: best.price_r.n }));
    if (better) best = offer;
    const modified = offer.last_modified_time ? Date.parse(offer.last_modified_time) : undefined;
    if (modified !== undefined && (oldestMs === undefined || modified < oldestMs)) oldestMs = modified;
  }
  const bestPrice =
    best === undefined ? undefined : side === "ask" ? best.price : Number(best.price_r.d) / Number(best.price_r.n);
  return {
    offers: offers.length,
    amountStroops: amount,
    ...(bestPrice === undefined ? {} : { bestPrice }),
    ...(oldestMs === undefined ? {} : { ageSeconds: Math.max(0, (nowMs - oldestMs) / 1000) }),
  };
}

/** What the exporter knows of one market. */
export interface MarketState {
  /** The last completed bucket with trades, as last read. */
  price: TradeAggregation | undefined;
  /** A `/trade_aggregations` record came back for the pair once. */
  traded: boolean;
  /** The first poll read the newest trade: trades after `cursor` are counted from then on. */
  started: boolean;
  /** The newest trade seen; undefined after a start on a pair without trades: every trade counts. */
  cursor: readonly [bigint, bigint] | undefined;
  cursorText: string | undefined;
  readonly trades: { orderbook: number; liquidity_pool: number };
  baseStroops: bigint;
  counterStroops: bigint;
  lastTradeMs: number | undefined;
  /** By maker id, then side. */
  readonly makers: Map<string, Readonly<Record<MakerSide, SideFigures>>>;
}

export function newMarketState(): MarketState {
  return {
    price: undefined,
    traded: false,
    started: false,
    cursor: undefined,
    cursorText: undefined,
    trades: { orderbook: 0, liquidity_pool: 0 },
    baseStroops: 0n,
    counterStroops: 0n,
    lastTradeMs: undefined,
    makers: new Map(),
  };
}

function priceSamples(market: WatchedMarket, price: TradeAggregation): Sample[] {
  const labels = { market: market.name };
  const stat = (name: string, value: number): Sample => ({
    metric: METRICS.marketPrice,
    labels: { market: market.name, stat: name },
    value,
  });
  return [
    stat("open", price.open),
    stat("high", price.high),
    stat("low", price.low),
    stat("close", price.close),
    stat("avg", price.avg),
    { metric: METRICS.marketBucketVolume, labels: { ...labels, asset: "base" }, value: Number(price.base_volume) },
    {
      metric: METRICS.marketBucketVolume,
      labels: { ...labels, asset: "counter" },
      value: Number(price.counter_volume),
    },
    { metric: METRICS.marketBucketTrades, labels, value: price.trade_count },
    { metric: METRICS.marketBucketTimestamp, labels, value: price.timestamp / 1000 },
    ...(market.referencePrice === undefined
      ? []
      : [
          {
            metric: METRICS.marketPriceDeviation,
            labels,
            value: (price.close - market.referencePrice) / market.referencePrice,
          },
        ]),
  ];
}

function makerSamples(market: WatchedMarket, state: MarketState): Sample[] {
  const samples: Sample[] = [];
  for (const [maker, sides] of state.makers) {
    for (const side of MAKER_SIDES) {
      const figures = sides[side];
      const labels = { market: market.name, maker, side };
      samples.push(
        { metric: METRICS.marketMakerOffers, labels, value: figures.offers },
        { metric: METRICS.marketMakerOfferAmount, labels, value: stroopsToUnits(figures.amountStroops) },
      );
      if (figures.bestPrice !== undefined)
        samples.push({ metric: METRICS.marketMakerBestPrice, labels, value: figures.bestPrice });
      if (figures.ageSeconds !== undefined)
        samples.push({ metric: METRICS.marketMakerOfferAge, labels, value: figures.ageSeconds });
    }
  }
  return samples;
}

/** A market's gauges. */
export function marketLiveSamples(market: WatchedMarket, state: MarketState): Sample[] {
  const labels = { market: market.name };
  return [
    { metric: METRICS.marketTraded, labels, value: state.traded ? 1 : 0 },
    ...(market.referencePrice === undefined
      ? []
      : [{ metric: METRICS.marketReferencePrice, labels, value: market.referencePrice }]),
    ...(state.price === undefined ? [] : priceSamples(market, state.price)),
    ...(state.lastTradeMs === undefined
      ? []
      : [{ metric: METRICS.marketLastTrade, labels, value: state.lastTradeMs / 1000 }]),
    ...makerSamples(market, state),
  ];
}

/** A market's counters, from zero at start. */
export function marketCounterSamples(market: WatchedMarket, state: MarketState): Sample[] {
  const market_ = market.name;
  return [
    {
      metric: METRICS.marketTrades,
      labels: { market: market_, trade_type: "orderbook" },
      value: state.trades.orderbook,
    },
    {
      metric: METRICS.marketTrades,
      labels: { market: market_, trade_type: "liquidity_pool" },
      value: state.trades.liquidity_pool,
    },
    {
      metric: METRICS.marketTradedAmount,
      labels: { market: market_, asset: "base" },
      value: stroopsToUnits(state.baseStroops),
    },
    {
      metric: METRICS.marketTradedAmount,
      labels: { market: market_, asset: "counter" },
      value: stroopsToUnits(state.counterStroops),
    },
  ];
}
