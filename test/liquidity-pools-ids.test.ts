/** Liquidity pools tracked by id: each once, under its own id. */
import { expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { HorizonClient } from "../src/client/horizon-client.js";
import { liquidityPoolSchema } from "../src/client/schemas.js";
import { LiquidityPoolsCollector } from "../src/collectors/liquidity-pools.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { runConfig, writeConfig } from "./support/config-files.js";
import { makePool } from "./support/fake-horizon.js";
import { pollContext } from "./support/poll-context.js";
import { renderSamples } from "./support/render-samples.js";

const TIMING = { schedule: parseSchedule("15s") as Schedule, requestsPerRun: 1 };
const A = makePool(1).id as string;
const B = makePool(2).id as string;

/** A Horizon answering `/liquidity_pools/:id` with the record `answer` gives for the id. */
function byIdClient(answer: (id: string) => unknown) {
  return {
    liquidityPool: async (id: string) => liquidityPoolSchema.parse(answer(id)),
  } as unknown as HorizonClient;
}

async function exposition(job: LiquidityPoolsCollector): Promise<string[]> {
  await job.run(pollContext());
  return (await renderSamples("h", job.samples().live))
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"));
}

it("a pool id listed twice in the configuration is tracked once: no duplicate series, a count of 1", async () => {
  const path = writeConfig(`targets: [{ url: "http://127.0.0.1:8000" }]\nliquidity_pools: { ids: ["${A}", "${A}"] }\n`);
  const config = await runConfig([`--config.file=${path}`]);
  // The configuration takes the list as given.
  const job = new LiquidityPoolsCollector(
    byIdClient((id) => makePool(id === A ? 1 : 2)),
    config.liquidityPools,
    TIMING,
  );
  const lines = await exposition(job);
  expect(lines).toContain('stellar_horizon_liquidity_pools{horizon="h"} 1');
  expect(new Set(lines).size).toBe(lines.length);
});

it("a pool record answered for another id than asked for is not shown under that other id", async () => {
  // A proxy (or a broken cache) answers every /liquidity_pools/:id with pool A's record.
  const job = new LiquidityPoolsCollector(
    byIdClient(() => makePool(1)),
    { max: 10, reserves: [], ids: [A, B] },
    TIMING,
  );
  const lines = await exposition(job);
  expect(new Set(lines).size).toBe(lines.length);
  expect(lines).toContain('stellar_horizon_liquidity_pools{horizon="h"} 1');
});

it("a pool Horizon says is gone stops being tracked; a 404 that is not its not_found problem fails the poll", async () => {
  const notFound = { type: "https://stellar.org/horizon-errors/not_found", title: "Resource Missing", status: 404 };
  const gone = new LiquidityPoolsCollector(
    byIdClient((id) => {
      if (id === B) throw new PollError("http_4xx", "HTTP 404", { status: 404, problem: notFound });
      return makePool(1);
    }),
    { max: 10, reserves: [], ids: [A, B] },
    TIMING,
  );
  expect(await exposition(gone)).toContain('stellar_horizon_liquidity_pools{horizon="h"} 1');
  // A proxy's page: the pool may well exist, and must not silently drop out.
  const proxied = new LiquidityPoolsCollector(
    byIdClient((id) => {
      if (id === B) throw new PollError("http_4xx", "HTTP 404: <title>Not Found</title>", { status: 404 });
      return makePool(1);
    }),
    { max: 10, reserves: [], ids: [A, B] },
    TIMING,
  );
  await expect(proxied.run(pollContext())).rejects.toMatchObject({ reason: "http_4xx" });
});
