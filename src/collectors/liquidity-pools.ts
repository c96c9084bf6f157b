import { METRICS } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { HorizonClient, RawRecords } from "../client/horizon-client.js";
import { liquidityPoolSchema, type LiquidityPool } from "../client/schemas.js";
import { yieldToEventLoop } from "../event-loop.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";
import type { HorizonJobParts, JobTiming, PollContext, PollJob } from "../job/job.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import { cursorAfter, PAGE_LIMIT, validRecord } from "../client/paging.js";

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
  const assets = pool.reserves.map((reserve) => reserve.asset);
  return [
    {
      metric: METRICS.liquidityPoolInfo,
      labels: {
        pool_id,
        type: pool.type,
        fee_bp: String(pool.fee_bp),
        asset_a: assets[0] ?? "",
        asset_b: assets[1] ?? "",
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

export function liquidityPoolSamples(pools: readonly LiquidityPool[]): CollectorSamples<Sample> {
  return {
    live: [{ metric: METRICS.liquidityPools, value: pools.length }, ...pools.flatMap(poolSamples)],
    persistent: [],
  };
}

/**
 * Tracks a bounded set of pools; each poll replaces the set, so a pool gone upstream leaves too.
 * Every page is parsed and every record validated afresh: a pool's series cost less to make again
 * than a cache of them costs to keep right.
 */
export class LiquidityPoolsCollector implements PollJob {
  readonly role = "poll";
  readonly source = "liquidity_pools";
  readonly schedule: JobTiming["schedule"];
  readonly requestsPerRun: number;
  private series: readonly Sample[] = [];

  constructor(
    private readonly client: HorizonClient,
    private readonly selection: PoolSelection,
    timing: JobTiming,
  ) {
    this.schedule = timing.schedule;
    this.requestsPerRun = timing.requestsPerRun;
  }

  async run(context: PollContext): Promise<void> {
    const pools = this.selection.ids.length > 0 ? await this.fetchByIds(context) : await this.fetchPages(context);
    this.series = liquidityPoolSamples(pools).live;
  }

  samples(): CollectorSamples<Sample> {
    return { live: this.series, persistent: [] };
  }

  private async fetchByIds({ signal, invalidRecords, progressed }: PollContext): Promise<LiquidityPool[]> {
    const pools: LiquidityPool[] = [];
    for (const id of this.selection.ids.slice(0, this.selection.max)) {
      try {
        pools.push(await this.client.liquidityPool(id, signal));
        progressed();
      } catch (error) {
        // A pool that no longer exists simply stops being tracked; an invalid one is left out, as in a page.
        if (error instanceof PollError && error.details.status === 404) continue;
        if (error instanceof PollError && error.reason === "schema") {
          invalidRecords(1);
          continue;
        }
        throw error;
      }
    }
    return pools;
  }

  /** Pages in ascending id order; each pool once (its first record wins), at most `max`. */
  private async fetchPages(context: PollContext): Promise<LiquidityPool[]> {
    const pools = new Map<string, LiquidityPool>();
    const reserves = this.selection.reserves.length > 0 ? this.selection.reserves.join(",") : undefined;
    let cursor: string | undefined;
    while (pools.size < this.selection.max) {
      const limit = Math.min(PAGE_LIMIT, this.selection.max - pools.size);
      const records = await this.client.liquidityPools({ order: "asc", limit, cursor, reserves }, context.signal);
      context.progressed();
      // Horizon never sends more than asked: a page that does is no page, and validating its records
      // one by one could hold the process for as long as the body cap allows.
      if (records.length > limit)
        throw new PollError("schema", `liquidity_pools page holds ${records.length} records, ${limit} were asked for`);
      // Checked before reading, so a page served twice is not counted twice.
      const next = records.length < limit ? undefined : cursorAfter(records, cursor, this.source);
      // The page was parsed in the turn it arrived in; its records wait for the next, so a scrape
      // arriving meanwhile waits for one of the two, not both.
      await yieldToEventLoop();
      this.keepValid(records, pools, context);
      if (next === undefined) break;
      cursor = next;
    }
    return [...pools.values()];
  }

  /** Adds the page's valid pools to `pools` (up to `max`), and counts the invalid records. */
  private keepValid(records: RawRecords, pools: Map<string, LiquidityPool>, context: PollContext): void {
    let invalid = 0;
    for (const record of records) {
      const pool = validRecord(liquidityPoolSchema, record);
      if (pool === undefined) invalid += 1;
      else if (pools.size < this.selection.max && !pools.has(pool.id)) pools.set(pool.id, pool);
    }
    if (invalid > 0) context.invalidRecords(invalid);
  }
}

/** A Horizon's liquidity pools poll, as its job table builds it. */
export function liquidityPoolsJob({ client, config, target }: HorizonJobParts): LiquidityPoolsCollector {
  const requestsPerRun = requestsPerPoll("liquidity_pools", target, config);
  return new LiquidityPoolsCollector(client, config.liquidityPools, {
    schedule: target.schedules.liquidity_pools,
    requestsPerRun,
  });
}
