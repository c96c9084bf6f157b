import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { HorizonClient, Query, RawRecords } from "../src/client/horizon-client.js";
import { liquidityPoolSchema } from "../src/client/schemas.js";
import { LiquidityPoolsCollector } from "../src/collectors/liquidity-pools.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import type { Sample } from "../src/exposition/samples.js";
import { type JsonRecord, makePool } from "./support/fake-horizon.js";

/** A Horizon that answers each pools request with the next page given, and notes the queries. */
function pagesClient(pages: unknown[][]) {
  const queries: Query[] = [];
  const client = {
    liquidityPools: async (query: Query): Promise<RawRecords> => {
      queries.push(query);
      return pages.shift() ?? [];
    },
  } as unknown as HorizonClient;
  return { client, queries };
}

function poll(job: LiquidityPoolsCollector, signal = new AbortController().signal) {
  const invalid: number[] = [];
  return job.run({ signal, invalidRecords: (count) => invalid.push(count), progressed: () => {} }).then(() => invalid);
}

/** A sample's value, by metric name and pool. */
function valueOf(samples: readonly Sample[], metric: string, poolId?: string): unknown {
  const found = samples.find(
    (sample) =>
      sample.metric.name === metric &&
      (poolId === undefined || (sample as { labels?: { pool_id?: string } }).labels?.pool_id === poolId),
  );
  return found === undefined ? undefined : (found as { value?: unknown }).value;
}

const TIMING = { schedule: parseSchedule("15s") as Schedule, requestsPerRun: 1 };

describe("LiquidityPoolsCollector", () => {
  it("leaves an invalid record out, counted once, and still moves the cursor past it", async () => {
    const first = Array.from({ length: 200 }, (_, index) => makePool(index + 1));
    // The page's last record is invalid: its paging token is still the next cursor.
    first[199] = { ...first[199], total_shares: "not an amount" };
    const { client, queries } = pagesClient([first, [makePool(500)]]);
    const job = new LiquidityPoolsCollector(client, { max: 1_000, reserves: [], ids: [] }, TIMING);
    expect(await poll(job)).toEqual([1]);
    expect(queries.map((query) => query.cursor)).toEqual([undefined, makePool(200).paging_token]);
    const { live } = job.samples();
    expect(valueOf(live, "stellar_horizon_liquidity_pools")).toBe(200);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(1).id as string)).toBe(1001.5);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(200).id as string)).toBeUndefined();
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(500).id as string)).toBe(1500.5);
  });

  it("keeps each pool once, the first record of it, and at most max", async () => {
    const { client, queries } = pagesClient([
      [makePool(1), makePool(1, { total_shares: "9.0000000" }), makePool(2)],
      [makePool(3)],
      [makePool(4)],
    ]);
    const job = new LiquidityPoolsCollector(client, { max: 3, reserves: [], ids: [] }, TIMING);
    expect(await poll(job)).toEqual([]);
    // The second page asks for the one pool left to the maximum.
    expect(queries.map((query) => query.limit)).toEqual([3, 1]);
    const { live } = job.samples();
    expect(valueOf(live, "stellar_horizon_liquidity_pools")).toBe(3);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(1).id as string)).toBe(1001.5);
  });

  it("a page of more records than asked for fails the poll as schema, before any record is read", async () => {
    const { client } = pagesClient([Array.from({ length: 100_000 }, () => ({}))]);
    const job = new LiquidityPoolsCollector(client, { max: 1_000, reserves: [], ids: [] }, TIMING);
    const invalid: number[] = [];
    const error = await job
      .run({
        signal: new AbortController().signal,
        invalidRecords: (count) => invalid.push(count),
        progressed: () => {},
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PollError);
    expect((error as PollError).reason).toBe("schema");
    expect((error as PollError).message).toBe("liquidity_pools page holds 100000 records, 200 were asked for");
    expect(invalid).toEqual([]);
  });
});

/** A pools page of `records`, as a client that serves `pages` in turn every poll. */
function pollsOf(max = 1_000) {
  let pages: unknown[][] = [];
  const client = {
    liquidityPools: async (): Promise<RawRecords> => pages.shift() ?? [],
  } as unknown as HorizonClient;
  const job = new LiquidityPoolsCollector(client, { max, reserves: [], ids: [] }, TIMING);
  return {
    job,
    /** Polls once over `next` (pages of at most 200 records); the invalid counts and the series. */
    async poll(next: unknown[][]) {
      pages = next.map((page) => structuredClone(page));
      const invalid = await poll(job);
      return { invalid, live: job.samples().live };
    },
  };
}

