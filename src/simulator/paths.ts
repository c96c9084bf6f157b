/**
 * Path finding as Horizon's /paths/strict-send and /paths/strict-receive do it, over any order
 * book that answers `offersFor(selling, buying)`: every route of at most three intermediate assets,
 * each hop crossing offers best price first, amounts in whole stroops. A small liquidity model of
 * the demo assets stands in for the order book here; the markets' book can replace it.
 */

import type { CorridorConfig } from "../config/corridors.js";
import { canonicalAsset, parseCanonicalAsset } from "./assets.js";
import { USDC } from "./demo-accounts.js";
import { formatAmount } from "./wire.js";

/** An offer on the book: it sells `amount` of its selling asset at `price` units of the buying asset each. */
export interface BookOffer {
  readonly price: number;
  readonly amount: number;
}

/** What path finding reads: the offers selling one asset for another, best (lowest) price first. */
export interface LiquiditySource {
  /** Canonical assets (`native`, `CODE:ISSUER`) that have any market: the nodes a path may go through. */
  assets(): readonly string[];
  offersFor(selling: string, buying: string): readonly BookOffer[];
}

/** Horizon's `maxPathLength`: a path has at most this many intermediate assets. */
export const MAX_PATH_HOPS = 3;
/** Horizon's `max-assets-per-path-request` default. */
export const MAX_ASSETS_PER_REQUEST = 15;
/** Records Horizon returns at most per request. */
const MAX_RECORDS = 20;
const STROOPS_PER_UNIT = 1e7;

export interface FoundPath {
  readonly source: string;
  readonly sourceStroops: number;
  readonly destination: string;
  readonly destinationStroops: number;
  /** The intermediate assets. */
  readonly path: readonly string[];
}

/**
 * Units of `to` that `amount` of `from` buys, crossing the offers that sell `to` for `from`; undefined when too few.
 */
function sendThrough(book: LiquiditySource, from: string, to: string, amount: number): number | undefined {
  let left = amount;
  let received = 0;
  for (const offer of book.offersFor(to, from)) {
    const taken = Math.min(offer.amount, left / offer.price);
    received += taken;
    left -= taken * offer.price;
    if (left <= 1e-9) return received;
  }
  return undefined;
}

/** Units of `from` that buying `amount` of `to` costs, crossing the offers that sell `to` for `from`. */
function receiveThrough(book: LiquiditySource, from: string, to: string, amount: number): number | undefined {
  let left = amount;
  let paid = 0;
  for (const offer of book.offersFor(to, from)) {
    const taken = Math.min(offer.amount, left);
    paid += taken * offer.price;
    left -= taken;
    if (left <= 1e-9) return paid;
  }
  return undefined;
}

/** Every simple route from `from` to `to` with at most MAX_PATH_HOPS assets between, as the assets between. */
function routes(book: LiquiditySource, from: string, to: string): string[][] {
  const nodes = book.assets();
  const found: string[][] = [];
  const walk = (at: string, between: string[]) => {
    if (at !== from && at === to) {
      found.push(between.slice(0, -1));
      return;
    }
    if (between.length > MAX_PATH_HOPS) return;
    for (const next of nodes) {
      if (next === from || between.includes(next)) continue;
      if (book.offersFor(next, at).length === 0) continue;
      walk(next, [...between, next]);
    }
  };
  walk(from, []);
  return found;
}

const toStroops = (units: number, round: (value: number) => number) => round(units * STROOPS_PER_UNIT);

/** Horizon's order: by the other asset, then best amount first; at most MAX_RECORDS. */
function ordered(paths: FoundPath[], key: (path: FoundPath) => string, better: (a: FoundPath, b: FoundPath) => number) {
  return paths.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : better(a, b))).slice(0, MAX_RECORDS);
}

/** Paths sending exactly `sourceStroops` of `source`, to each of `destinations`. */
export function strictSendPaths(
  book: LiquiditySource,
  source: string,
  sourceStroops: number,
  destinations: readonly string[],
): FoundPath[] {
  const found: FoundPath[] = [];
  for (const destination of destinations) {
    // Horizon answers an asset sent to itself too: no path, the same amount.
    if (destination === source)
      found.push({ source, sourceStroops, destination, destinationStroops: sourceStroops, path: [] });
    if (destination === source) continue;
    for (const path of routes(book, source, destination)) {
      let amount: number | undefined = sourceStroops / STROOPS_PER_UNIT;
      let at = source;
      for (const next of [...path, destination]) {
        amount = amount === undefined ? undefined : sendThrough(book, at, next, amount);
        at = next;
      }
      const destinationStroops = amount === undefined ? 0 : toStroops(amount, Math.floor);
      if (destinationStroops > 0) found.push({ source, sourceStroops, destination, destinationStroops, path });
    }
  }
  return ordered(
    found,
    (path) => path.destination,
    (a, b) => b.destinationStroops - a.destinationStroops,
  );
}

/** Paths receiving exactly `destinationStroops` of `destination`, from each of `sources`. */
export function strictReceivePaths(
  book: LiquiditySource,
  sources: readonly string[],
  destination: string,
  destinationStroops: number,
): FoundPath[] {
  const found: FoundPath[] = [];
  for (const source of sources) {
    if (source === destination)
      found.push({ source, sourceStroops: destinationStroops, destination, destinationStroops, path: [] });
    if (source === destination) continue;
    for (const path of routes(book, source, destination)) {
      let amount: number | undefined = destinationStroops / STROOPS_PER_UNIT;
      let at = destination;
      for (const previous of [...path].reverse().concat(source)) {
        amount = amount === undefined ? undefined : receiveThrough(book, previous, at, amount);
        at = previous;
      }
      if (amount === undefined) continue;
      found.push({ source, sourceStroops: toStroops(amount, Math.ceil), destination, destinationStroops, path });
    }
  }
  return ordered(
    found,
    (path) => path.source,
    (a, b) => a.sourceStroops - b.sourceStroops,
  );
}

