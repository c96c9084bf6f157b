/** A watched market's trade order, maker figures and series: pure functions of the records, apart from the requests. */
import { METRICS } from "../catalog/metrics.js";
import type { MarketOffer, TradeAggregation } from "../client/market-schemas.js";
import { amountStroops, stroopsToUnits } from "../client/wire-values.js";
import { MAKER_SIDES, type MakerSide, type WatchedMarket } from "../config/markets.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";

/** A trade's paging token, `OPERATION-INDEX`, as a pair ordered like Horizon's pages; undefined for another shape. */
export function tradeTokenKey(token: string | undefined): readonly [bigint, bigint] | undefined {
  const match = token === undefined ? null : /^(\d{1,20})(?:-(\d{1,10}))?$/.exec(token);
  if (match === null) return undefined;
  return [BigInt(match[1]!), BigInt(match[2] ?? 0)];
}

/** True when the trade of key `key` comes after the one of paging token `cursor` (any comes after no cursor). */
export function tradeAfter(key: readonly [bigint, bigint], cursor: string | undefined): boolean {
  const at = tradeTokenKey(cursor);
  return at === undefined || key[0] > at[0] || (key[0] === at[0] && key[1] > at[1]);
}

/**
 * A maker's offers on one side at `nowMs`: the best price in counter per base and the seconds since the oldest
 * `last_modified_time`, each absent when no offer gives one. An ask's `price` is counter per base, a bid's base per
 * counter: on both sides the lowest `price_r` (compared exactly) is the best. A bid's best in counter per base is
 * `1 / price`, taken from `price_r` as `d / n`, one division of two exact integers.
 */
export function sideFigures(side: MakerSide, offers: readonly MarketOffer[], nowMs: number) {
  let amount = 0n;
  let best: MarketOffer | undefined;
  let oldestMs: number | undefined;
  for (const offer of offers) {
    amount += amountStroops(offer.amount);
    if (best === undefined || best.price_r.n * offer.price_r.d > offer.price_r.n * best.price_r.d) best = offer;
    const modified = offer.last_modified_time ? Date.parse(offer.last_modified_time) : undefined;
    if (modified !== undefined && (oldestMs === undefined || modified < oldestMs)) oldestMs = modified;
  }
  let bestPrice = best?.price;
  if (best !== undefined && side === "bid") bestPrice = Number(best.price_r.d) / Number(best.price_r.n);
  const ageSeconds = oldestMs === undefined ? undefined : Math.max(0, (nowMs - oldestMs) / 1000);
  return { offers: offers.length, amountStroops: amount, bestPrice, ageSeconds };
}

/** What the exporter knows of one market. */
export class MarketState {
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

function priceSamples(market: WatchedMarket, price: TradeAggregation): Sample[] {
  const labels = { market: market.name };
  const samples: Sample[] = [];
  for (const stat of ["open", "high", "low", "close", "avg"] as const)
    samples.push({ metric: METRICS.marketPrice, labels: { ...labels, stat }, value: price[stat] });
  for (const asset of ["base", "counter"] as const) {
    const value = Number(price[`${asset}_volume`]);
    samples.push({ metric: METRICS.marketBucketVolume, labels: { ...labels, asset }, value });
  }
  samples.push(
    { metric: METRICS.marketBucketTrades, labels, value: price.trade_count },
    { metric: METRICS.marketBucketTimestamp, labels, value: price.timestamp / 1000 },
  );
  const reference = market.referencePrice;
  if (reference !== undefined)
    samples.push({ metric: METRICS.marketPriceDeviation, labels, value: (price.close - reference) / reference });
  return samples;
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

/** A market's gauges, and its counters (from zero at start). */
export function marketSamples(market: WatchedMarket, state: MarketState): CollectorSamples<Sample> {
  const labels = { market: market.name };
  const live: Sample[] = [{ metric: METRICS.marketTraded, labels, value: state.traded ? 1 : 0 }];
  if (market.referencePrice !== undefined)
    live.push({ metric: METRICS.marketReferencePrice, labels, value: market.referencePrice });
  if (state.price !== undefined) live.push(...priceSamples(market, state.price));
  if (state.lastTradeMs !== undefined)
    live.push({ metric: METRICS.marketLastTrade, labels, value: state.lastTradeMs / 1000 });
  live.push(...makerSamples(market, state));
  const persistent: Sample[] = [];
  for (const [trade_type, value] of Object.entries(state.trades))
    persistent.push({ metric: METRICS.marketTrades, labels: { ...labels, trade_type }, value });
  for (const [asset, stroops] of Object.entries(state.amountStroops)) {
    const value = stroopsToUnits(stroops);
    persistent.push({ metric: METRICS.marketTradedAmount, labels: { ...labels, asset }, value });
  }
  return { live, persistent };
}