/** What a collector that never polled before makes of `pages`: the values every poll must give. */
async function fresh(pages: unknown[][], max = 1_000) {
  return pollsOf(max).poll(pages);
}

/** A deterministic pseudo-random generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** One change to a pool record: honest ones, and what a hostile or broken Horizon could send. */
const CHANGES: ((pool: JsonRecord, index: number) => void)[] = [
  (pool, index) => (pool.total_shares = `${2000 + index}.1250000`),
  (pool) => (pool.total_trustlines = "77"),
  (pool) => (pool.fee_bp = 31),
  (pool) => (pool.type = "other_kind"),
  (pool) => ((pool.reserves as JsonRecord[])[0]!.amount = "1.0000001"),
  (pool) => ((pool.reserves as JsonRecord[])[1]!.asset = "native"),
  (pool) => (pool.reserves = [...(pool.reserves as JsonRecord[])].reverse()),
  (pool) => (pool.reserves = [(pool.reserves as JsonRecord[])[0]]),
  (pool) => (pool.last_modified_ledger = 1 + (pool.last_modified_ledger as number)),
  (pool) => (pool.last_modified_ledger = String(pool.last_modified_ledger)),
  (pool) => delete pool.last_modified_ledger,
  (pool) => (pool.paging_token = ""),
  (pool) => (pool.paging_token = 17),
  (pool) => (pool.total_shares = Number(pool.total_shares)),
  (pool) => (pool.total_shares = "9".repeat(400)),
  (pool) => ((pool.reserves as JsonRecord[])[0]!.amount = 10),
  (pool) => ((pool.reserves as unknown[])[1] = null),
  (pool) => (pool.reserves = { 0: (pool.reserves as JsonRecord[])[0], length: 1 }),
  (pool) => (pool.id = 1),
  (pool) => (pool.padding = "x".repeat(64 * 1024)),
];

const onePage = (records: unknown[]) => [records];

