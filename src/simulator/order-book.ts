/**
 * The simulated DEX: one order book of makers' offers that every simulated ledger trades against,
 * and the trades that result. It serves `/offers`, `/trades` and `/trade_aggregations` (see
 * market-routes.ts) and, through `pairs` and `offersFor`, path finding (paths.ts): an offer taken or
 * withdrawn here changes both answers. Every choice comes from the simulator's seeded stream, ledger
 * by ledger, so simulators of one network trade alike.
 */

import type { WatchedMarket } from "../config/markets.js";
import type { LedgerPoint } from "./accounts.js";
import { deterministicAccountId } from "./accounts.js";
import { canonicalAsset } from "./assets.js";
import { USDC } from "./demo-accounts.js";
import { createRng, deriveSeed, type Rng } from "./rng.js";
import type { ScenarioBehaviour } from "./scenarios.js";

/** A stablecoin the simulator issues, pegged to USDC, that `stablecoin_depeg` lets slip. */
export const USDX_ISSUER = deterministicAccountId("stellar-horizon-exporter simulator: USDX issuer");
export const USDX = `USDX:${USDX_ISSUER}`;
/** The market maker quoting both simulated markets. */
export const DEMO_MAKER = deterministicAccountId("stellar-horizon-exporter simulator: market maker");
const TAKER = deterministicAccountId("stellar-horizon-exporter simulator: taker");
const POOL_ID = "59fa1dc57433dcfbd2db7319d26cb3da1f28f2d8095a3ec36ad4ef9cadb0013e";

const STROOPS = 10_000_000n;
/** Prices are fractions over this denominator: four decimals of counter per base. */
const PRICE_SCALE = 10_000;

export interface BookMarket {
  readonly base: string;
  readonly counter: string;
  /** Mid price in counter per base, in 1/PRICE_SCALE units. */
  readonly mid: number;
  /** Where `stablecoin_depeg` moves the mid, in the same units. */
  readonly depegMid: number;
}

/** The simulated markets: lumens against USDC, and USDX against USDC at a peg of 1. */
export const BOOK_MARKETS: readonly BookMarket[] = [
  { base: "native", counter: USDC, mid: 1_000, depegMid: 1_000 },
  { base: USDX, counter: USDC, mid: 10_000, depegMid: 9_600 },
];

/** A demo asset with a made-up issuer: fixed bytes, a valid account id. */
function demoAsset(code: string, fill: number): string {
  return canonicalAsset({ kind: "credit", code, issuer: new Uint8Array(32).fill(fill) });
}

export const DEMO_EURC = demoAsset("EURC", 11);
export const DEMO_BRL = demoAsset("BRL", 12);
export const DEMO_NGNT = demoAsset("NGNT", 13);

/**
 * Markets only the demo's payment corridors route through: the maker quotes them once, and no
 * taker trades them. USDC buys lumens a little cheaper through EURC than directly.
 */
const CORRIDOR_MARKETS: readonly BookMarket[] = [
  { base: USDC, counter: DEMO_EURC, mid: 9_400, depegMid: 9_400 },
  { base: "native", counter: DEMO_EURC, mid: 915, depegMid: 915 },
  { base: "native", counter: DEMO_BRL, mid: 5_500, depegMid: 5_500 },
  { base: DEMO_BRL, counter: DEMO_NGNT, mid: 2_800_000, depegMid: 2_800_000 },
];

/**
 * How the book's USDC liquidity looks: `normal`; `gone` while it has left (`corridor_drain`: no
 * USDC market towards lumens or EURC); `thin` once it came back (lumens against USDC only, dearer).
 */
type LiquidityPhase = "normal" | "gone" | "thin";

