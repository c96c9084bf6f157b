// Each answer of an accounts poll restarts its quiet timer, an account's pages of offers included: the plan counts
// them (six a list), so a poll reading them from a slow Horizon may take its `requestsPerRun` budgets, not one.
import { describe, expect, it } from "vitest";
import { AccountsClient } from "../src/client/accounts.js";
import { AccountsCollector } from "../src/collectors/accounts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { NetworkView } from "../src/job/network.js";
import { fixtureJson } from "./support/fixtures.js";
import { runnerFor } from "./support/job-harness.js";
import { ManualClock } from "./support/manual-clock.js";

const DOCUMENT = fixtureJson<{ account_id: string }>("account-stellar-docs.json");

/** A Horizon answering `answerMs` after each request, on `clock`: the account's document, and full pages of invalid
 * offers (each with a fresh paging token), so the offers are read to their cap. */
function slowHorizon(clock: ManualClock, answerMs: number) {
  const asked: string[] = [];
  const getValidated = (
    _endpoint: string,
    path: string,
    query: Record<string, unknown>,
    schema: { parse(value: unknown): unknown },
    signal?: AbortSignal,
  ) =>
    new Promise((resolve, reject) => {
      asked.push(path.endsWith("/offers") ? "offers" : "account");
      const records = Array.from({ length: Number(query.limit) }, (_, i) => ({
        id: "",
        paging_token: `${asked.length}${i}`,
      }));
      const body = path.endsWith("/offers") ? { _embedded: { records } } : DOCUMENT;
      const timer = clock.setTimeout(() => resolve(schema.parse(body)), answerMs);
      signal?.addEventListener("abort", () => (clock.clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  return { client: new AccountsClient({ getValidated } as never), asked };
}

describe("the accounts poll's deadline", () => {
  it("lets a poll reading an account's offers to their cap, answered every 20 s, finish (30 s budget from each answer)", async () => {
    const clock = new ManualClock(Date.UTC(2024, 6, 8, 9, 47, 30));
    const horizon = slowHorizon(clock, 20_000);
    const account = {
      name: "treasury",
      id: DOCUMENT.account_id,
      lowBalance: {},
      offers: true,
      claimableBalances: false,
      cold: false,
    };
    const timing = { schedule: parseSchedule("15s") as Schedule, requestsPerRun: 1 + 6 };
    const job = new AccountsCollector(horizon.client, [account], new NetworkView(), timing);
    // 15 s period, freshness 3 periods, 10 s timeout with 2 retries: a request budget of min(45 s, 30 s) = 30 s.
    const { runner } = runnerFor(job, { clock });
    const running = runner.run();
    for (let step = 0; step < 7; step += 1) await clock.advance(20_000);
    await running;
    // The account, then five full pages of offers and the one-record page past the cap: 140 s, one answer every 20 s.
    expect(runner.snapshot().lastError).toBeUndefined();
    expect(horizon.asked).toEqual(["account", ...Array<string>(6).fill("offers")]);
    expect(runner.snapshot().lastSuccessMs).toBeDefined();
  });
});
