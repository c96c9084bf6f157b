// The 20 claimable assets with an amount are kept across polls: a new spam balance whose id Horizon lists first
// never pushes out an asset already shown.
import { Keypair } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { AccountsClient } from "../src/client/accounts.js";
import { AccountsCollector } from "../src/collectors/accounts.js";
import type { WatchedAccount } from "../src/config/accounts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { NetworkView } from "../src/job/network.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { fixtureJson } from "./support/fixtures.js";
import { pollContext } from "./support/poll-context.js";
import { renderSamples } from "./support/render-samples.js";

type Query = Record<string, unknown>;

describe("a claimable amount series of a real asset", () => {
  it("stays once shown, when one more spam claimable balance arrives", async () => {
    const document = fixtureJson<{ account_id: string }>("account-stellar-docs.json");
    const issuer = Keypair.random().publicKey();
    const usdc = `USDC:${issuer}`;
    const balance = (idByte: number, asset: string) => ({
      id: `00000000${idByte.toString(16).padStart(64, "0")}`,
      paging_token: `${idByte}`,
      asset,
      amount: "1.0000000",
    });
    // 18 spam assets, then the account's real USDC balance: with native, 20 assets, all shown.
    let balances = [...Array.from({ length: 18 }, (_, i) => balance(i + 10, `SPAM${i}:${issuer}`)), balance(200, usdc)];
    const horizon = {
      getValidated: async (
        _endpoint: string,
        path: string,
        query: Query,
        schema: { parse(value: unknown): unknown },
      ) => {
        if (path.startsWith("accounts/")) return schema.parse(document);
        const after = query.cursor === undefined ? -1 : Number(query.cursor);
        const records = balances.filter((record) => Number(record.paging_token) > after);
        return schema.parse({ _embedded: { records: records.slice(0, Number(query.limit)) } });
      },
    };
    const account: WatchedAccount = {
      name: "treasury",
      id: document.account_id,
      lowBalance: {},
      offers: false,
      claimableBalances: true,
      cold: false,
    };
    const collector = new AccountsCollector(new AccountsClient(horizon as never), [account], new NetworkView(), {
      schedule: parseSchedule("1m") as Schedule,
      requestsPerRun: 2,
    });
    const usdcAmount = async () => {
      await collector.run(pollContext() as never);
      const { persistent, live } = collector.samples();
      const values = parseExposition(await renderSamples("h", [...persistent, ...live]));
      return valueOf(values, "stellar_horizon_account_claimable_amount", {
        horizon: "h",
        account: "treasury",
        asset: usdc,
      });
    };
    expect(await usdcAmount()).toBe(1);
    // Someone sends the account one more spam claimable balance; its id happens to sort before USDC's.
    balances = [balance(1, `SPAMNEW:${issuer}`), ...balances];
    expect(await usdcAmount()).toBe(1);
  });
});
