import { METRICS } from "../catalog/metrics.js";
import { HorizonError } from "../client/errors.js";
import type { HorizonClient } from "../client/horizon-client.js";
import type { LiquidityPool } from "../client/schemas.js";
import type { Collector, PollResult } from "./collector.js";
import type { CollectorSamples, Sample } from "./samples.js";

/** Horizon's maximum page size. */
export const POOL_PAGE_LIMIT = 200;

export interface PoolSelection {
  /** Pools tracked at most: the bound on this collector's cardinality. */
  readonly max: number;
  /** Horizon's `reserves` filter: only pools holding all of these assets. */
  readonly reserves: readonly string[];
  /** Explicit pool ids; when given, only these are fetched. */
  readonly ids: readonly string[];
}

export function liquidityPoolSamples(pools: readonly LiquidityPool[] | undefined): CollectorSamples {
  if (pools === undefined) return { live: [], persistent: [] };
  const live: Sample[] = [{ metric: METRICS.liquidityPools, value: pools.length }];
  for (const pool of pools) {
    const pool_id = pool.id;
    live.push({
      metric: METRICS.liquidityPoolInfo,
      labels: {
        pool_id,
        type: pool.type,
        fee_bp: String(pool.fee_bp),
        asset_a: pool.reserves[0]?.asset ?? "",
        asset_b: pool.reserves[1]?.asset ?? "",
      },
      value: 1,
    });
    for (const reserve of pool.reserves) {
      live.push({ metric: METRICS.liquidityPoolReserve, labels: { pool_id, asset: reserve.asset }, value: reserve.amount });
    }
    live.push({ metric: METRICS.liquidityPoolShares, labels: { pool_id }, value: pool.total_shares });
    live.push({ metric: METRICS.liquidityPoolTrustlines, labels: { pool_id }, value: pool.total_trustlines });
  }
  return { live, persistent: [] };
}

/** Tracks a bounded set of pools; each poll replaces the set, so a pool gone upstream leaves too. */
export class LiquidityPoolsCollector implements Collector {
  readonly endpoint = "liquidity_pools";
  private pools: LiquidityPool[] | undefined;

  constructor(
    private readonly client: HorizonClient,
    private readonly selection: PoolSelection,
  ) {}

  async poll(): Promise<PollResult> {
    const { pools, invalidRecords } =
      this.selection.ids.length > 0 ? await this.fetchByIds() : await this.fetchPages();
    this.pools = pools;
    return { invalidRecords };
  }

  samples(): CollectorSamples {
    return liquidityPoolSamples(this.pools);
  }

  private async fetchByIds(): Promise<{ pools: LiquidityPool[]; invalidRecords: number }> {
    const pools: LiquidityPool[] = [];
    for (const id of this.selection.ids.slice(0, this.selection.max)) {
      try {
        pools.push(await this.client.liquidityPool(id));
      } catch (error) {
        // A pool that no longer exists simply stops being tracked.
        if (error instanceof HorizonError && error.details.status === 404) continue;
        throw error;
      }
    }
    return { pools, invalidRecords: 0 };
  }

  private async fetchPages(): Promise<{ pools: LiquidityPool[]; invalidRecords: number }> {
    const byId = new Map<string, LiquidityPool>();
    const reserves = this.selection.reserves.length > 0 ? this.selection.reserves.join(",") : undefined;
    let cursor: string | undefined;
    let invalidRecords = 0;
    while (byId.size < this.selection.max) {
      const limit = Math.min(POOL_PAGE_LIMIT, this.selection.max - byId.size);
      const page = await this.client.liquidityPools({ order: "asc", limit, cursor, reserves });
      invalidRecords += page.invalidRecords;
      for (const pool of page.records) if (byId.size < this.selection.max) byId.set(pool.id, pool);
      const last = page.records.at(-1);
      if (last === undefined || page.records.length + page.invalidRecords < limit) break;
      if (last.paging_token === cursor) {
        throw new HorizonError("paging", `liquidity pool cursor did not advance past ${cursor}`);
      }
      cursor = last.paging_token;
    }
    return { pools: [...byId.values()], invalidRecords };
  }
}
