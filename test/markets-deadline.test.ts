// Each answer of a markets poll restarts its quiet timer: a poll of several requests may take its `requestsPerRun`
// budgets (docs/architecture.md, "Jobs"), not one.
import { describe, expect, it } from "vitest";
import type { HorizonClient, Query } from "../src/client/horizon-client.js";
import { MarketsJob } from "../src/collectors/markets.js";
import type { WatchedMarket } from "../src/config/markets.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { runnerFor } from "./support/job-harness.js";
import { ManualClock } from "./support/manual-clock.js";

const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const MAKER = "GBJPWEIFX6KO4H52BF3QJDYRCLXB2P3Z3QTKWUGFOOFH5MSRZV4WLRZ7";
const OTHER = "GAKC3P3LQKBRCPOQ3ACI6NHKDNHKTIPGTX7EPOC3SGCMLQK4K3WYICWK";

/** A Horizon answering every markets request with an empty page, `answerMs` after it was asked, on `clock`. */
function slowHorizon(clock: ManualClock, answerMs: number) {
  const asked: string[] = [];
  const marketPage = (path: string, _query: Query, signal?: AbortSignal) =>
    new Promise<unknown[]>((resolve, reject) => {
      asked.push(path);
      const timer = clock.setTimeout(() => resolve([]), answerMs);
      signal?.addEventListener("abort", () => (clock.clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  return { client: { marketPage } as unknown as HorizonClient, asked };
}

describe("the markets poll's deadline", () => {
  it("lets a markets poll of 6 requests answered every 10 s finish (30 s budget from each answer)", async () => {
    const clock = new ManualClock(Date.UTC(2024, 6, 8, 9, 47, 30));
    const horizon = slowHorizon(clock, 10_000);
    const market: WatchedMarket = {
      name: "m",
      base: "native",
      counter: USDC,
      resolutionMs: 60_000,
      makers: [MAKER, OTHER],
    };
    const job = new MarketsJob(horizon.client, [market], parseSchedule("15s") as Schedule, () => clock.now());
    // A bucket, a page of trades, and two makers' offers on two sides, planned at their 5-page cap.
    expect(job.requestsPerRun).toBe(2 + 2 * 2 * 5);
    // 15 s period, freshness 3 periods, 10 s timeout with 2 retries: a request budget of min(45 s, 30 s) = 30 s.
    const { runner } = runnerFor(job, { clock });
    const running = runner.run();
    for (let step = 0; step < 6; step += 1) await clock.advance(10_000);
    await running;
    // All six requests were answered, 10 s apart: 60 s in all, twice the budget a silent run would get.
    expect(runner.snapshot().lastError).toBeUndefined();
    expect(horizon.asked).toEqual(["trade_aggregations", "trades", "offers", "offers", "offers", "offers"]);
    expect(runner.snapshot().lastSuccessMs).toBeDefined();
  });
});
