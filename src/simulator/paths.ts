/**
 * Path finding as Horizon's /paths/strict-send and /paths/strict-receive do it, over the simulated
 * DEX's order book (order-book.ts), the one /offers and /trades serve: every route of at most three
 * intermediate assets, each hop crossing offers best price first, amounts in whole stroops.
 */

import type { CorridorConfig } from "../config/corridors.js";
import { canonicalAsset, parseCanonicalAsset } from "./assets.js";
import { USDC } from "./demo-accounts.js";
import type { Offer } from "./accounts.js";
import { bestFirst, DEMO_EURC, type OrderBook, pairsOf } from "./order-book.js";
import { formatAmount } from "./wire.js";

/** An offer as path finding reads it: its price (buying per selling) and amount of selling, in stroops. */
type LiquidOffer = Pick<Offer, "price" | "amount">;

/** What path finding reads of the book: its pairs, and each pair's offers best (lowest) price first. */
export interface LiquiditySource {
  pairs(): [selling: string, buying: string][];
  offersFor(selling: string, buying: string): readonly LiquidOffer[];
}

/** The DEX as `/offers` serves it: the makers' order book and the simulated accounts' own offers. */
export function dexLiquidity(book: OrderBook, accountOffers: () => readonly Offer[]): LiquiditySource {
  const all = () => [...book.offers, ...accountOffers()];
  return { pairs: () => pairsOf(all()), offersFor: (selling, buying) => bestFirst(all(), selling, buying) };
}

/** Horizon's `maxPathLength`: a path has at most this many intermediate assets. */
export const MAX_PATH_HOPS = 3;
/** Horizon's `max-assets-per-path-request` default. */
export const MAX_ASSETS_PER_REQUEST = 15;
/** Records Horizon returns at most per request. */
const MAX_RECORDS = 20;
const STROOPS_PER_UNIT = 1e7;

/** An offer's price (buying per selling) and amount (of selling, in units) as numbers. */
const priceOf = (offer: LiquidOffer) => offer.price.n / offer.price.d;
const unitsOf = (offer: LiquidOffer) => Number(offer.amount) / STROOPS_PER_UNIT;

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
    const taken = Math.min(unitsOf(offer), left / priceOf(offer));
    received += taken;
    left -= taken * priceOf(offer);
    if (left <= 1e-9) return received;
  }
  return undefined;
}

/** Units of `from` that buying `amount` of `to` costs, crossing the offers that sell `to` for `from`. */
function receiveThrough(book: LiquiditySource, from: string, to: string, amount: number): number | undefined {
  let left = amount;
  let paid = 0;
  for (const offer of book.offersFor(to, from)) {
    const taken = Math.min(unitsOf(offer), left);
    paid += taken * priceOf(offer);
    left -= taken;
    if (left <= 1e-9) return paid;
  }
  return undefined;
}

/** Every simple route from `from` to `to` with at most MAX_PATH_HOPS assets between, as the assets between. */
function routes(book: LiquiditySource, from: string, to: string): string[][] {
  const pairs = book.pairs();
  const found: string[][] = [];
  const walk = (at: string, between: string[]) => {
    if (at !== from && at === to) {
      found.push(between.slice(0, -1));
      return;
    }
    if (between.length > MAX_PATH_HOPS) return;
    // The assets some offer sells for the one at hand: each a step further.
    for (const [next] of pairs.filter(([, buying]) => buying === at)) {
      if (next === from || between.includes(next)) continue;
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
