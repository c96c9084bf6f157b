import { METRICS } from "../catalog/metrics.js";
import { HorizonError } from "../client/errors.js";
import type { HorizonClient } from "../client/horizon-client.js";
import { liquidityPoolSchema, type LiquidityPool } from "../client/schemas.js";
import type { Collector, PollContext } from "./collector.js";
import { cursorAfter, PAGE_LIMIT, validRecord } from "./paging.js";
import type { CollectorSamples, Sample } from "./samples.js";

export interface PoolSelection {
  /** Pools tracked at most: the bound on this collector's cardinality. */
  readonly max: number;
  /** Horizon's `reserves` filter: only pools holding all of these assets. */
  readonly reserves: readonly string[];
  /** Explicit pool ids; when given, only these are fetched. */
  readonly ids: readonly string[];
}

function poolSamples(pool: LiquidityPool): Sample[] {
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

/** A validated pool and the raw record it came from, kept to recognise the same record next time. */
interface ValidatedPool {
  readonly record: LiquidityPool;
  readonly raw: Record<string, unknown>;
}

type RawReserve = { asset?: unknown; amount?: unknown } | undefined;

/**
 * True when a raw record carries the same values as the one a pool was validated from.
 * Horizon bumps last_modified_ledger whenever a pool changes; the values themselves are compared
 * too, to be safe against a Horizon that does not.
 */
function sameRawPool(previous: Record<string, unknown>, raw: Record<string, unknown>): boolean {
  if (
    previous.last_modified_ledger !== raw.last_modified_ledger ||
    previous.total_shares !== raw.total_shares ||
    previous.total_trustlines !== raw.total_trustlines ||
    previous.fee_bp !== raw.fee_bp ||
    previous.type !== raw.type ||
    !Array.isArray(raw.reserves)
  ) {
    return false;
  }
  const before = previous.reserves as RawReserve[];
  const now = raw.reserves as RawReserve[];
  if (before.length !== now.length) return false;
  for (let index = 0; index < now.length; index += 1) {
    if (before[index]?.asset !== now[index]?.asset || before[index]?.amount !== now[index]?.amount) return false;
  }
  return true;
}

/** Only the fields sameRawPool reads are kept, not the whole raw record with its links. */
function rawPoolFacts(raw: Record<string, unknown>): Record<string, unknown> {
  const { last_modified_ledger, total_shares, total_trustlines, fee_bp, type, reserves } = raw;
  return { last_modified_ledger, total_shares, total_trustlines, fee_bp, type, reserves };
}

function rawId(raw: unknown): string | undefined {
  const id = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).id : undefined;
  return typeof id === "string" ? id : undefined;
}

/**
 * Tracks a bounded set of pools; each poll replaces the set, so a pool gone upstream leaves too.
 * Pages are followed by raw records (see cursorAfter), and a pool whose raw values did not change
 * since the last poll is not validated again.
 */
export class LiquidityPoolsCollector implements Collector {
  readonly endpoint = "liquidity_pools";
  private pools: LiquidityPool[] | undefined;
  /** The last poll's pools by id, with the raw values they were validated from. */
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
      const next = records.length < limit ? undefined : cursorAfter(records, cursor, this.endpoint);
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

  /** The last poll's pool when its raw values did not change, else the record validated afresh. */
  private validate(raw: unknown, seen: Map<string, ValidatedPool>): LiquidityPool | undefined {
    const id = rawId(raw);
    const previous = id === undefined ? undefined : this.validated.get(id);
    if (previous !== undefined && sameRawPool(previous.raw, raw as Record<string, unknown>)) {
      seen.set(id!, previous);
      return previous.record;
    }
    const record = validRecord(liquidityPoolSchema, raw);
    if (record !== undefined) seen.set(record.id, { record, raw: rawPoolFacts(raw as Record<string, unknown>) });
    return record;
  }
}
