import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { HorizonClient, Query, RawRecords } from "../src/client/horizon-client.js";
import { LiquidityPoolsCollector } from "../src/collectors/liquidity-pools.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import type { Sample } from "../src/exposition/samples.js";
import { makePool } from "./support/fake-horizon.js";

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
