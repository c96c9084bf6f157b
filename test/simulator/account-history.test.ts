import { Horizon, Keypair } from "@stellar/stellar-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { HorizonClient } from "../../src/client/horizon-client.js";
import { AccountActivityJob } from "../../src/collectors/account-activity.js";
import { failureCode } from "../../src/collectors/payment-records.js";
import type { WatchedAccount } from "../../src/config/accounts.js";
import { parseSchedule, type Schedule } from "../../src/config/schedule.js";
import { renderSamples } from "../support/render-samples.js";
import {
  COLD_WALLET,
  HOT_WALLET,
  startSimulator,
  USDC,
  type RunningSimulator,
  type StartOptions,
} from "../../src/simulator/index.js";
import { parseExposition, valueOf } from "../support/exposition.js";
import { ManualClock } from "./helpers.js";
import { pollContext } from "../support/poll-context.js";

const running: RunningSimulator[] = [];
const SCHEDULE = parseSchedule("30s") as Schedule;
const STROOPS = 10_000_000n;

async function start(options: StartOptions = {}): Promise<{ simulator: RunningSimulator; clock: ManualClock }> {
  const clock = new ManualClock(Date.now());
  const simulator = await startSimulator({
    host: "127.0.0.1",
    port: 0,
    ledgerIntervalMs: 5000,
    now: clock.now,
    ...options,
  });
  running.push(simulator);
  return { simulator, clock };
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

function watched(name: string, id: string, options: Partial<WatchedAccount> = {}): WatchedAccount {
  return { name, id, lowBalance: {}, offers: false, claimableBalances: false, cold: false, activity: true, ...options };
}

function activityJob(url: string, accounts: WatchedAccount[]): AccountActivityJob {
  const client = new HorizonClient({ url, timeoutMs: 5000, retries: 0, maxBodyBytes: 8 << 20 });
  return new AccountActivityJob(client, accounts, SCHEDULE);
}

const poll = (job: AccountActivityJob) => job.run(pollContext());

async function series(job: AccountActivityJob): Promise<Map<string, number>> {
  const samples = job.samples();
  const rendered = await renderSamples("h", [...samples.persistent, ...samples.live]);
  return parseExposition(rendered);
}

/** Every record of an account's stream through the SDK, following `next()`. */
async function allRecords<T extends Horizon.HorizonApi.BaseResponse & { paging_token: string }>(
  call: () => Promise<Horizon.ServerApi.CollectionPage<T>>,
): Promise<T[]> {
  const records: T[] = [];
  let page = await call();
  while (page.records.length > 0) {
    records.push(...page.records);
    page = await page.next();
  }
  return records;
}

describe("the simulator's account streams", () => {
  it("the official SDK reads payments, transactions (failed ones too) and operations for an account", async () => {
    const { simulator, clock } = await start({ scenario: "failed_transactions" });
    clock.tick(10 * 60_000);
    const server = new Horizon.Server(simulator.url, { allowHttp: true });
    const payments = await allRecords(() => server.payments().forAccount(HOT_WALLET).limit(7).call());
    expect(payments.length).toBeGreaterThanOrEqual(15);
    expect(new Set(payments.map((record) => record.type))).toEqual(new Set(["payment", "path_payment_strict_send"]));
    expect(payments.every((record) => record.transaction_successful)).toBe(true);
    const tokens = payments.map((record) => BigInt(record.paging_token));
    expect(tokens).toEqual([...tokens].sort((a, b) => (a < b ? -1 : 1)));
    const received = payments.filter((record) => record.type === "payment" && record.to === HOT_WALLET);
    expect(received.length).toBeGreaterThanOrEqual(9);

    const transactions = await allRecords(() =>
      server.transactions().forAccount(HOT_WALLET).includeFailed(true).limit(50).call(),
    );
    const failed = transactions.filter((record) => !record.successful);
    expect(failed.length).toBeGreaterThan(0);
    for (const record of failed) {
      expect(failureCode(record)).toBe("op_underfunded");
    }
    const successfulOnly = await allRecords(() => server.transactions().forAccount(HOT_WALLET).limit(50).call());
    expect(successfulOnly.length).toBe(transactions.length - failed.length);

    simulator.simulator.setScenario("signer_change");
    const operations = await allRecords(() => server.operations().forAccount(COLD_WALLET).call());
    expect(operations.map((record) => [record.type, record.type_i])).toEqual([["set_options", 5]]);

    await expect(server.payments().forAccount(Keypair.random().publicKey()).call()).rejects.toMatchObject({
      response: { status: 404 },
    });
  });

  it("the activity job's counters equal the sums over the records served after its first poll", async () => {
    const { simulator, clock } = await start();
    clock.tick(5 * 60_000);
    const job = activityJob(simulator.url, [watched("hot", HOT_WALLET, { operations: true })]);
    await poll(job);
    const server = new Horizon.Server(simulator.url, { allowHttp: true });
    const before = await allRecords(() => server.payments().forAccount(HOT_WALLET).limit(200).call());
    const cursor = before.at(-1)!.paging_token;
    for (let minute = 0; minute < 12; minute++) {
      clock.tick(60_000);
      await poll(job);
    }
    const after = await allRecords(() => server.payments().forAccount(HOT_WALLET).cursor(cursor).limit(200).call());
    let receivedUsdc = 0n;
    let sentNative = 0n;
    for (const record of after) {
      if (record.type === "payment" && record.to === HOT_WALLET) receivedUsdc += BigInt(record.amount.replace(".", ""));
      if (record.type === "payment" && record.from === HOT_WALLET) sentNative += BigInt(record.amount.replace(".", ""));
      if (record.type === "path_payment_strict_send") sentNative += BigInt(record.source_amount.replace(".", ""));
    }
    const values = await series(job);
    const at = (labels: Record<string, string>) => ({ horizon: "h", account: "hot", ...labels });
    expect(receivedUsdc).toBeGreaterThan(0n);
    expect(
      valueOf(values, "stellar_horizon_account_payment_amount_total", at({ direction: "received", asset: USDC })),
    ).toBe(Number(receivedUsdc) / Number(STROOPS));
    expect(
      valueOf(values, "stellar_horizon_account_payment_amount_total", at({ direction: "sent", asset: "native" })),
    ).toBe(Number(sentNative) / Number(STROOPS));
    expect(valueOf(values, "stellar_horizon_account_payments_total", at({ direction: "received", asset: USDC }))).toBe(
      after.filter((record) => record.type === "payment" && record.to === HOT_WALLET).length,
    );
    const transactions = await allRecords(() =>
      server.transactions().forAccount(HOT_WALLET).includeFailed(true).limit(200).call(),
    );
    // Each transaction here carries one payment: the first poll's newest transaction is the newest payment's.
    const firstPollTransaction = (BigInt(cursor) >> 12n) << 12n;
    const own = transactions.filter(
      (record) => record.source_account === HOT_WALLET && BigInt(record.paging_token) > firstPollTransaction,
    );
    expect(own.length).toBeGreaterThan(0);
    expect(valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "successful" }))).toBe(
      own.length,
    );
  });

  it("network_reset forgets every account's history and every trade: the new chain's alone, with low tokens", async () => {
    const { simulator, clock } = await start();
    clock.tick(5 * 60_000);
    const server = new Horizon.Server(simulator.url, { allowHttp: true });
    const ledgerOf = (token: string) => Number(BigInt(token.split("-")[0]!) >> 32n);
    const served = async () => [
      ...(await allRecords(() => server.payments().forAccount(HOT_WALLET).limit(50).call())),
      ...(await allRecords(() => server.trades().limit(200).call())),
    ];
    const before = await served();
    expect(Math.max(...before.map((record) => ledgerOf(record.paging_token)))).toBeGreaterThan(1000);
    simulator.simulator.setScenario("network_reset");
    // The new chain's first ledgers, closed at the reset, carry trades of their own; later ones a payment too.
    const atReset = await served();
    clock.tick(5 * 60_000);
    const later = await served();
    expect(atReset.length).toBeGreaterThan(0);
    expect(later.length).toBeGreaterThan(atReset.length);
    expect(Math.max(...later.map((record) => ledgerOf(record.paging_token)))).toBeLessThan(100);
    expect(later.filter((record) => "type" in record && record.type === "payment").length).toBeGreaterThan(0);
  });

  it("deposits stop in deposits_stopped, and account_drain sends the hot wallet's lumens away", async () => {
    const { simulator, clock } = await start();
    const job = activityJob(simulator.url, [watched("hot", HOT_WALLET)]);
    await poll(job);
    clock.tick(2 * 60_000);
    await poll(job);
    const received = async () =>
      valueOf(await series(job), "stellar_horizon_account_payments_total", {
        horizon: "h",
        account: "hot",
        direction: "received",
        asset: USDC,
      });
    const flowing = await received();
    expect(flowing).toBeGreaterThan(0);
    simulator.simulator.setScenario("deposits_stopped");
    clock.tick(5 * 60_000);
    await poll(job);
    // At most the deposit of the ledger the scenario began in.
    expect((await received())! - flowing!).toBeLessThanOrEqual(1);
    const stopped = await received();
    clock.tick(5 * 60_000);
    await poll(job);
    expect(await received()).toBe(stopped);

    simulator.simulator.setScenario("account_drain");
    clock.tick(10_000);
    await poll(job);
    const sent = valueOf(await series(job), "stellar_horizon_account_payment_amount_total", {
      horizon: "h",
      account: "hot",
      direction: "sent",
      asset: "native",
    });
    expect(sent).toBeGreaterThan(5000);
  });
});
