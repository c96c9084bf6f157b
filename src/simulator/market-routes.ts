/**
 * Horizon's DEX routes over the simulated order book: `/trade_aggregations`, `/trades` (cursor
 * paging both ways), `/offers` (filtered by seller, selling and buying) and `/accounts/{id}/offers`,
 * in Horizon's wire format and with its errors (see the trade_aggregations-*, trades-* and error-* captures).
 */

import type { Context, Hono } from "hono";
import { offerResource } from "./account-resources.js";
import { assetFields } from "./wire.js";
import type { Offer } from "./accounts.js";
import { canonicalAsset, parseCanonicalAsset } from "./assets.js";
import type { BookTrade, OrderBook } from "./order-book.js";
import { parsePageQuery, type PageQuery } from "./paging.js";
import { invalidField, NOT_FOUND, ProblemError } from "./problems.js";
import type { PagedRecord, Resource } from "./resources.js";
import { formatAmount, formatTimestamp, goEncodeQuery } from "./wire.js";

/** What the routes need of the app: its answers and the offers outside the book (the accounts'). */
export interface MarketBackend {
  readonly book: OrderBook;
  readonly accountOffers: () => readonly Offer[];
  /** An account id from a path, checked as Horizon checks it (a 400 problem otherwise). */
  readonly accountId: (raw: string | undefined) => string;
  readonly latestLedger: () => number;
  readonly now: () => number;
  readonly hal: (body: unknown) => Response;
  readonly page: (c: Context, query: PageQuery, records: readonly PagedRecord[]) => Response;
}

const RESOLUTIONS = [60_000, 300_000, 900_000, 3_600_000, 86_400_000, 604_800_000];
const RESOLUTION_INVALID = invalidField(
  "resolution",

  "illegal or missing resolution. allowed resolutions are: 1 minute (60000), 5 minutes (300000), 15 minutes " +
    "(900000), 1 hour (3600000), 1 day (86400000) and 1 week (604800000)",
);
const ONE_ASSET = invalidField(
  "base_asset_type,counter_asset_type",
  "this endpoint supports asset pairs but only one asset supplied",
);

/** The asset named by `<prefix>_asset_type`, `_code` and `_issuer`, or undefined when no type is given. */
function assetParam(c: Context, prefix: string): string | undefined {
  const type = c.req.query(`${prefix}_asset_type`);
  if (type === undefined || type === "") return undefined;
  if (type === "native") return "native";
  const code = c.req.query(`${prefix}_asset_code`) ?? "";
  const issuer = c.req.query(`${prefix}_asset_issuer`) ?? "";
  const asset = parseCanonicalAsset(`${code}:${issuer}`);
  const width = code.length <= 4 ? "credit_alphanum4" : "credit_alphanum12";
  if (asset === undefined || type !== width) {
    throw new ProblemError(invalidField(`${prefix}_asset_type`, "Invalid asset"));
  }
  return canonicalAsset(asset);
}

function gcd(a: bigint, b: bigint): bigint {
  return b === 0n ? a : gcd(b, a % b);
}

/** `{n, d}` as strings, reduced: Horizon's `TradePrice`. */
function rational(n: bigint, d: bigint): { n: string; d: string } {
  const divisor = gcd(n, d);
  return { n: String(n / divisor), d: String(d / divisor) };
}

/** Horizon renders a rational price as seven decimals, cut, not rounded. */
function decimal(n: bigint, d: bigint): string {
  return formatAmount((n * 10_000_000n) / d);
}

/** A trade oriented to `base`: the stored one, or its mirror when the pair was asked for the other way round. */
function oriented(trade: BookTrade, base: string | undefined): BookTrade {
  if (base === undefined || base === trade.base) return trade;
  const { baseAccount, counterAccount, baseOfferId, counterOfferId, ...rest } = trade;
  return {
    ...rest,
    base: trade.counter,
    counter: trade.base,
    baseAmount: trade.counterAmount,
    counterAmount: trade.baseAmount,
    baseIsSeller: !trade.baseIsSeller,
    ...(counterAccount === undefined ? {} : { baseAccount: counterAccount }),
    ...(baseAccount === undefined ? {} : { counterAccount: baseAccount }),
    ...(counterOfferId === undefined ? {} : { baseOfferId: counterOfferId }),
    ...(baseOfferId === undefined ? {} : { counterOfferId: baseOfferId }),
  };
}

/**
 * A trade in Horizon's key order (trades-liquidity_pool-keel-backend.json): the pool on whichever side holds no
 * account.
 */