/** How long `corridor_drain` leaves USDC without a market before thin liquidity returns. */
export const LIQUIDITY_GONE_MS = 120_000;
/** The lumens mid the thin liquidity quotes: well above the usual one, so a corridor's rate drops. */
const THIN_MID = 1_300;
/** The markets `corridor_drain` empties: every route from USDC to lumens; USDX's peg market stays. */
const drains = (market: BookMarket) => (market.counter === USDC ? market.base === "native" : market.base === USDC);

/** How the demo watches the simulated markets: USDX against its peg, lumens without one, the maker on both. */
export const DEMO_WATCHED_MARKETS: readonly WatchedMarket[] = [
  { name: "usdx-usdc", base: USDX, counter: USDC, resolutionMs: 60_000, referencePrice: 1, makers: [DEMO_MAKER] },
  { name: "xlm-usdc", base: "native", counter: USDC, resolutionMs: 60_000, makers: [DEMO_MAKER] },
];

/** An offer on the book, in the shape of the simulated accounts' offers. */
export interface BookOffer {
  readonly id: bigint;
  readonly seller: string;
  readonly selling: string;
  readonly buying: string;
  /** Of the selling asset, in stroops. */
  amount: bigint;
  /** Buying per selling. */
  readonly price: { readonly n: number; readonly d: number };
  lastModified: LedgerPoint;
}

export type TradeType = "orderbook" | "liquidity_pool";

export interface BookTrade {
  /** `OPERATION-INDEX`, the paging token. */
  readonly id: string;
  readonly operationId: bigint;
  readonly closedAtMs: number;
  readonly type: TradeType;
  readonly base: string;
  readonly counter: string;
  readonly baseAmount: bigint;
  readonly counterAmount: bigint;
  /** The maker's side: the base account sold base (an ask was taken). */
  readonly baseIsSeller: boolean;
  readonly baseAccount?: string;
  readonly counterAccount?: string;
  readonly baseOfferId?: bigint;
  readonly counterOfferId?: bigint;
  readonly poolId?: string;
}

/** Trades kept at most: a day of two markets trading most ledgers. */
const MAX_TRADES = 50_000;
/** The maker replaces its quotes every this many ledgers (about a minute). */
const REQUOTE_EVERY_LEDGERS = 10;
/** The size of each offer, and their spreads from the mid (one offer each), in 1/PRICE_SCALE of the mid. */
const OFFER_SIZE = 500n * STROOPS;
const SPREAD_STEPS = [5, 10, 20];
/** Horizon's synthetic offer id of a taker's offer filled at once: 2^62 + the operation id. */
const SYNTHETIC_OFFER = 1n << 62n;

/** What ranks an offer in its pair's book. */
export type PricedOffer = Pick<BookOffer, "id" | "selling" | "buying" | "price">;

/** The offers selling `selling` for `buying`, best (lowest price) first, the older first at one price. */
export function bestFirst<T extends PricedOffer>(offers: readonly T[], selling: string, buying: string): T[] {
  return offers
    .filter((offer) => offer.selling === selling && offer.buying === buying)
    .sort((a, b) => a.price.n * b.price.d - b.price.n * a.price.d || Number(a.id - b.id));
}

/** Every pair some offer sells and buys, `[selling, buying]`, each once. */
export function pairsOf(offers: readonly PricedOffer[]): [selling: string, buying: string][] {
  const seen = new Map<string, [string, string]>();
  for (const offer of offers) seen.set(`${offer.selling} ${offer.buying}`, [offer.selling, offer.buying]);
  return [...seen.values()];
}

export class OrderBook {
  readonly #rng: Rng;
  readonly #offers: BookOffer[] = [];
  readonly #trades: BookTrade[] = [];
  #nextOfferId = 5_000_000n;
  #ledgers = 0;
  /** When `corridor_drain` took the USDC liquidity away; undefined outside it. */
  #drainedSinceMs: number | undefined;
  #phase: LiquidityPhase = "normal";

