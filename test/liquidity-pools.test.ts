import { describe, expect, it } from "vitest";
import type { HorizonClient, Query, RawRecords } from "../src/client/horizon-client.js";
import { LiquidityPoolsCollector } from "../src/collectors/liquidity-pools.js";
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
  return job.poll({ signal, invalidRecords: (count) => invalid.push(count) }).then(() => invalid);
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

describe("LiquidityPoolsCollector", () => {
  it("leaves an invalid record out, counted once, and still moves the cursor past it", async () => {
    const first = Array.from({ length: 200 }, (_, index) => makePool(index + 1));
    // The page's last record is invalid: its paging token is still the next cursor.
    first[199] = { ...first[199], total_shares: "not an amount" };
    const { client, queries } = pagesClient([first, [makePool(500)]]);
    const job = new LiquidityPoolsCollector(client, { max: 1_000, reserves: [], ids: [] });
    expect(await poll(job)).toEqual([1]);
    expect(queries.map((query) => query.cursor)).toEqual([undefined, makePool(200).paging_token]);
    const { live } = job.samples();
    expect(valueOf(live, "stellar_horizon_liquidity_pools")).toBe(200);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(1).id as string)).toBe(1001.5);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(200).id as string)).toBeUndefined();
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(500).id as string)).toBe(1500.5);
  });

  it("keeps each pool once, the first record of it, and at most max", async () => {
    const { client } = pagesClient([
      [makePool(1), makePool(1, { total_shares: "9.0000000" }), makePool(2), makePool(3)],
    ]);
    const job = new LiquidityPoolsCollector(client, { max: 2, reserves: [], ids: [] });
    expect(await poll(job)).toEqual([]);
    const { live } = job.samples();
    expect(valueOf(live, "stellar_horizon_liquidity_pools")).toBe(2);
    expect(valueOf(live, "stellar_horizon_liquidity_pool_shares", makePool(1).id as string)).toBe(1001.5);
  });

  it("a page of a hundred thousand records with nothing but a paging token lets the event loop turn while they are validated", async () => {
    const { client } = pagesClient([Array.from({ length: 100_000 }, (_, index) => ({ paging_token: `p${index}` }))]);
    const job = new LiquidityPoolsCollector(client, { max: 10, reserves: [], ids: [] });
    let turns = 0;
    let turning = true;
    const turn = () => {
      turns += 1;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    expect(await poll(job)).toEqual([100_000]);
    turning = false;
    // One turn at least per slice of records.
    expect(turns).toBeGreaterThanOrEqual(100_000 / 200);
    expect(valueOf(job.samples().live, "stellar_horizon_liquidity_pools")).toBe(0);
  });

  it("stops validating a page once the poll is aborted, counting what it read", async () => {
    const { client } = pagesClient([Array.from({ length: 100_000 }, (_, index) => ({ paging_token: `p${index}` }))]);
    const job = new LiquidityPoolsCollector(client, { max: 10, reserves: [], ids: [] });
    const controller = new AbortController();
    setImmediate(() => setImmediate(() => controller.abort(new Error("deadline"))));
    const invalid: number[] = [];
    const polled = job.poll({ signal: controller.signal, invalidRecords: (count) => invalid.push(count) });
    await expect(polled).rejects.toThrow("deadline");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toBeLessThan(100_000);
  });
});