function tradeResource(base: string, trade: BookTrade): PagedRecord {
  const partyLink = (account: string | undefined) =>
    account === undefined ? `${base}/liquidity_pools/${trade.poolId}` : `${base}/accounts/${account}`;
  const party = (prefix: "base" | "counter", account: string | undefined, offerId: bigint | undefined) =>
    account === undefined
      ? { [`${prefix}_liquidity_pool_id`]: trade.poolId }
      : { [`${prefix}_offer_id`]: String(offerId), [`${prefix}_account`]: account };
  return {
    _links: {
      self: { href: "" },
      base: { href: partyLink(trade.baseAccount) },
      counter: { href: partyLink(trade.counterAccount) },
      operation: { href: `${base}/operations/${trade.operationId}` },
    },
    id: trade.id,
    paging_token: trade.id,
    ledger_close_time: formatTimestamp(trade.closedAtMs),
    trade_type: trade.type,
    ...(trade.type === "liquidity_pool" ? { liquidity_pool_fee_bp: 30 } : {}),
    ...party("base", trade.baseAccount, trade.baseOfferId),
    base_amount: formatAmount(trade.baseAmount),
    ...assetFields(trade.base, "base_"),
    ...party("counter", trade.counterAccount, trade.counterOfferId),
    counter_amount: formatAmount(trade.counterAmount),
    ...assetFields(trade.counter, "counter_"),
    base_is_seller: trade.baseIsSeller,
    price: rational(trade.counterAmount, trade.baseAmount),
  };
}

/** Trade tokens `OPERATION-INDEX`, in page order. */
function compareTradeTokens(a: string, b: string): number {
  const [operationA = "0", indexA = "0"] = a.split("-");
  const [operationB = "0", indexB = "0"] = b.split("-");
  const byOperation = BigInt(operationA) - BigInt(operationB);
  return byOperation !== 0n ? (byOperation < 0n ? -1 : 1) : Number(indexA) - Number(indexB);
}

/** One bucket of `/trade_aggregations` from its trades, oriented to the request, oldest first. */
function bucketResource(timestamp: number, trades: readonly BookTrade[]): Resource {
  let baseVolume = 0n;
  let counterVolume = 0n;
  const prices = trades.map((trade) => {
    baseVolume += trade.baseAmount;
    counterVolume += trade.counterAmount;
    return { n: trade.counterAmount, d: trade.baseAmount };
  });
  const above = (a: { n: bigint; d: bigint }, b: { n: bigint; d: bigint }) => a.n * b.d > b.n * a.d;
  const high = prices.reduce((best, price) => (above(price, best) ? price : best));
  const low = prices.reduce((best, price) => (above(best, price) ? price : best));
  const open = prices[0]!;
  const close = prices.at(-1)!;
  const stat = (name: string, price: { n: bigint; d: bigint }) => ({
    [name]: decimal(price.n, price.d),
    [`${name}_r`]: rational(price.n, price.d),
  });
  return {
    timestamp: String(timestamp),
    trade_count: String(trades.length),
    base_volume: formatAmount(baseVolume),
    counter_volume: formatAmount(counterVolume),
    avg: decimal(counterVolume, baseVolume),
    ...stat("high", high),
    ...stat("low", low),
    ...stat("open", open),
    ...stat("close", close),
  };
}

/** A whole number parameter in milliseconds, or `fallback` when absent. */
function millis(c: Context, name: string, fallback: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw new ProblemError(invalidField(name, "unparseable value"));
  return Number(raw);
}

function pairOf(c: Context): { base: string | undefined; counter: string | undefined } {
  return { base: assetParam(c, "base"), counter: assetParam(c, "counter") };
}

function tradeAggregations(c: Context, backend: MarketBackend): Response {
  // Horizon reads the paging parameters first, as for every list: a limit over 200 is its 400, not a cut.
  const { order, limit } = parsePageQuery({
    param: (name) => c.req.query(name),
    historyLatestLedger: backend.latestLedger(),
    numericCursor: true,
  });
  const { base, counter } = pairOf(c);
  if (base === undefined) throw new ProblemError(invalidField("base_asset_type", "Missing required field"));
  if (counter === undefined) throw new ProblemError(invalidField("counter_asset_type", "Missing required field"));
  const resolution = millis(c, "resolution", 0);
  if (!RESOLUTIONS.includes(resolution)) throw new ProblemError(RESOLUTION_INVALID);
  for (const [field, asset] of [
    ["base_asset", base],
    ["counter_asset", counter],
  ] as const) {
    // Horizon's 404 for an asset it never saw: a pair that never traded.
    if (!backend.book.knows(asset)) {
      throw new ProblemError({ ...NOT_FOUND, extras: { invalid_field: field, reason: "not found" } });
    }
  }
  // Horizon rounds the window to whole buckets: the start up, the end down.
  const start = Math.ceil(millis(c, "start_time", 0) / resolution) * resolution;
  const end = Math.floor(millis(c, "end_time", backend.now()) / resolution) * resolution;
  const buckets = new Map<number, BookTrade[]>();
  for (const trade of backend.book.trades) {
    const ofPair =
      (trade.base === base && trade.counter === counter) || (trade.base === counter && trade.counter === base);
    if (!ofPair || trade.closedAtMs < start || trade.closedAtMs >= end) continue;
    const timestamp = Math.floor(trade.closedAtMs / resolution) * resolution;
    buckets.set(timestamp, [...(buckets.get(timestamp) ?? []), oriented(trade, base)]);
  }
  const timestamps = [...buckets.keys()].sort((a, b) => (order === "asc" ? a - b : b - a)).slice(0, limit);
  const records = timestamps.map((timestamp) => bucketResource(timestamp, buckets.get(timestamp)!));
  const url = new URL(c.req.url);
  const params = new Map<string, string[]>();
  for (const [key, value] of url.searchParams) params.set(key, [...(params.get(key) ?? []), value]);
  const last = timestamps.at(-1);
  const next = new Map(params);
  if (last !== undefined) {
    if (order === "desc") next.set("end_time", [String(last)]);
    else next.set("start_time", [String(last + resolution)]);
  }
  const href = (query: Map<string, string[]>) => `${url.origin}${url.pathname}?${goEncodeQuery(query)}`;
  return backend.hal({
    _links: { self: { href: href(params) }, next: { href: href(next) }, prev: { href: "" } },
    _embedded: { records },
  });
}