  constructor(seed: number, start: LedgerPoint) {
    this.#rng = createRng(deriveSeed(seed, 7));
    for (const market of [...BOOK_MARKETS, ...CORRIDOR_MARKETS]) {
      this.#quote(market, start, { mid: market.mid, asks: true });
    }
  }

  /** A scenario entered: the USDC liquidity leaves now (its offers are cancelled), or comes back. */
  scenarioEntered(leaving: boolean, at: LedgerPoint, nowMs: number): void {
    const drained = [...BOOK_MARKETS, ...CORRIDOR_MARKETS].filter(drains);
    if (leaving) {
      this.#drainedSinceMs = nowMs;
      this.#phase = "gone";
      for (const market of drained) this.#cancel(market);
    } else if (this.#drainedSinceMs !== undefined) {
      this.#drainedSinceMs = undefined;
      this.#phase = "normal";
      for (const market of drained) this.#quote(market, at, { mid: market.mid, asks: true });
    }
  }

  /** Every open offer, by id. */
  get offers(): readonly BookOffer[] {
    return this.#offers;
  }

  /** The offers selling `selling` for `buying`, best (lowest price) first: the book of one pair. */
  offersFor(selling: string, buying: string): BookOffer[] {
    return bestFirst(this.#offers, selling, buying);
  }

  /** Every pair some offer sells and buys, `[selling, buying]`, each once: the book's edges for path finding. */
  pairs(): [selling: string, buying: string][] {
    return pairsOf(this.#offers);
  }

  /** Every trade kept, oldest first. */
  get trades(): readonly BookTrade[] {
    return this.#trades;
  }

  /** Horizon knows an asset once it has traded, or is offered. */
  knows(asset: string): boolean {
    return [...BOOK_MARKETS, ...CORRIDOR_MARKETS].some((market) => market.base === asset || market.counter === asset);
  }

  /** A network reset: the new chain has no trades yet (the old ones' tokens would sort after its). */
  forgetTrades(): void {
    this.#trades.length = 0;
  }

  /** A ledger closes: takers trade against the book; the maker quotes again now and then. */
  closeLedger(at: LedgerPoint, behaviour: ScenarioBehaviour): void {
    this.#ledgers += 1;
    const asks = behaviour.market !== "maker_gone";
    if (!asks) this.#withdrawAsks();
    // Thin liquidity returns at the first ledger closed once the drain has lasted long enough.
    const returns =
      this.#phase === "gone" && at.closedAtMs - (this.#drainedSinceMs ?? at.closedAtMs) >= LIQUIDITY_GONE_MS;
    if (returns) this.#phase = "thin";
    for (const [index, market] of BOOK_MARKETS.entries()) {
      const mid = behaviour.market === "depeg" ? market.depegMid : market.mid;
      const drained = this.#phase !== "normal" && drains(market);
      const quoted = drained ? (this.#phase === "thin" ? THIN_MID : undefined) : mid;
      const requote = this.#ledgers % REQUOTE_EVERY_LEDGERS === 0 || (returns && drained);
      if (requote && quoted !== undefined) this.#quote(market, at, { mid: quoted, asks });
      if (this.#rng.chance(0.6)) this.#trade(market, index, at, quoted ?? mid);
    }
  }

  /** The maker's asks leave the book (its bot stopped quoting them); its bids stay. */
  #withdrawAsks(): void {
    const ask = (offer: BookOffer) =>
      offer.seller === DEMO_MAKER &&
      BOOK_MARKETS.some((market) => market.base === offer.selling && market.counter === offer.buying);
    for (let index = this.#offers.length - 1; index >= 0; index -= 1) {
      if (ask(this.#offers[index]!)) this.#offers.splice(index, 1);
    }
  }

  /** The maker cancels its offers on the market. */
  #cancel(market: BookMarket): void {
    const assets = [market.base, market.counter];
    for (let index = this.#offers.length - 1; index >= 0; index -= 1) {
      const offer = this.#offers[index]!;
      if (offer.seller === DEMO_MAKER && assets.includes(offer.selling) && assets.includes(offer.buying)) {
        this.#offers.splice(index, 1);
      }
    }
  }

  /** The maker cancels its offers on the market and places fresh ones around `mid`, asks only when `asks`. */
  #quote(market: BookMarket, at: LedgerPoint, { mid, asks }: { mid: number; asks: boolean }): void {
    this.#cancel(market);
    for (const step of SPREAD_STEPS) {
      const spread = Math.max(1, Math.round((mid * step) / PRICE_SCALE));
      // An ask sells base: its price is counter per base.
      if (asks) this.#place(market.base, market.counter, { n: mid + spread, d: PRICE_SCALE }, OFFER_SIZE, at);
      // A bid sells counter: its price is base per counter, the inverse of the quote.
      const bid = mid - spread;
      const counterAmount = (OFFER_SIZE * BigInt(bid)) / BigInt(PRICE_SCALE);
      this.#place(market.counter, market.base, { n: PRICE_SCALE, d: bid }, counterAmount, at);
    }
  }

  #place(selling: string, buying: string, price: BookOffer["price"], amount: bigint, at: LedgerPoint): void {
    this.#offers.push({
      id: this.#nextOfferId++,
      seller: DEMO_MAKER,
      selling,
      buying,
      amount,
      price,
      lastModified: at,
    });
  }

