import { describe, expect, it } from "vitest";
import { inShard } from "../src/config/shard.js";
import { plannedRequestsPerHour, requestsPerPoll } from "../src/scheduler/request-plan.js";
import { deterministicAccountId } from "../src/simulator/accounts.js";
import { configFrom } from "./support/exporter-harness.js";

/** One account on each of two shards. */
const ACCOUNTS = [0, 1].map(
  (index) =>
    Array.from({ length: 16 }, (_, n) => deterministicAccountId(`plan ${n}`)).find((id) =>
      inShard({ index, total: 2 }, id),
    )!,
);

/** A Horizon target watching both accounts, polled every 15 s, on the given shard. */
async function target(shard: string) {
  const config = await configFrom([
    "--horizon.url=t=http://127.0.0.1:9",
    "--poll.interval=15s",
    ...ACCOUNTS.map((id, index) => `--account=a${index}=${id}`),
    `--shard=${shard}`,
  ]);
  return { config, target: config.targets[0]! };
}

describe("the request plan", () => {
  it("gives an accounts poll the base reserve read it sends on a shard other than 0, in its deadline's budget and in the hourly plan alike", async () => {
    const zero = await target("0/2");
    const one = await target("1/2");
    expect(requestsPerPoll("accounts", zero.target, zero.config)).toBe(1);
    expect(requestsPerPoll("accounts", one.target, one.config)).toBe(2);
    // 240 polls an hour: shard 0 polls root, fee_stats, ledgers (one request each), pools (two pages) and the account.
    expect(plannedRequestsPerHour(zero.target, zero.config)).toBe(240 * 6);
    // Shard 1 polls the account and reads the base reserve, nothing else.
    expect(plannedRequestsPerHour(one.target, one.config)).toBe(240 * 2);
  });

  it("counts an account's offers and its claimable balances at their cap: five full pages and one past it, each", async () => {
    const zero = await target("0/2");
    const one = await target("1/2");
    const listing = (plan: typeof zero) => ({
      ...plan.target,
      accounts: plan.target.accounts.map((account) => ({ ...account, offers: true, claimableBalances: true })),
    });
    // The account, then up to 1000 offers and 1000 claimable balances: five pages of 200, and one to learn if more follow.
    expect(requestsPerPoll("accounts", listing(zero), zero.config)).toBe(1 + 6 + 6);
    expect(requestsPerPoll("accounts", listing(one), one.config)).toBe(1 + 1 + 6 + 6);
    expect(plannedRequestsPerHour(listing(zero), zero.config)).toBe(240 * (5 + 13));
    expect(plannedRequestsPerHour(listing(one), one.config)).toBe(240 * 14);
  });
});
