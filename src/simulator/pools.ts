/**
 * Liquidity pools with real ids (SHA-256 of the XDR pool parameters), generated
 * from the seed. A pool's state is a pure function of the latest ingested ledger:
 * each pool is modified once per window of its own period, and its reserves,
 * shares and trustlines follow a smooth random walk indexed by those
 * modifications. Nothing is updated in the background; serving a pool costs
 * O(1), a page O(page size + log pools).
 */

import { createHash } from "node:crypto";
import { assetXdr, canonicalAsset, compareAssets, NATIVE, type Asset } from "./assets.js";
import { createRng, deriveSeed, hashToUnit, type Rng } from "./rng.js";

export const POOL_FEE_BP = 30;
/** `pool_drain` leaves this share of the first pool's reserves and shares. */
const DRAINED_SHARE = 0.1;

/** Codes seen on mainnet; issuers are generated, so the same code appears under several issuers, as it does there. */
const ASSET_CODES = [
  "USDC",
  "EURC",
  "AQUA",
  "yXLM",
  "yUSDC",
  "yBTC",
  "SHX",
  "VELO",
  "MOBI",
  "SLT",
  "RMT",
  "LSP",
  "ARST",
  "BRL",
  "NGNC",
  "TFT",
  "XRP",
  "BTC",
  "ETH",
  "LTC",
  "USDT",
  "EURT",
  "GBP",
  "IXT",
  "KBT",
  "SSLX",
  "WXT",
  "NRI",
  "OPAL",
  "MXN",
  "ZAR",
  "KES",
  "GOLD",
  "BENJI",
  "FRED",
  "ICE",
  "XCN",
  "LOBSTR",
  "GOLDBANK001",
  "STELLARTERM",
  "PALTA",
  "SCOP",
  "AFR",
  "XSTAR",
  "BLND",
  "CETES",
  "TZS",
  "EURV",
] as const;

const MAX_RESERVE_UNITS = 3e8;
const STROOPS_PER_UNIT = 1e7;
const WALK_KNOT_SPACING = 12;
/** One modification in this many is a deposit or withdrawal; the others are swaps. */
const LIQUIDITY_EVENT_EVERY = 8;
/** Independent hash streams per pool; spaced by two because each walk also uses `stream + 1` for jitter. */
const WALK_STREAM = { touch: 1, price: 2, liquidity: 4, trustlines: 6 } as const;
type WalkStream = (typeof WALK_STREAM)[keyof typeof WALK_STREAM];

export interface PoolDefinition {
  readonly id: string;
  /** Creation order: the pool's own random streams are keyed by it. */
  readonly ordinal: number;
  readonly assets: readonly [string, string];
  readonly baseReserves: readonly [number, number];
  readonly baseShares: number;
  readonly baseTrustlines: number;
  /** Ledgers per modification window: busy pools change every few ledgers, quiet ones every hour or so. */
  readonly modificationPeriod: number;
}

export interface PoolState {
  readonly reserves: readonly [number, number];
  readonly totalShares: number;
  readonly totalTrustlines: number;
  readonly lastModifiedLedger: number;
}

/** The part of the ledger state a pool's state depends on. */
export interface PoolLedgerView {
  readonly historyLatestLedger: number;
  readonly historyElderLedger: number;
  readonly poolDrainedAtLedger: number | null;
}

export interface PoolPageQuery {
  readonly cursor: string;
  readonly order: "asc" | "desc";
  readonly limit: number;
  /** Canonical assets every returned pool must hold. */
  readonly reserves: readonly string[];
  /** When given, only these pools: those an account holds shares of (`?account=`). */
  readonly ids?: ReadonlySet<string>;
}

function poolId(assetA: Asset, assetB: Asset): string {
  const a = assetXdr(assetA);
  const b = assetXdr(assetB);
  // LiquidityPoolParameters: type LIQUIDITY_POOL_CONSTANT_PRODUCT (0), assetA, assetB, int32 fee.
  const parameters = Buffer.alloc(4 + a.length + b.length + 4);
  parameters.set(a, 4);
  parameters.set(b, 4 + a.length);
  parameters.writeInt32BE(POOL_FEE_BP, 4 + a.length + b.length);
  return createHash("sha256").update(parameters).digest("hex");
}