/** An asset's fields as Horizon renders them, under `prefix` (`source_`, `destination_`, or none in a path). */
function assetFields(asset: string, prefix: string): Record<string, string> {
  const parsed = parseCanonicalAsset(asset);
  if (parsed === undefined || parsed.kind === "native") return { [`${prefix}asset_type`]: "native" };
  const [code, issuer] = canonicalAsset(parsed).split(":") as [string, string];
  return {
    [`${prefix}asset_type`]: code.length <= 4 ? "credit_alphanum4" : "credit_alphanum12",
    [`${prefix}asset_code`]: code,
    [`${prefix}asset_issuer`]: issuer,
  };
}

/** Horizon's page of paths: `_embedded.records` only, no `_links` at page or record level. */
export function pathsPage(paths: readonly FoundPath[]): unknown {
  return {
    _embedded: {
      records: paths.map((path) => ({
        ...assetFields(path.source, "source_"),
        source_amount: formatAmount(path.sourceStroops),
        ...assetFields(path.destination, "destination_"),
        destination_amount: formatAmount(path.destinationStroops),
        path: path.path.map((asset) => assetFields(asset, "")),
      })),
    },
  };
}

/** A demo asset with a made-up issuer: fixed bytes, a valid account id. */
function demoAsset(code: string, fill: number): string {
  return canonicalAsset({ kind: "credit", code, issuer: new Uint8Array(32).fill(fill) });
}

export const DEMO_EURC = demoAsset("EURC", 11);
export const DEMO_BRL = demoAsset("BRL", 12);
export const DEMO_NGNT = demoAsset("NGNT", 13);

/** A two-sided market: `price` counter units per base unit, `depth` base units each side. */
interface Market {
  readonly base: string;
  readonly counter: string;
  readonly price: number;
  readonly depth: number;
}

const DEMO_MARKETS: readonly Market[] = [
  { base: "native", counter: USDC, price: 0.1, depth: 200_000 },
  { base: USDC, counter: DEMO_EURC, price: 0.92, depth: 100_000 },
  { base: "native", counter: DEMO_EURC, price: 0.0915, depth: 50_000 },
  { base: "native", counter: DEMO_BRL, price: 0.55, depth: 100_000 },
  { base: DEMO_BRL, counter: DEMO_NGNT, price: 280, depth: 20_000 },
];

/** Each side's offers: this many levels, each this much further from the price. */
const LEVELS = 4;
const LEVEL_SPREAD = 0.002;

/**
 * How the demo book looks: `normal`; `gone` while a corridor's liquidity has left (every USDC
 * market empty); `thin` once it came back (USDC against lumens only, thin and 30 % dearer).
 */
export type LiquidityPhase = "normal" | "gone" | "thin";

/** How long the `corridor_drain` scenario leaves USDC without any market before thin liquidity returns. */
export const LIQUIDITY_GONE_MS = 120_000;

/** The simulator's order book of the demo assets. */
export class DemoLiquidity implements LiquiditySource {
  #leavingSinceMs: number | undefined;

  constructor(private readonly now: () => number) {}

  /** The scenario entered: liquidity starts leaving now, or stays where it is. */
  scenarioEntered(leaving: boolean): void {
    this.#leavingSinceMs = leaving ? this.now() : undefined;
  }

  phase(): LiquidityPhase {
    if (this.#leavingSinceMs === undefined) return "normal";
    return this.now() - this.#leavingSinceMs < LIQUIDITY_GONE_MS ? "gone" : "thin";
  }

  assets(): readonly string[] {
    return [...new Set(this.#markets().flatMap((market) => [market.base, market.counter]))];
  }

  offersFor(selling: string, buying: string): readonly BookOffer[] {
    const offers: BookOffer[] = [];
    for (const market of this.#markets()) {
      const sellsBase = market.base === selling && market.counter === buying;
      const sellsCounter = market.counter === selling && market.base === buying;
      if (!sellsBase && !sellsCounter) continue;
      for (let level = 1; level <= LEVELS; level += 1) {
        const markup = 1 + LEVEL_SPREAD * level;
        offers.push(
          sellsBase
            ? { price: market.price * markup, amount: market.depth / LEVELS }
            : { price: markup / market.price, amount: (market.depth * market.price) / LEVELS },
        );
      }
    }
    return offers.sort((a, b) => a.price - b.price);
  }

  #markets(): readonly Market[] {
    switch (this.phase()) {
      case "normal":
        return DEMO_MARKETS;
      case "gone":
        return DEMO_MARKETS.filter((market) => market.base !== USDC && market.counter !== USDC);
      case "thin":
        return [
          ...DEMO_MARKETS.filter((market) => market.base !== USDC && market.counter !== USDC),
          { base: "native", counter: USDC, price: 0.13, depth: 5_000 },
        ];
    }
  }
}

/**
 * The demo's corridors: USDC to lumens loses its path in `corridor_drain` and comes back below its
 * min_rate; lumens to EURC keeps its direct market throughout.
 */
export const DEMO_CORRIDORS: readonly CorridorConfig[] = [
  { name: "usdc-to-xlm", mode: "strict_send", source: USDC, destination: "native", amount: "100", minRate: 9 },
  {
    name: "xlm-for-eurc",
    mode: "strict_receive",
    source: "native",
    destination: DEMO_EURC,
    amount: "50",
    minRate: 0.09,
  },
];
