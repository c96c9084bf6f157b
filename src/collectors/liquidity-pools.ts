import { METRICS } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { HorizonClient } from "../client/horizon-client.js";
import { ScanMemo, type ScannedRecord } from "../client/page-scan.js";
import { yieldToEventLoop } from "../event-loop.js";
import {
  LIQUIDITY_POOL_FIELDS,
  liquidityPoolSchema,
  type LiquidityPool,
  type LiquidityPoolField,
} from "../client/schemas.js";
import type { HorizonJobParts, JobTiming, PollContext, PollJob } from "../job/job.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import { cursorPast, PAGE_LIMIT, validRecord } from "../client/paging.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";

export interface PoolSelection {
  /** Pools tracked at most: the bound on this collector's cardinality. */
  readonly max: number;
  /** Horizon's `reserves` filter: only pools holding all of these assets. */
  readonly reserves: readonly string[];
  /** Explicit pool ids; when given, only these are fetched. */
  readonly ids: readonly string[];
}

/**
 * One string per distinct label value (asset, pool type) among the pools tracked. Each changed
 * pool's record is parsed into strings of its own, and without this, thousands of pools holding
 * copies of a few hundred assets keep tens of thousands of strings alive for every major
 * collection to visit.
 */
class LabelValues {
  private readonly values = new Map<string, string>();

  /** `limit` bounds the values remembered: pools come and go, and their assets with them. */
  constructor(private readonly limit: number) {}

  canonical(value: string): string {
    const known = this.values.get(value);
    if (known !== undefined) return known;
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(value, value);
    return value;
  }
}

/** Label values a pool brings at most: its type and two assets. */
const LABEL_VALUES_PER_POOL = 3;

function poolSamples(pool: LiquidityPool, labelValues: LabelValues): Sample[] {
  const pool_id = pool.id;
  const assets = pool.reserves.map((reserve) => labelValues.canonical(reserve.asset));
  // Samples are never changed once made, so two may share their labels.
  const poolOnly = { pool_id };
  return [
    {
      metric: METRICS.liquidityPoolInfo,
      labels: {
        pool_id,
        type: labelValues.canonical(pool.type),
        fee_bp: String(pool.fee_bp),
        asset_a: assets[0] ?? "",
        asset_b: assets[1] ?? "",
      },
      value: 1,
    },
    ...pool.reserves.map((reserve, index) => ({
      metric: METRICS.liquidityPoolReserve,
      labels: { pool_id, asset: assets[index]! },
      value: reserve.amount,
    })),
    { metric: METRICS.liquidityPoolShares, labels: poolOnly, value: pool.total_shares },
    { metric: METRICS.liquidityPoolTrustlines, labels: poolOnly, value: pool.total_trustlines },
  ];
}

/** Each pool's series. */
type PoolSeries = readonly Pick<ValidatedPool, "samples">[];

/** The pool count, then every pool's series, in one list made once per poll. */
function allPoolSamples(pools: PoolSeries): Sample[] {
  let count = 1;
  for (let pool = 0; pool < pools.length; pool += 1) count += pools[pool]!.samples.length;
  const all = new Array<Sample>(count);
  all[0] = { metric: METRICS.liquidityPools, value: pools.length };
  let at = 1;
  for (let pool = 0; pool < pools.length; pool += 1) {
    const { samples } = pools[pool]!;
    for (let index = 0; index < samples.length; index += 1) all[at++] = samples[index]!;
  }
  return all;
}

export function liquidityPoolSamples(pools: readonly LiquidityPool[]): CollectorSamples<Sample> {
  const labelValues = new LabelValues(LABEL_VALUES_PER_POOL * pools.length);
  return { live: allPoolSamples(pools.map((pool) => ({ samples: poolSamples(pool, labelValues) }))), persistent: [] };
}

/**
 * A validated pool, its id, the fingerprint of the fields it was validated from (see
 * ScannedRecord), and its series, made once: while the pool is unchanged the store sees the same
 * sample objects, and copies their lines instead of formatting them again (see renderSamples).
 * The parsed record is not kept: its series hold all of it that is used.
 */
interface ValidatedPool {
  readonly key: string;
  readonly fingerprint: number;
  readonly samples: readonly Sample[];
}

type RawPool = ScannedRecord<LiquidityPoolField>;

/**
 * The pools the last complete poll validated, in page order, and those the running poll keeps.
 * Pages come in the same order every poll, so each record is compared with the pool after the
 * last one recognised; only a pool added or gone upstream needs a lookup by id.
 */
class ValidatedPools {
  private order: ValidatedPool[] = [];
  /** Positions in `order` by id, made only when a lookup is needed. */
  private positions: Map<string, number> | undefined;
  private kept: ValidatedPool[] = [];
  private expected = 0;

  /** Starts a poll: what it keeps replaces the last poll's pools only once it completes. */
  begin(): void {
    this.kept = [];
    this.expected = 0;
  }

