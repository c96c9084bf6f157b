import { METRICS } from "../catalog/metrics.js";
import { HorizonError } from "../client/errors.js";
import type { HorizonClient } from "../client/horizon-client.js";
import type { ScannedRecord } from "../client/page-scan.js";
import { liquidityPoolSchema, type LiquidityPool, type LiquidityPoolField } from "../client/schemas.js";
import type { Collector, PollContext } from "./collector.js";
import { cursorPast, PAGE_LIMIT, validRecord } from "./paging.js";
import type { CollectorSamples, Sample } from "./samples.js";

export interface PoolSelection {
  /** Pools tracked at most: the bound on this collector's cardinality. */
  readonly max: number;
  /** Horizon's `reserves` filter: only pools holding all of these assets. */
  readonly reserves: readonly string[];
  /** Explicit pool ids; when given, only these are fetched. */
  readonly ids: readonly string[];
}

/** The samples of each pool record, made once: an unchanged pool keeps its record, so its samples and their rendered lines are reused. */
const samplesOfPool = new WeakMap<LiquidityPool, readonly Sample[]>();

function poolSamples(pool: LiquidityPool): readonly Sample[] {
  let samples = samplesOfPool.get(pool);
  if (samples === undefined) samplesOfPool.set(pool, (samples = newPoolSamples(pool)));
  return samples;
}

function newPoolSamples(pool: LiquidityPool): Sample[] {
  const pool_id = pool.id;
  return [
    {
      metric: METRICS.liquidityPoolInfo,
      labels: {
        pool_id,
        type: pool.type,
        fee_bp: String(pool.fee_bp),
        asset_a: pool.reserves[0]?.asset ?? "",
        asset_b: pool.reserves[1]?.asset ?? "",
      },
      value: 1,
    },
    ...pool.reserves.map((reserve) => ({
      metric: METRICS.liquidityPoolReserve,
      labels: { pool_id, asset: reserve.asset },
      value: reserve.amount,
    })),
    { metric: METRICS.liquidityPoolShares, labels: { pool_id }, value: pool.total_shares },
    { metric: METRICS.liquidityPoolTrustlines, labels: { pool_id }, value: pool.total_trustlines },
  ];
}

function* allPoolSamples(pools: readonly LiquidityPool[]): Generator<Sample> {
  yield { metric: METRICS.liquidityPools, value: pools.length };
  for (const pool of pools) yield* poolSamples(pool);
}

export function liquidityPoolSamples(pools: readonly LiquidityPool[] | undefined): CollectorSamples {
  return { live: pools === undefined ? [] : allPoolSamples(pools), persistent: [] };
}

/** A validated pool and the fingerprint of the fields it was validated from (see ScannedRecord). */
interface ValidatedPool {
  readonly record: LiquidityPool;
  readonly fingerprint: Buffer;
}

/**
 * Tracks a bounded set of pools; each poll replaces the set, so a pool gone upstream leaves too.
 * Pages are followed by raw records (see cursorAfter). A pool whose used fields were sent byte for
 * byte as at the last poll is neither parsed nor validated again: Horizon bumps last_modified_ledger
 * whenever a pool changes, and the values themselves are compared too, to be safe against a
 * Horizon that does not.
 */
export class LiquidityPoolsCollector implements Collector {
  readonly endpoint = "liquidity_pools";
  private pools: LiquidityPool[] | undefined;
  /** The last poll's pools by their raw id, with the fingerprints they were validated from. */
  private validated = new Map<string, ValidatedPool>();

  constructor(
    private readonly client: HorizonClient,
    private readonly selection: PoolSelection,
  ) {}

  async poll(context: PollContext): Promise<void> {
    if (this.selection.ids.length > 0) {
      this.pools = await this.fetchByIds(context);
      return;
    }
    const seen = new Map<string, ValidatedPool>();
    this.pools = await this.fetchPages(context, seen);
    this.validated = seen;
  }

  samples(): CollectorSamples {
    return liquidityPoolSamples(this.pools);
  }

  private async fetchByIds({ signal }: PollContext): Promise<LiquidityPool[]> {
    const pools: LiquidityPool[] = [];
    for (const id of this.selection.ids.slice(0, this.selection.max)) {
      try {
        pools.push(await this.client.liquidityPool(id, signal));
      } catch (error) {
        // A pool that no longer exists simply stops being tracked.
        if (error instanceof HorizonError && error.details.status === 404) continue;
        throw error;
      }
    }
    return pools;
  }

  private async fetchPages(context: PollContext, seen: Map<string, ValidatedPool>): Promise<LiquidityPool[]> {
    const byId = new Map<string, LiquidityPool>();
    const reserves = this.selection.reserves.length > 0 ? this.selection.reserves.join(",") : undefined;
    let cursor: string | undefined;
    while (byId.size < this.selection.max) {
      const limit = Math.min(PAGE_LIMIT, this.selection.max - byId.size);
      const records = await this.client.liquidityPools({ order: "asc", limit, cursor, reserves }, context.signal);
      // Checked before reading, so a page served twice is not counted twice.
      const next = records.length < limit ? undefined : cursorPast(records.at(-1)?.string("paging_token"), cursor, this.endpoint);
      let invalid = 0;
      for (const raw of records) {
        const pool = this.validate(raw, seen);
        if (pool === undefined) invalid += 1;
        else if (byId.size < this.selection.max) byId.set(pool.id, pool);
      }
      if (invalid > 0) context.invalidRecords(invalid);
      if (next === undefined) break;
      cursor = next;
    }
    return [...byId.values()];
  }

  /** The last poll's pool when its used fields were sent unchanged, else the record validated afresh. */
  private validate(raw: ScannedRecord<LiquidityPoolField>, seen: Map<string, ValidatedPool>): LiquidityPool | undefined {
    const key = raw.raw("id")?.toString("latin1");
    if (!raw.isObject || key === undefined) return undefined;
    const fingerprint = raw.fingerprint();
    const previous = this.validated.get(key);
    if (previous !== undefined && previous.fingerprint.equals(fingerprint)) {
      seen.set(key, previous);
      return previous.record;
    }
    const record = validRecord(liquidityPoolSchema, raw.toObject());
    if (record !== undefined) seen.set(key, { record, fingerprint });
    return record;
  }
}