function trades(c: Context, backend: MarketBackend): Response {
  const { base, counter } = pairOf(c);
  if ((base === undefined) !== (counter === undefined)) throw new ProblemError(ONE_ASSET);
  // Horizon knows no trades of an asset it never saw.
  if ((base !== undefined && !backend.book.knows(base)) || (counter !== undefined && !backend.book.knows(counter))) {
    throw new ProblemError(NOT_FOUND);
  }
  const query = parsePageQuery({
    param: (name) => c.req.query(name),
    historyLatestLedger: backend.latestLedger(),
    numericCursor: true,
  });
  const tradeType = c.req.query("trade_type");
  const matching = backend.book.trades.filter(
    (trade) =>
      (base === undefined ||
        (trade.base === base && trade.counter === counter) ||
        (trade.base === counter && trade.counter === base)) &&
      (tradeType === undefined || tradeType === "all" || trade.type === tradeType),
  );
  const ordered = query.order === "asc" ? matching : [...matching].reverse();
  const sign = query.order === "asc" ? 1 : -1;
  const after =
    query.cursor === "" ? ordered : ordered.filter((trade) => sign * compareTradeTokens(trade.id, query.cursor) > 0);
  const origin = new URL(c.req.url).origin;
  const records = after.slice(0, query.limit).map((trade) => tradeResource(origin, oriented(trade, base)));
  return backend.page(c, query, records);
}

/**
 * `selling`/`buying` in canonical form, given as `selling=CODE:ISSUER` or in the older
 * `selling_asset_type` form the SDKs send; undefined when absent, 400 when both are given.
 */
function offerAsset(c: Context, name: "selling" | "buying"): string | undefined {
  const raw = c.req.query(name);
  const fields = assetParam(c, name);
  if (raw === undefined || raw === "") return fields;
  if (fields !== undefined) {
    throw new ProblemError(
      invalidField(
        `${name}_asset_type`,

        `Ambiguous parameter, you can't include both \`${name}\` and \`${name}_asset_type\`. Remove all ` +
          `parameters of the form \`${name}_\``,
      ),
    );
  }
  const asset = parseCanonicalAsset(raw);
  if (asset === undefined) throw new ProblemError(invalidField(name, "Invalid asset"));
  return canonicalAsset(asset);
}

/** One page of the open offers, the accounts' and the book's, by id, that `matches` keeps. */
function offersPage(c: Context, backend: MarketBackend, matches: (offer: Offer) => boolean): Response {
  const query = parsePageQuery({
    param: (name) => c.req.query(name),
    historyLatestLedger: backend.latestLedger(),
    numericCursor: true,
  });
  const all: readonly Offer[] = [...backend.accountOffers(), ...backend.book.offers].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const matching = all.filter(matches);
  const ordered = query.order === "asc" ? matching : [...matching].reverse();
  const cursor = query.cursor === "" ? undefined : BigInt(query.cursor.split("-")[0]!);
  const after =
    cursor === undefined
      ? ordered
      : ordered.filter((offer) => (query.order === "asc" ? offer.id > cursor : offer.id < cursor));
  const origin = new URL(c.req.url).origin;
  return backend.page(
    c,
    query,
    after.slice(0, query.limit).map((offer) => offerResource(origin, offer)),
  );
}

function offers(c: Context, backend: MarketBackend): Response {
  const seller = c.req.query("seller");
  const selling = offerAsset(c, "selling");
  const buying = offerAsset(c, "buying");
  return offersPage(
    c,
    backend,
    (offer) =>
      (seller === undefined || offer.seller === seller) &&
      (selling === undefined || offer.selling === selling) &&
      (buying === undefined || offer.buying === buying),
  );
}

export function registerMarketRoutes(app: Hono, backend: MarketBackend): void {
  app.get("/trade_aggregations", (c) => tradeAggregations(c, backend));
  app.get("/trades", (c) => trades(c, backend));
  app.get("/offers", (c) => offers(c, backend));
  // Horizon serves an account's offers from the same table as `/offers?seller=`; other filters do not apply.
  app.get("/accounts/:id/offers", (c) => {
    const seller = backend.accountId(c.req.param("id"));
    return offersPage(c, backend, (offer) => offer.seller === seller);
  });
}
