/** Horizon's `/trade_aggregations`, `/trades` and `/offers` records, as current and pre-1.0 Horizons send them. */
import { z } from "zod";
import {
  accountKey,
  amountText,
  assetFields,
  int64String,
  nonNegativeInt,
  positiveInt64Text,
  timestamp,
} from "./wire-values.js";

/** A price as Horizon renders it: a decimal string (seven decimals today), read only for `avg`, which has no rational
 * form; every other price is read from its `{n, d}`, which Horizon rounds into that string. */
const priceText = z
  .string()
  .regex(/^\d{1,20}(\.\d{1,20})?$/, "expected a price as a decimal string")
  .transform(Number);

/** A whole number sent as a string since Horizon 1.0, as a number before it. */
const wholeNumber = z.union([int64String, nonNegativeInt]).refine((value) => value >= 0, "negative");

/** One side of a rational price: an int32 (`price_r`), or an int64 string (`TradePrice`, since Horizon 2.9). Stellar
 * prices are positive: zero would divide by zero, so it fails the record like a negative or a fraction. */
const rationalPart = z.union([z.number().int().positive(), positiveInt64Text]).transform((value) => BigInt(value));

/** `{n, d}`: lower-case since Horizon 2.9; capitals on older Horizons. */
const rational = z.union([
  z.object({ n: rationalPart, d: rationalPart }),
  z.object({ N: rationalPart, D: rationalPart }).transform(({ N, D }) => ({ n: N, d: D })),
]);

/** A price `n / d` for positive `n` and `d`. Parts past 2^53 round before dividing, an ulp at most: nothing a
 * dashboard or an alert threshold can tell. */
export function priceOf(n: bigint, d: bigint): number {
  if (n <= 0n || d <= 0n) throw new RangeError(`not a positive price: ${n}/${d}`);
  return Number(n) / Number(d);
}

/** A bucket's price read from its rational (`open_r`…). */
const bucketPrice = rational.transform(({ n, d }) => priceOf(n, d));

/** A bucket's volume: a sum of trades, which Horizon renders past int64 stroops (stellar/go#1268), as a decimal. */
const volumeText = z.string().regex(/^\d{1,30}(\.\d{1,7})?$/, "expected a volume with at most 7 decimals as a string");

/** A bucket of `/trade_aggregations`; `open`, `high`, `low` and `close` are read from their `_r` rationals. */
export const tradeAggregationSchema = z
  .object({
    timestamp: wholeNumber,
    trade_count: wholeNumber,
    base_volume: volumeText,
    counter_volume: volumeText,
    avg: priceText,
    high_r: bucketPrice,
    low_r: bucketPrice,
    open_r: bucketPrice,
    close_r: bucketPrice,
  })
  .transform(({ high_r, low_r, open_r, close_r, ...rest }) => ({
    ...rest,
    high: high_r,
    low: low_r,
    open: open_r,
    close: close_r,
  }));
export type TradeAggregation = z.output<typeof tradeAggregationSchema>;

/** An asset's type, code and issuer as `native` or `CODE:ISSUER`; an issue when they name no asset. */
function assetName(type: string, code: string | undefined, issuer: string | undefined, ctx: z.RefinementCtx): string {
  if (type === "native" && code === undefined && issuer === undefined) return "native";
  const credit = type === "credit_alphanum4" || type === "credit_alphanum12";
  if (credit && code !== undefined && issuer !== undefined) return `${code}:${issuer}`;
  ctx.issues.push({ code: "custom", message: "not an asset", input: type });
  return "";
}

const assetTypeText = z.string().max(32);

const offerAsset = z
  .object(assetFields("", assetTypeText))
  .transform((raw, ctx) => assetName(raw.asset_type, raw.asset_code, raw.asset_issuer, ctx));

export const tradeSchema = z
  .object({
    paging_token: z.string().min(1),
    ledger_close_time: timestamp,
    // Horizon's trade types: the `trade_type` label's values.
    trade_type: z.enum(["orderbook", "liquidity_pool"]),
    base_amount: amountText,
    counter_amount: amountText,
    ...assetFields("base_", assetTypeText),
    ...assetFields("counter_", assetTypeText),
  })
  .transform((raw, ctx) => ({
    pagingToken: raw.paging_token,
    closedAtMs: Date.parse(raw.ledger_close_time),
    tradeType: raw.trade_type,
    baseAmount: raw.base_amount,
    counterAmount: raw.counter_amount,
    base: assetName(raw.base_asset_type, raw.base_asset_code, raw.base_asset_issuer, ctx),
    counter: assetName(raw.counter_asset_type, raw.counter_asset_code, raw.counter_asset_issuer, ctx),
  }));

/** One record of `/offers`: `price_r` is buying per selling as an exact fraction; `price`, its rounded decimal, is not
 * read. */
export const marketOfferSchema = z.object({
  paging_token: z.string().min(1),
  seller: accountKey,
  selling: offerAsset,
  buying: offerAsset,
  amount: amountText,
  price_r: rational,
  last_modified_time: timestamp.nullish(),
});
export type MarketOffer = z.output<typeof marketOfferSchema>;

/** Horizon's query parameters naming `asset` under `prefix` (`base`, `counter`). */
export function assetQuery(prefix: string, asset: string): Record<string, string> {
  if (asset === "native") return { [`${prefix}_asset_type`]: "native" };
  const [code = "", issuer = ""] = asset.split(":");
  return {
    [`${prefix}_asset_type`]: code.length <= 4 ? "credit_alphanum4" : "credit_alphanum12",
    [`${prefix}_asset_code`]: code,
    [`${prefix}_asset_issuer`]: issuer,
  };
}
