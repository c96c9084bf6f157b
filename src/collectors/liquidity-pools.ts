import { METRICS } from "../catalog/metrics.js";
import type { ExporterConfig } from "../config/config.js";
import { isNotFound, PollError } from "../client/errors.js";
import type { HorizonClient, RawRecords } from "../client/horizon-client.js";
import { liquidityPoolSchema, type LiquidityPool } from "../client/schemas.js";
import { yieldToEventLoop } from "../event-loop.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";
import { Poll, type HorizonJobParts, type JobTiming, type PollContext, type PollJob } from "../job/job.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import { cursorAfter, PAGE_LIMIT, validRecord } from "../client/paging.js";

function poolSamples(pool: LiquidityPool): Sample[] {
  const { id: pool_id, reserves } = pool;
  const [asset_a = "", asset_b = ""] = reserves.map((reserve) => reserve.asset);
  const info = { pool_id, type: pool.type, fee_bp: String(pool.fee_bp), asset_a, asset_b };
  return [
    { metric: METRICS.liquidityPoolInfo, labels: info, value: 1 },
    ...reserves.map(({ asset, amount: value }) => ({
      metric: METRICS.liquidityPoolReserve,
      labels: { pool_id, asset },
      value,
    })),
    { metric: METRICS.liquidityPoolShares, labels: { pool_id }, value: pool.total_shares },
    { metric: METRICS.liquidityPoolTrustlines, labels: { pool_id }, value: pool.total_trustlines },
  ];
}

function allPoolSamples(pools: readonly (readonly Sample[])[]): Sample[] {
  return [{ metric: METRICS.liquidityPools, value: pools.length }, ...pools.flat()];
}

export function liquidityPoolSamples(pools: readonly LiquidityPool[]): CollectorSamples<Sample> {
  return { live: allPoolSamples(pools.map(poolSamples)), persistent: [] };
}

type SentRecord = Readonly<Record<string, unknown>>;

/** A pool kept by the last poll: its series, and the fields of its record the schema reads, as sent. */
interface KnownPool extends Pick<LiquidityPool, "id" | "fee_bp" | "type"> {
  readonly ledger: number;
  readonly total_trustlines: string;
  readonly total_shares: string;
  readonly reserves: readonly { readonly asset: string; readonly amount: string }[];
  readonly samples: readonly Sample[];
}

/** The pool of a record the schema accepts, only the compared fields copied (bounded by the schema): a record padded
 * with unknown fields holds nothing beyond its poll. A missing last_modified_ledger is NaN, equal to nothing. */
function knownPool(record: unknown): KnownPool | undefined {
  const pool = validRecord(liquidityPoolSchema, record);
  if (pool === undefined) return undefined;
  const sent = record as SentRecord;
  return {
    id: pool.id,
    ledger: typeof sent.last_modified_ledger === "number" ? sent.last_modified_ledger : Number.NaN,
    fee_bp: pool.fee_bp,
    type: pool.type,
    total_trustlines: sent.total_trustlines as string,
    total_shares: sent.total_shares as string,
    reserves: (sent.reserves as KnownPool["reserves"]).map(({ asset, amount }) => ({ asset, amount })),
    samples: poolSamples(pool),
  };
}

/** True when `record` holds exactly what `known` was validated from, compared as sent (strings to strings, never a
 * hash), paging token apart: it is not kept, and the schema asks only that it be a non-empty string. */
function sentAsBefore(record: SentRecord, known: KnownPool): boolean {
  if (
    record.last_modified_ledger !== known.ledger ||
    record.total_shares !== known.total_shares ||
    record.total_trustlines !== known.total_trustlines ||
    record.fee_bp !== known.fee_bp ||
    record.type !== known.type ||
    typeof record.paging_token !== "string" ||
    record.paging_token === ""
  )
    return false;
  const reserves = record.reserves;
  if (!Array.isArray(reserves) || reserves.length !== known.reserves.length) return false;
  return known.reserves.every((before, index) => {
    const sent = reserves[index] as SentRecord | null | undefined;
    return sent?.asset === before.asset && sent.amount === before.amount;
  });
}

