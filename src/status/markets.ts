/** The markets section of a Horizon's card: each watched market's close, peg and makers, from its series. */
import { METRICS } from "../catalog/metrics.js";
import { figure, names, type SeriesReader } from "./board.js";

/** The families marketReports() reads. */
export const MARKET_FAMILIES = [
  ...names(METRICS, ["marketTraded", "marketPrice", "marketReferencePrice", "marketPriceDeviation"]),
  ...names(METRICS, ["marketBucketTimestamp", "marketTrades", "marketMakerOffers"]),
];

/** Every watched market of a Horizon, in the order its poll published them; undefined when it watches none. */
export function marketReports(series: SeriesReader) {
  const traded = series.all(METRICS.marketTraded.name);
  if (traded.length === 0) return undefined;
  const of = (metric: string, market: string) => series.all(metric).filter((found) => found.labels.market === market);
  return traded.map(({ labels, value }) => {
    const market = labels.market ?? "";
    const makers = new Map<string, { asks?: number; bids?: number }>();
    for (const offers of of(METRICS.marketMakerOffers.name, market)) {
      const maker = offers.labels.maker ?? "";
      const sides = makers.get(maker) ?? {};
      if (offers.labels.side === "ask") sides.asks = offers.value;
      else sides.bids = offers.value;
      makers.set(maker, sides);
    }
    return {
      market,
      // A trade aggregation record came back for the pair; `close` is its last completed bucket's, counter per base.
      traded: value === 1,
      close: figure(series, METRICS.marketPrice.name, { market, stat: "close" })?.value,
      bucketTimestampSeconds: figure(series, METRICS.marketBucketTimestamp.name, { market })?.value,
      referencePrice: figure(series, METRICS.marketReferencePrice.name, { market })?.value,
      deviationRatio: figure(series, METRICS.marketPriceDeviation.name, { market })?.value,
      // Counted since the exporter started, both trade types.
      trades: of(METRICS.marketTrades.name, market).reduce((sum, trades) => sum + trades.value, 0),
      makers: [...makers].map(([maker, sides]) => ({ maker, ...sides })),
    };
  });
}
