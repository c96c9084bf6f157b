import { afterEach, expect, it, vi } from "vitest";
import type { HorizonClient, Query } from "../src/client/horizon-client.js";
import { scanPage } from "../src/client/page-scan.js";
import { LIQUIDITY_POOL_FIELDS, liquidityPoolSchema } from "../src/client/schemas.js";
import type { PollContext } from "../src/collectors/collector.js";
import { LiquidityPoolsCollector } from "../src/collectors/liquidity-pools.js";
import { makePool, type JsonRecord } from "./support/fake-horizon.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";

const TIMING = { schedule: parseSchedule("1m") as Schedule, requestsPerRun: 1 };

afterEach(() => {
  vi.restoreAllMocks();
});

/** A client serving `pools` as one page, scanned from the bytes of a fresh page on every request, like the wire. */
function clientServing(pools: () => JsonRecord[]): HorizonClient {
  const page = (records: JsonRecord[]) =>
    scanPage(Buffer.from(JSON.stringify({ _embedded: { records } })), LIQUIDITY_POOL_FIELDS);
  return {
    liquidityPools: async (query: Query) => page(query.cursor === undefined ? pools() : []),
  } as unknown as HorizonClient;
}

it("validates a pool again only when its raw values changed", async () => {
  let pools = [1, 2, 3].map((index) => makePool(index));
  const collector = new LiquidityPoolsCollector(
    clientServing(() => pools),
    { max: 10, reserves: [], ids: [] },
    TIMING,
  );
  const parse = vi.spyOn(liquidityPoolSchema, "safeParse");
  let invalid = 0;
  const context: PollContext = {
    signal: new AbortController().signal,
    invalidRecords: (count) => (invalid += count),
    progressed: () => {},
  };
  const shares = () =>
    [...collector.samples().live]
      .filter((sample) => sample.metric.name === "stellar_horizon_liquidity_pool_shares")
      .map((sample) => ("value" in sample ? sample.value : NaN));

  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(3);
  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(3);

  const before = [...collector.samples().live];
  pools = [makePool(1), makePool(2, { total_shares: "7.0000000", last_modified_ledger: 99 }), makePool(3)];
  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(4);
  expect(shares()).toEqual([1001.5, 7, 1003.5]);
  // Unchanged pools keep their very sample objects (so rendering can copy their lines); pool 2's are new.
  const after = [...collector.samples().live];
  const kept = after.map((sample, index) => sample === before[index]);
  const ofPool = (index: number) =>
    after.map(
      (sample) =>
        sample.labels !== undefined && "pool_id" in sample.labels && sample.labels.pool_id === makePool(index).id,
    );
  expect(kept.filter((_, index) => ofPool(1)[index] || ofPool(3)[index])).toEqual(new Array(10).fill(true));
  expect(kept.filter((_, index) => ofPool(2)[index])).toEqual([false, false, false, false, false]);

  // A change to an invalid value is caught, not served from the cache.
  pools = [makePool(1), makePool(2, { total_shares: 7, last_modified_ledger: 100 }), makePool(3)];
  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(5);
  expect(invalid).toBe(1);
  expect(shares()).toEqual([1001.5, 1003.5]);
});

it("recognises unchanged pools wherever they move: added, removed and reordered pools", async () => {
  let pools = [1, 2, 3].map((index) => makePool(index));
  const collector = new LiquidityPoolsCollector(
    clientServing(() => pools),
    { max: 10, reserves: [], ids: [] },
    TIMING,
  );
  const parse = vi.spyOn(liquidityPoolSchema, "safeParse");
  const context: PollContext = {
    signal: new AbortController().signal,
    invalidRecords: () => undefined,
    progressed: () => {},
  };
  const trustlines = () =>
    [...collector.samples().live]
      .filter((sample) => sample.metric.name === "stellar_horizon_liquidity_pool_trustlines")
      .map((sample) => ("value" in sample ? sample.value : NaN));

  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(3);
  pools = [1, 4, 2, 3].map((index) => makePool(index));
  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(4);
  pools = [2, 3].map((index) => makePool(index));
  await collector.run(context);
  expect(parse).toHaveBeenCalledTimes(4);
  pools = [3, 1, 2].map((index) => makePool(index));
  await collector.run(context);
  // Pool 1 left in the poll before, so it is new again; 3 and 2 are recognised out of order.
  expect(parse).toHaveBeenCalledTimes(5);
  expect(trustlines()).toEqual([makePool(3), makePool(1), makePool(2)].map((pool) => Number(pool.total_trustlines)));
});

it("keeps each pool once, whether its duplicate arrives in id order or out of it", async () => {
  const ids = (collector: LiquidityPoolsCollector) =>
    collector
      .samples()
      .live.filter((sample) => sample.metric.name === "stellar_horizon_liquidity_pool_shares")
      .map((sample) => (sample.labels as { pool_id: string }).pool_id);
  const context: PollContext = {
    signal: new AbortController().signal,
    invalidRecords: () => undefined,
    progressed: () => {},
  };
  for (const order of [
    [1, 2, 2, 3],
    [3, 1, 2, 1, 4],
  ]) {
    const collector = new LiquidityPoolsCollector(
      clientServing(() => order.map((index) => makePool(index))),
      { max: 10, reserves: [], ids: [] },
      TIMING,
    );
    await collector.run(context);
    expect(ids(collector), String(order)).toEqual([...new Set(order)].map((index) => makePool(index).id));
  }
});