  /** The last poll's pool when this record was sent exactly as then. */
  recognise(raw: RawPool): ValidatedPool | undefined {
    const expected = this.order[this.expected];
    if (expected !== undefined && raw.fingerprint() === expected.fingerprint) {
      this.expected += 1;
      return expected;
    }
    // Parsed only for a record not sent as last time: the pool's id string is kept once, in its series.
    const key = raw.string("id");
    if (key === undefined) return undefined;
    // The expected pool itself, changed: nothing to look up.
    if (expected?.key === key) {
      this.expected += 1;
      return undefined;
    }
    const position = this.positionOf(key);
    const previous = position === undefined ? undefined : this.order[position];
    if (previous === undefined) return undefined;
    this.expected = position! + 1;
    return raw.fingerprint() === previous.fingerprint ? previous : undefined;
  }

  keep(pool: ValidatedPool): void {
    this.kept.push(pool);
  }

  complete(): void {
    this.order = this.kept;
    this.positions = undefined;
    this.begin();
  }

  private positionOf(key: string): number | undefined {
    this.positions ??= new Map(this.order.map((pool, position) => [pool.key, position]));
    return this.positions.get(key);
  }
}

/**
 * The pools a poll keeps, each id once (the first record of it wins). Horizon sends them in
 * ascending id order, so while ids keep rising a new one is known distinct by one comparison
 * with the last; only after an id out of order are they looked up in a set. A set of ten
 * thousand ids built every poll was a tenth of a poll's garbage.
 */
class DistinctPools {
  readonly pools: ValidatedPool[] = [];
  private set: Set<string> | undefined;

  get size(): number {
    return this.pools.length;
  }

  add(pool: ValidatedPool): void {
    const last = this.pools.at(-1);
    if (this.set === undefined && last !== undefined && pool.key <= last.key)
      this.set = new Set(this.pools.map(({ key }) => key));
    if (this.set !== undefined) {
      if (this.set.has(pool.key)) return;
      this.set.add(pool.key);
    }
    this.pools.push(pool);
  }
}

/**
 * Tracks a bounded set of pools; each poll replaces the set, so a pool gone upstream leaves too.
 * Pages are followed by raw records (see cursorAfter). A pool whose used fields were sent as at the
 * last poll (the same fingerprint) is neither parsed nor validated again: Horizon bumps
 * last_modified_ledger whenever a pool changes, and the values themselves are hashed too, to be
 * safe against a Horizon that does not.
 */
export class LiquidityPoolsCollector implements PollJob {
  readonly role = "poll";
  readonly source = "liquidity_pools";
  readonly schedule: JobTiming["schedule"];
  readonly requestsPerRun: number;
  private series: readonly Sample[] = [];
  private readonly validated = new ValidatedPools();
  private readonly scans = new ScanMemo(LIQUIDITY_POOL_FIELDS, "id");
  private readonly labelValues: LabelValues;

  constructor(
    private readonly client: HorizonClient,
    private readonly selection: PoolSelection,
    timing: JobTiming,
  ) {
    this.labelValues = new LabelValues(LABEL_VALUES_PER_POOL * selection.max);
    this.schedule = timing.schedule;
    this.requestsPerRun = timing.requestsPerRun;
  }

  async run(context: PollContext): Promise<void> {
    if (this.selection.ids.length > 0) {
      this.series = liquidityPoolSamples(await this.fetchByIds(context)).live;
      return;
    }
    this.validated.begin();
    this.scans.begin();
    this.series = allPoolSamples(await this.fetchPages(context));
    this.validated.complete();
    this.scans.complete();
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

  private async fetchPages(context: PollContext): Promise<PoolSeries> {
    const kept = new DistinctPools();
    const reserves = this.selection.reserves.length > 0 ? this.selection.reserves.join(",") : undefined;
    let cursor: string | undefined;
    while (kept.size < this.selection.max) {
      const limit = Math.min(PAGE_LIMIT, this.selection.max - kept.size);
      const records = await this.client.liquidityPools(
        { order: "asc", limit, cursor, reserves },
        context.signal,
        this.scans,
      );
      context.progressed();
      // The page was scanned in the turn it arrived in; its records wait for the next, so a scrape
      // arriving meanwhile waits for one of the two, not both.
      await yieldToEventLoop();
      // Checked before reading, so a page served twice is not counted twice.
      const next =
        records.length < limit ? undefined : cursorPast(records.at(-1)?.string("paging_token"), cursor, this.source);
      let invalid = 0;
      for (const raw of records) {
        const pool = this.validate(raw);
        if (pool === undefined) invalid += 1;
        else if (kept.size < this.selection.max) kept.add(pool);
      }
      if (invalid > 0) context.invalidRecords(invalid);
      if (next === undefined) break;
      cursor = next;
    }
    return kept.pools;
  }

  /** The last poll's pool when its used fields were sent unchanged, else the record validated afresh. */
  private validate(raw: RawPool): ValidatedPool | undefined {
    if (!raw.isObject) return undefined;
    const previous = this.validated.recognise(raw);
    if (previous !== undefined) {
      this.validated.keep(previous);
      return previous;
    }
    const record = validRecord(liquidityPoolSchema, raw.toObject());
    if (record === undefined) return undefined;
    const pool = { key: record.id, fingerprint: raw.fingerprint(), samples: poolSamples(record, this.labelValues) };
    this.validated.keep(pool);
    return pool;
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