describe("LiquidityPoolsCollector across polls", () => {
  it("compares every field the pool schema reads (a new one must be compared too)", () => {
    const compared = ["fee_bp", "id", "paging_token", "reserves", "total_shares", "total_trustlines", "type"];
    expect(Object.keys(liquidityPoolSchema.shape).sort()).toEqual(compared);
    expect(Object.keys(liquidityPoolSchema.shape.reserves.element.shape).sort()).toEqual(["amount", "asset"]);
  });

  it("gives every poll the values a fresh collector gives, whatever changed since the last", async () => {
    const next = random(42);
    const { poll: pollAgain } = pollsOf();
    let pools: unknown[] = Array.from({ length: 40 }, (_, index) => makePool(index + 1));
    for (let round = 0; round < 25; round += 1) {
      pools = pools.map((pool, index) => {
        if (next() > 0.3) return pool;
        // Now and then a pool goes back to how it was first sent.
        if (next() < 0.2) return makePool(index + 1);
        // One change to the pool as first sent, so each compared field alone tells the two apart.
        const changed = makePool(index + 1);
        CHANGES[Math.floor(next() * CHANGES.length)]!(changed, index + round);
        return changed;
      });
      // Duplicates and records that are no pool at all, here and there.
      const page = [...pools, pools[round % pools.length], {}, null, "pool", []];
      expect(await pollAgain(onePage(page))).toEqual(await fresh(onePage(page)));
    }
  });

  it("re-reads a pool whose values change while its last_modified_ledger does not", async () => {
    const { poll: pollAgain } = pollsOf();
    const id = makePool(1).id as string;
    await pollAgain(onePage([makePool(1), makePool(2)]));
    const changed = makePool(1, {
      total_shares: "5.0000000",
      reserves: [
        { asset: "native", amount: "3.0000000" },
        { asset: "TOK1:GDEUQ2MX3YXMITFOTC3CO3GW5V3XE3IVG7JKLZZAOZ7WFYIN256INDUS", amount: "4.0000000" },
      ],
    });
    expect(changed.last_modified_ledger).toBe(makePool(1).last_modified_ledger);
    const { invalid, live } = await pollAgain(onePage([changed, makePool(2)]));
    expect(invalid).toEqual([]);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", id)).toBe(5);
    const reserves = live.filter(
      (sample) =>
        sample.metric.name === "stellar_horizon_liquidity_pool_reserve" &&
        (sample as { labels: { pool_id: string } }).labels.pool_id === id,
    );
    expect(reserves.map((sample) => (sample as { value: number }).value)).toEqual([3, 4]);
  });

  it("counts a pool sent as before but for an empty paging token as invalid, every poll", async () => {
    const { poll: pollAgain } = pollsOf();
    await pollAgain(onePage([makePool(1), makePool(2)]));
    const broken = makePool(2, { paging_token: "" });
    for (let round = 0; round < 2; round += 1) {
      const { invalid, live } = await pollAgain(onePage([makePool(1), broken]));
      expect(invalid).toEqual([1]);
      expect(valueOf(live, "stellar_horizon_liquidity_pools")).toBe(1);
      expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(2).id as string)).toBeUndefined();
    }
  });

  it("after a failed poll, reads the next as a fresh collector would", async () => {
    const first = Array.from({ length: 200 }, (_, index) => makePool(index + 1));
    let pages: unknown[][] = [];
    const client = {
      liquidityPools: async (): Promise<RawRecords> => {
        const page = pages.shift();
        if (page === undefined) throw new PollError("network", "gone");
        return page;
      },
    } as unknown as HorizonClient;
    const job = new LiquidityPoolsCollector(client, { max: 1_000, reserves: [], ids: [] }, TIMING);
    pages = [structuredClone(first), [makePool(300)]];
    await poll(job);
    // The second poll reads a first page of changed pools, then fails.
    const changed = first.map((pool, index) => ({ ...pool, total_shares: `${index}.0000000` }));
    pages = [structuredClone(changed)];
    await expect(poll(job)).rejects.toThrow("gone");
    pages = [structuredClone(first), [makePool(301)]];
    await poll(job);
    expect(job.samples().live).toEqual((await fresh([first, [makePool(301)]])).live);
  });

  // The cache's worst cases: nothing to reuse, records that are no pools, and the largest records.
  it("every pool changed at every poll: 1 000 pools, three polls, each as a fresh collector reads it", async () => {
    const { poll: pollAgain } = pollsOf(1_000);
    for (let round = 0; round < 3; round += 1) {
      const pools = Array.from({ length: 1_000 }, (_, index) =>
        makePool(index + 1, { total_shares: `${round}.${String(index).padStart(7, "0")}` }),
      );
      const pages = Array.from({ length: 5 }, (_, page) => pools.slice(page * 200, page * 200 + 200));
      const { invalid, live } = await pollAgain(pages);
      expect(invalid).toEqual([]);
      expect(live).toEqual((await fresh(pages)).live);
      expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(1_000).id as string)).toBe(
        Number(`${round}.0000999`),
      );
    }
  });

  it("a page of tiny records after a page of pools: all counted, none kept", async () => {
    const { poll: pollAgain } = pollsOf();
    await pollAgain(onePage(Array.from({ length: 199 }, (_, index) => makePool(index + 1))));
    const tiny = Array.from({ length: 199 }, (_, index) => (index % 2 === 0 ? {} : { id: makePool(index + 1).id }));
    const { invalid, live } = await pollAgain(onePage(tiny));
    expect(invalid).toEqual([199]);
    expect(live).toEqual([{ metric: expect.objectContaining({ name: "stellar_horizon_liquidity_pools" }), value: 0 }]);
  });

  it("a pool padded to 3 MiB is read whole, then kept while sent alike; a 3 MiB shares string is invalid", async () => {
    const { poll: pollAgain } = pollsOf();
    const padded = makePool(1, { padding: "x".repeat(3 * 1024 * 1024) });
    for (let round = 0; round < 2; round += 1) {
      const { invalid, live } = await pollAgain(onePage([padded, makePool(2)]));
      expect(invalid).toEqual([]);
      expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(1).id as string)).toBe(1001.5);
    }
    const huge = makePool(1, { total_shares: "1".repeat(3 * 1024 * 1024) });
    const { invalid, live } = await pollAgain(onePage([huge, makePool(2)]));
    expect(invalid).toEqual([1]);
    expect(valueOf(live, "stellar_horizon_liquidity_pools")).toBe(1);
  });
});