  /** A taker takes the best ask or bid, part of it; now and then a pool trade at the mid instead. */
  #trade(market: BookMarket, index: number, at: LedgerPoint, mid: number): void {
    const operationId = (BigInt(at.ledger) << 32n) | (BigInt(index + 1) << 12n) | 1n;
    const buy = this.#rng.chance(0.5);
    const [best] = buy ? this.offersFor(market.base, market.counter) : this.offersFor(market.counter, market.base);
    const common = { id: `${operationId}-0`, operationId, closedAtMs: at.closedAtMs, base: market.base };
    if (best === undefined || this.#rng.chance(0.2)) {
      const baseAmount = BigInt(this.#rng.int(1, 100)) * STROOPS;
      const counterAmount = (baseAmount * BigInt(mid)) / BigInt(PRICE_SCALE);
      this.#record({
        ...common,
        type: "liquidity_pool",
        counter: market.counter,
        baseAmount,
        counterAmount,
        baseIsSeller: true,
        poolId: POOL_ID,
        counterAccount: TAKER,
        counterOfferId: SYNTHETIC_OFFER + operationId,
      });
      return;
    }
    // The taker takes up to a fifth of the offer; the amount it sells follows from the offer's price.
    const sold = (best.amount * BigInt(this.#rng.int(1, 20))) / 100n + 1n;
    const bought = (sold * BigInt(best.price.n)) / BigInt(best.price.d);
    best.amount -= sold;
    best.lastModified = at;
    if (best.amount <= 0n) this.#offers.splice(this.#offers.indexOf(best), 1);
    const [baseAmount, counterAmount] = buy ? [sold, bought] : [bought, sold];
    this.#record({
      ...common,
      type: "orderbook",
      counter: market.counter,
      baseAmount,
      counterAmount,
      baseIsSeller: buy,
      ...(buy
        ? {
            baseAccount: DEMO_MAKER,
            baseOfferId: best.id,
            counterAccount: TAKER,
            counterOfferId: SYNTHETIC_OFFER + operationId,
          }
        : {
            baseAccount: TAKER,
            baseOfferId: SYNTHETIC_OFFER + operationId,
            counterAccount: DEMO_MAKER,
            counterOfferId: best.id,
          }),
    });
  }

  #record(trade: BookTrade): void {
    if (trade.baseAmount <= 0n || trade.counterAmount <= 0n) return;
    this.#trades.push(trade);
    if (this.#trades.length > MAX_TRADES) this.#trades.splice(0, this.#trades.length - MAX_TRADES);
  }
}