interface NamedAsset {
  readonly asset: Asset;
  readonly canonical: string;
}

function named(asset: Asset): NamedAsset {
  return { asset, canonical: canonicalAsset(asset) };
}

function assetUniverse(size: number, rng: Rng): NamedAsset[] {
  return Array.from({ length: size }, (_, index) =>
    named({
      kind: "credit",
      code: ASSET_CODES[index % ASSET_CODES.length] ?? "USDC",
      issuer: rng.fill(new Uint8Array(32)),
    }),
  );
}

function createPools(count: number, rng: Rng): PoolDefinition[] {
  // Enough distinct pairs that drawing `count` unique ones stays quick.
  const credits = assetUniverse(Math.max(24, Math.ceil(3 * Math.sqrt(count))), rng);
  const native = named(NATIVE);
  const seen = new Set<string>();
  const pools: PoolDefinition[] = [];
  while (pools.length < count) {
    const first = rng.chance(0.3) ? native : rng.pick(credits);
    const second = rng.pick(credits);
    if (first === second) continue;
    const [a, b] = compareAssets(first.asset, second.asset) < 0 ? [first, second] : [second, first];
    const assets = [a.canonical, b.canonical] as const;
    const pairKey = assets.join(",");
    if (seen.has(pairKey)) continue;
    seen.add(pairKey);
    const unitsA = 10 ** rng.between(0, Math.log10(MAX_RESERVE_UNITS));
    const unitsB = Math.min(MAX_RESERVE_UNITS, Math.max(0.001, unitsA * 10 ** rng.between(-2.5, 2.5)));
    const baseReserves = [Math.round(unitsA * STROOPS_PER_UNIT), Math.round(unitsB * STROOPS_PER_UNIT)] as const;
    pools.push({
      id: poolId(a.asset, b.asset),
      ordinal: pools.length,
      assets,
      baseReserves,
      // Constant-product pools mint sqrt(a * b) shares for the first deposit.
      baseShares: Math.round(Math.sqrt(baseReserves[0] * baseReserves[1])),
      // Deep pools have many liquidity providers (a 22.5M XLM pool has about 900 on mainnet).
      baseTrustlines: Math.max(1, Math.round(unitsA ** 0.4 * rng.between(0.3, 3))),
      modificationPeriod: Math.round(10 ** rng.between(0.5, 2.9)),
    });
  }
  return pools.sort((left, right) => (left.id < right.id ? -1 : 1));
}

export class PoolUniverse {
  /** Sorted by id, which is also Horizon's paging order. */
  readonly pools: readonly PoolDefinition[];
  readonly #seed: number;
  readonly #positionById: ReadonlyMap<string, number>;
  readonly #positionsByAsset: ReadonlyMap<string, readonly number[]>;
  readonly #allPositions: readonly number[];