/** Tracks a bounded set of pools, replaced each poll. A pool whose record is sent exactly as at the last poll keeps its
 * series unvalidated: few pools change between polls (docs/performance.md). */
export class LiquidityPoolsCollector extends Poll implements PollJob {
  readonly source = "liquidity_pools";
  private series: readonly Sample[] = [];
  /** The pools the last complete poll of pages kept, by id. */
  private known: ReadonlyMap<string, KnownPool> = new Map();

  constructor(
    private readonly client: HorizonClient,
    /** At most `max` pools (the bound on cardinality): `ids` alone when given, else those holding all `reserves`. */
    private readonly selection: ExporterConfig["liquidityPools"],
    timing: JobTiming,
  ) {
    super(timing);
  }

  async run(context: PollContext): Promise<void> {
    if (this.selection.ids.length > 0) {
      this.series = liquidityPoolSamples(await this.fetchByIds(context)).live;
      return;
    }
    const pools = await this.fetchPages(context);
    this.series = allPoolSamples([...pools.values()].map((pool) => pool.samples));
    this.known = pools;
  }

  samples(): CollectorSamples<Sample> {
    return { live: this.series, persistent: [] };
  }

  private async fetchByIds({ signal, invalidRecords, progressed }: PollContext): Promise<LiquidityPool[]> {
    const pools: LiquidityPool[] = [];
    // Each id once: one listed twice would publish its series twice.
    for (const id of new Set(this.selection.ids.slice(0, this.selection.max))) {
      try {
        const pool = await this.client.liquidityPool(id, signal);
        progressed();
        // Another pool's record (a proxy or cache answering wrongly) is invalid: shown under its id, it would double.
        if (pool.id !== id) invalidRecords(1);
        else pools.push(pool);
      } catch (error) {
        // A pool that no longer exists simply stops being tracked; an invalid one is left out, as in a page.
        if (isNotFound(error)) continue;
        if (!(error instanceof PollError) || error.reason !== "schema") throw error;
        invalidRecords(1);
      }
    }
    return pools;
  }

  /** Pages in ascending id order; each pool once (its first record wins), at most `max`. */
  private async fetchPages(context: PollContext): Promise<Map<string, KnownPool>> {
    const pools = new Map<string, KnownPool>();
    const reserves = this.selection.reserves.length > 0 ? this.selection.reserves.join(",") : undefined;
    let cursor: string | undefined;
    while (pools.size < this.selection.max) {
      const limit = Math.min(PAGE_LIMIT, this.selection.max - pools.size);
      const records = await this.client.liquidityPools({ order: "asc", limit, cursor, reserves }, context.signal);
      context.progressed();
      // Horizon never sends more than asked: a longer page is no page, and validating it could hold the process long.
      if (records.length > limit)
        throw new PollError("schema", `liquidity_pools page holds ${records.length} records, ${limit} were asked for`);
      // Checked before reading, so a page served twice is not counted twice.
      const next = records.length < limit ? undefined : cursorAfter(records, cursor, this.source);
      // Parsed in the turn it arrived in, the page is validated in the next: a scrape waits for one turn, not both.
      await yieldToEventLoop();
      this.keepValid(records, pools, context);
      if (next === undefined) break;
      cursor = next;
    }
    return pools;
  }

  private keepValid(records: RawRecords, pools: Map<string, KnownPool>, context: PollContext): void {
    let invalid = 0;
    for (const record of records) {
      const known = this.known.get((record as SentRecord | null)?.id as string);
      const pool = known !== undefined && sentAsBefore(record as SentRecord, known) ? known : knownPool(record);
      if (pool === undefined) invalid += 1;
      else if (pools.size < this.selection.max && !pools.has(pool.id)) pools.set(pool.id, pool);
    }
    if (invalid > 0) context.invalidRecords(invalid);
  }
}

export function liquidityPoolsJob({ client, config, target }: HorizonJobParts): LiquidityPoolsCollector {
  const schedule = target.schedules.liquidity_pools;
  const timing = { schedule, requestsPerRun: requestsPerPoll("liquidity_pools", target, config) };
  return new LiquidityPoolsCollector(client, config.liquidityPools, timing);
}
