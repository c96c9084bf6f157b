import { assetQuery } from "../../src/client/market-schemas.js";
import { fixtureJson } from "./fixtures.js";
import { LoopbackServer } from "./loopback-server.js";

export type JsonRecord = Record<string, unknown>;

const TRADE_TEMPLATE = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("trades-java-sdk.json")._embedded
  .records[0]!;
const NOT_FOUND = fixtureJson("error-not_found-horizon-src.json");
const NOT_FOUND_BASE_ASSET = fixtureJson("error-not_found-base_asset-horizon-src.json");

/** A trade in Horizon's wire format, built on a real capture. */
export function makeTrade(
  token: string,
  {
    base,
    counter,
    baseAmount,
    counterAmount,
    closedAt = "2024-07-08T09:40:00Z",
    tradeType = "orderbook",
  }: {
    base: string;
    counter: string;
    baseAmount: string;
    counterAmount: string;
    closedAt?: string;
    tradeType?: string;
  },
): JsonRecord {
  const {
    base_asset_type: _bt,
    base_asset_code: _bc,
    base_asset_issuer: _bi,
    counter_asset_type: _ct,
    counter_asset_code: _cc,
    counter_asset_issuer: _ci,
    ...template
  } = TRADE_TEMPLATE;
  return {
    ...template,
    id: token,
    paging_token: token,
    ledger_close_time: closedAt,
    trade_type: tradeType,
    base_amount: baseAmount,
    ...assetQuery("base", base),
    counter_amount: counterAmount,
    ...assetQuery("counter", counter),
  };
}

function assetOfQuery(params: URLSearchParams, prefix: string): string | undefined {
  const type = params.get(`${prefix}_asset_type`);
  if (type === null) return undefined;
  if (type === "native") return "native";
  return `${params.get(`${prefix}_asset_code`)}:${params.get(`${prefix}_asset_issuer`)}`;
}

function tokenKey(token: string): [bigint, bigint] {
  const [operation = "0", index = "0"] = token.split("-");
  return [BigInt(operation), BigInt(index)];
}

function compareTokens(a: string, b: string): number {
  const [left, right] = [tokenKey(a), tokenKey(b)];
  if (left[0] !== right[0]) return left[0] < right[0] ? -1 : 1;
  return left[1] === right[1] ? 0 : left[1] < right[1] ? -1 : 1;
}

/**
 * An independent Horizon of one market (and its root) for the markets job's tests: its records are plain data the
 * test sets, its paging Horizon's (cursor, order, limit), and every request is recorded.
 */
export class FakeMarkets {
  /** Buckets served by `/trade_aggregations`, newest first; undefined: the 404 of a never-seen asset. */
  buckets: JsonRecord[] | undefined = [];
  /** Trades, ascending by paging token; undefined: the plain 404 of a never-seen asset. */
  trades: JsonRecord[] | undefined = [];
  /** Every offer; `/offers` filters them by seller, selling and buying. */
  offers: JsonRecord[] = [];
  /** The root document served at `/`; undefined: a 404. */
  root: JsonRecord | undefined;
  /** Serve the cursor's own trade again at the start of each ascending page, as a page boundary served twice. */
  repeatCursorTrade = false;
  readonly requests: URL[] = [];
  private readonly server = new LoopbackServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fake");
    this.requests.push(url);
    const [status, body] = this.answer(url);
    response.writeHead(status, {
      "Content-Type": status === 200 ? "application/hal+json; charset=utf-8" : "application/problem+json",
    });
    response.end(JSON.stringify(body));
  });

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  requestsTo(path: string): URL[] {
    return this.requests.filter((url) => url.pathname === path);
  }

  private answer(url: URL): [number, unknown] {
    const params = url.searchParams;
    const limit = Number(params.get("limit") ?? 10);
    const page = (records: JsonRecord[]) => ({
      _links: { self: { href: url.href }, next: { href: url.href }, prev: { href: "" } },
      _embedded: { records },
    });
    switch (url.pathname) {
      case "/":
        return this.root === undefined ? [404, NOT_FOUND] : [200, this.root];
      case "/trade_aggregations": {
        if (this.buckets === undefined) return [404, NOT_FOUND_BASE_ASSET];
        const end = Number(params.get("end_time") ?? Infinity);
        return [200, page(this.buckets.filter((bucket) => Number(bucket.timestamp) < end).slice(0, limit))];
      }
      case "/trades":
        return this.trades === undefined ? [404, NOT_FOUND] : [200, page(this.tradesPage(params, limit))];
      case "/offers": {
        const cursor = params.get("cursor");
        const matching = this.offers.filter(
          (offer) =>
            offer.seller === params.get("seller") &&
            assetOfOffer(offer.selling as JsonRecord) === params.get("selling") &&
            assetOfOffer(offer.buying as JsonRecord) === params.get("buying") &&
            (cursor === null || BigInt(offer.paging_token as string) > BigInt(cursor)),
        );
        return [200, page(matching.slice(0, limit))];
      }
      default:
        return [404, NOT_FOUND];
    }
  }

  private tradesPage(params: URLSearchParams, limit: number): JsonRecord[] {
    const base = assetOfQuery(params, "base");
    const counter = assetOfQuery(params, "counter");
    const ofPair = (this.trades ?? []).filter((trade) => {
      const tradeBase = assetOfRecord(trade, "base");
      const tradeCounter = assetOfRecord(trade, "counter");
      return (tradeBase === base && tradeCounter === counter) || (tradeBase === counter && tradeCounter === base);
    });
    const cursor = params.get("cursor");
    if (params.get("order") === "desc") {
      const before = ofPair.filter(
        (trade) => cursor === null || compareTokens(trade.paging_token as string, cursor) < 0,
      );
      return before.reverse().slice(0, limit);
    }
    const newer = ofPair.findIndex(
      (trade) => cursor === null || compareTokens(trade.paging_token as string, cursor) > 0,
    );
    // With nothing newer, a repeating Horizon serves the cursor's trade alone.
    const from = newer < 0 ? ofPair.length : newer;
    const start = this.repeatCursorTrade && cursor !== null && from > 0 ? from - 1 : from;
    return ofPair.slice(start, start + limit);
  }
}

function assetOfRecord(record: JsonRecord, prefix: string): string {
  if (record[`${prefix}_asset_type`] === "native") return "native";
  return `${record[`${prefix}_asset_code`]}:${record[`${prefix}_asset_issuer`]}`;
}

function assetOfOffer(asset: JsonRecord): string {
  return asset.asset_type === "native" ? "native" : `${asset.asset_code}:${asset.asset_issuer}`;
}