  constructor(count: number, seed: number) {
    this.#seed = deriveSeed(seed, 3);
    this.pools = createPools(count, createRng(this.#seed));
    this.#allPositions = this.pools.map((_, position) => position);
    this.#positionById = new Map(this.pools.map((pool, position) => [pool.id, position]));
    const byAsset = new Map<string, number[]>();
    this.pools.forEach((pool, position) => {
      for (const asset of pool.assets) {
        const positions = byAsset.get(asset) ?? [];
        positions.push(position);
        byAsset.set(asset, positions);
      }
    });
    this.#positionsByAsset = byAsset;
  }

  /** The pool `pool_drain` empties: the first by id. */
  get drainTarget(): PoolDefinition | undefined {
    return this.pools[0];
  }

  find(id: string): PoolDefinition | undefined {
    const position = this.#positionById.get(id);
    return position === undefined ? undefined : this.pools[position];
  }

  page(query: PoolPageQuery): PoolDefinition[] {
    const candidates = this.#candidates(query.reserves, query.ids);
    const ids = (position: number): string => this.pools[position]?.id ?? "";
    // First candidate whose id sorts after the cursor (binary search).
    let low = 0;
    let high = candidates.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const id = ids(candidates[middle] ?? 0);
      if (query.order === "asc" ? id <= query.cursor : id < query.cursor) low = middle + 1;
      else high = middle;
    }
    const selected: number[] = [];
    if (query.order === "asc") {
      for (let i = low; i < candidates.length && selected.length < query.limit; i++) selected.push(candidates[i] ?? 0);
    } else {
      const start = query.cursor === "" ? candidates.length - 1 : low - 1;
      for (let i = start; i >= 0 && selected.length < query.limit; i--) selected.push(candidates[i] ?? 0);
    }
    return selected.flatMap((position) => this.pools[position] ?? []);
  }

  /** The pool as of the latest ingested ledger. */
  stateAt(pool: PoolDefinition, view: PoolLedgerView): PoolState {
    const { ledger: touchedAt, index: touch } = this.#lastModification(pool, view.historyLatestLedger);
    // Most modifications are swaps, which move the price along the constant product and leave
    // shares and trustlines alone; every LIQUIDITY_EVENT_EVERY-th is a deposit or withdrawal.
    const liquidityEvent = Math.floor(touch / LIQUIDITY_EVENT_EVERY);
    const price = Math.exp(0.25 * this.#walk(pool, WALK_STREAM.price, touch));
    const liquidity = Math.exp(0.35 * this.#walk(pool, WALK_STREAM.liquidity, liquidityEvent));
    const trustlineDrift = 1 + 0.1 * this.#walk(pool, WALK_STREAM.trustlines, liquidityEvent);
    let reserves: [number, number] = [
      Math.max(1, Math.round(pool.baseReserves[0] * price * liquidity)),
      Math.max(1, Math.round((pool.baseReserves[1] / price) * liquidity)),
    ];
    let totalShares = Math.max(1, Math.round(pool.baseShares * liquidity));
    let lastModifiedLedger = Math.max(touchedAt, view.historyElderLedger);
    const drainedAt = view.poolDrainedAtLedger;
    if (drainedAt !== null && pool === this.drainTarget) {
      reserves = [Math.round(reserves[0] * DRAINED_SHARE), Math.round(reserves[1] * DRAINED_SHARE)];
      totalShares = Math.round(totalShares * DRAINED_SHARE);
      lastModifiedLedger = Math.min(view.historyLatestLedger, Math.max(lastModifiedLedger, drainedAt));
    }
    return {
      reserves,
      totalShares,
      totalTrustlines: Math.max(1, Math.round(pool.baseTrustlines * trustlineDrift * Math.sqrt(liquidity))),
      lastModifiedLedger,
    };
  }

  #candidates(reserves: readonly string[], ids: ReadonlySet<string> | undefined): readonly number[] {
    const [first, ...others] = reserves;
    const withReserves =
      first === undefined
        ? this.#allPositions
        : (this.#positionsByAsset.get(first) ?? []).filter((position) =>
            others.every((asset) => this.pools[position]?.assets.includes(asset)),
          );
    return ids === undefined
      ? withReserves
      : withReserves.filter((position) => ids.has(this.pools[position]?.id ?? ""));
  }

  /** The pool's most recent modification at or before `ledger`: one per window of `modificationPeriod` ledgers. */
  #lastModification(pool: PoolDefinition, ledger: number): { ledger: number; index: number } {
    const period = pool.modificationPeriod;
    const offsetIn = (window: number): number =>
      Math.floor(hashToUnit(this.#seed, pool.ordinal, WALK_STREAM.touch, window) * period);
    let window = Math.floor(ledger / period);
    if (window * period + offsetIn(window) > ledger) window -= 1;
    return { ledger: window * period + offsetIn(window), index: window };
  }

  /** Smooth noise in about [-1, 1]: random knots eased together, plus a little per-step jitter. */
  #walk(pool: PoolDefinition, stream: WalkStream, step: number): number {
    const position = step / WALK_KNOT_SPACING;
    const knot = Math.floor(position);
    const fraction = position - knot;
    const eased = fraction * fraction * (3 - 2 * fraction);
    const knotValue = (k: number): number => 2 * hashToUnit(this.#seed, pool.ordinal, stream, k) - 1;
    const smooth = knotValue(knot) + (knotValue(knot + 1) - knotValue(knot)) * eased;
    const jitter = 2 * hashToUnit(this.#seed, pool.ordinal, stream + 1, step) - 1;
    return 0.85 * smooth + 0.15 * jitter;
  }
}
