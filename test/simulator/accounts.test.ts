import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { accountSchema, claimableBalanceSchema, offerSchema } from "../../src/client/account-schemas.js";
import { AccountError, COLD_WALLET, HOT_WALLET, USDC } from "../../src/simulator/index.js";
import { fixture, getJson, simulatorAt, typeSignature } from "./helpers.js";

const STROOPS = 10_000_000n;

function keysOf(value: unknown): string[] {
  return Object.keys(value as Record<string, unknown>);
}

describe("GET /accounts/:id", () => {
  it("serves an account in Horizon's wire format and key order", async () => {
    const { simulator } = simulatorAt();
    const { status, body, headers } = await getJson(simulator, `/accounts/${HOT_WALLET}`);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("application/hal+json; charset=utf-8");
    const captured = fixture("account-java-sdk.json") as Record<string, any>;
    // The capture lacks `sponsor` only; the hot wallet has no inflation destination.
    expect(keysOf(body)).toEqual(keysOf(captured).filter((key) => key !== "inflation_destination"));
    expect(keysOf(body._links)).toEqual(keysOf(captured._links));
    expect(typeSignature(body.thresholds)).toEqual(typeSignature(captured.thresholds));
    expect(typeSignature(body.flags)).toEqual(typeSignature(captured.flags));
    expect(keysOf(body.balances[0])).toEqual(keysOf(captured.balances[0]));
    expect(keysOf(body.balances[1])).toEqual(keysOf(captured.balances[1]));
    expect(keysOf(body.balances.at(-1))).toEqual(keysOf(captured.balances.at(-1)));
    expect(typeSignature(body.signers)).toEqual(typeSignature(captured.signers));
    const account = accountSchema.parse(body);
    expect(account.id).toBe(HOT_WALLET);
    expect(account.balances.find((balance) => balance.asset === "native")).toEqual({
      asset: "native",
      balance: 25000,
      buyingLiabilities: 0,
      sellingLiabilities: 300,
    });
    expect(account.balances.find((balance) => balance.asset === USDC)).toMatchObject({
      balance: 30000,
      limit: 50000,
      authorized: true,
    });
    // 2 trustline entries for the pool share, 1 for USDC, 3 offers, 1 extra signer, 1 data entry.
    expect(account.subentryCount).toBe(8);
    expect(body.sequence).toMatch(/^\d{17,}$/);
  });

  it("serves the old Horizon shape without sequence_ledger and sequence_time", async () => {
    const { simulator } = simulatorAt();
    expect((await getJson(simulator, `/accounts/${COLD_WALLET}`)).body.sequence_ledger).toBeTypeOf("number");
    simulator.setScenario("old_horizon");
    const { body } = await getJson(simulator, `/accounts/${COLD_WALLET}`);
    expect(body).not.toHaveProperty("sequence_ledger");
    expect(body).not.toHaveProperty("sequence_time");
  });

  it("answers 404 for an unknown account and 400 for a bad or muxed id", async () => {
    const { simulator } = simulatorAt();
    const unknown = await getJson(simulator, `/accounts/${Keypair.random().publicKey()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe("https://stellar.org/horizon-errors/not_found");
    const muxed = StrKey.encodeMed25519PublicKey(
      Buffer.concat([StrKey.decodeEd25519PublicKey(HOT_WALLET), Buffer.alloc(8, 1)]),
    );
    for (const id of [muxed, HOT_WALLET.slice(0, -1) + (HOT_WALLET.endsWith("A") ? "B" : "A")]) {
      const bad = await getJson(simulator, `/accounts/${id}`);
      expect(bad.status).toBe(400);
      expect(bad.body.extras.invalid_field).toBe("account_id");
    }
  });

  it("moves the hot wallet's sequence with its traffic; the cold wallet stays still", async () => {
    const { simulator } = simulatorAt();
    const before = accountSchema.parse((await getJson(simulator, `/accounts/${HOT_WALLET}`)).body);
    const coldBefore = accountSchema.parse((await getJson(simulator, `/accounts/${COLD_WALLET}`)).body);
    simulator.advance(5000 * 24);
    const after = accountSchema.parse((await getJson(simulator, `/accounts/${HOT_WALLET}`)).body);
    const coldAfter = accountSchema.parse((await getJson(simulator, `/accounts/${COLD_WALLET}`)).body);
    expect(after.sequence - before.sequence).toBe(2n);
    expect(after.balances.at(-1)!.balance).toBe(25000 - 200 / 1e7);
    expect(after.sequenceLedger! % 12).toBe(0);
    expect(coldAfter.sequence).toBe(coldBefore.sequence);
    expect(coldAfter.sequenceLedger).toBe(coldBefore.sequenceLedger);
  });
});

describe("offers and claimable balances", () => {
  it("pages the hot wallet's offers like Horizon", async () => {
    const { simulator } = simulatorAt();
    const first = await getJson(simulator, `/accounts/${HOT_WALLET}/offers?limit=2`);
    expect(first.status).toBe(200);
    const records = first.body._embedded.records as Record<string, unknown>[];
    expect(records).toHaveLength(2);
    expect(keysOf(records[0])).toEqual(keysOf((fixture("offers-java-sdk.json") as any)._embedded.records[0]));
    for (const record of records) offerSchema.parse(record);
    const next = new URL(first.body._links.next.href);
    const second = await getJson(simulator, next.pathname + next.search);
    expect(second.body._embedded.records).toHaveLength(1);
    expect(Number(second.body._embedded.records[0].id)).toBeGreaterThan(Number(records[1]!.id));
    const cold = await getJson(simulator, `/accounts/${COLD_WALLET}/offers`);
    expect(cold.body._embedded.records).toEqual([]);
  });

  it("lists the balances an account can claim", async () => {
    const { simulator } = simulatorAt();
    const { status, body } = await getJson(simulator, `/claimable_balances?claimant=${COLD_WALLET}&limit=200`);
    expect(status).toBe(200);
    const balances = (body._embedded.records as unknown[]).map((record) => claimableBalanceSchema.parse(record));
    expect(balances.map((balance) => [balance.asset, balance.amount])).toEqual([
      [USDC, "1250.0000000"],
      ["native", "40.0000000"],
    ]);
    expect(keysOf(body._embedded.records[0])).toEqual(keysOf(fixture("claimable_balance-java-sdk.json") as any));
    const hot = await getJson(simulator, `/claimable_balances?claimant=${HOT_WALLET}&limit=1`);
    expect(hot.body._embedded.records).toHaveLength(1);
    expect((await getJson(simulator, "/claimable_balances?claimant=nope")).status).toBe(400);
  });
});

describe("account scenarios", () => {
  const account = async (simulator: ReturnType<typeof simulatorAt>["simulator"], id: string) => {
    const response = await getJson(simulator, `/accounts/${id}`);
    return response.status === 200 ? accountSchema.parse(response.body) : response.status;
  };

  it("signer_change adds a signer to the cold wallet and moves its sequence", async () => {
    const { simulator } = simulatorAt();
    const before = await account(simulator, COLD_WALLET);
    simulator.advance(5000);
    simulator.setScenario("signer_change");
    const after = await account(simulator, COLD_WALLET);
    if (typeof before === "number" || typeof after === "number") throw new Error("cold wallet missing");
    expect(after.signers).toHaveLength(before.signers.length + 1);
    expect(after.sequence).toBe(before.sequence + 1n);
    expect(after.sequenceLedger).toBe(simulator.state().ingestLatestLedger);
  });

  it("account_drain leaves the hot wallet just above its reserve and its USDC near the limit", async () => {
    const { simulator } = simulatorAt({ scenario: "account_drain" });
    const hot = await account(simulator, HOT_WALLET);
    if (typeof hot === "number") throw new Error("hot wallet missing");
    const native = hot.balances.find((balance) => balance.asset === "native")!;
    const minimum = (2 + hot.subentryCount + hot.numSponsoring - hot.numSponsored) * 0.5;
    expect(native.balance - minimum - native.sellingLiabilities!).toBeCloseTo(2.5, 7);
    expect(hot.balances.find((balance) => balance.asset === USDC)!.balance).toBe(48500);
  });

  it("account_merged removes the hot wallet and credits the cold one", async () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("account_merged");
    expect(await account(simulator, HOT_WALLET)).toBe(404);
    const cold = await account(simulator, COLD_WALLET);
    if (typeof cold === "number") throw new Error("cold wallet missing");
    expect(cold.balances.at(-1)!.balance).toBe(1_025_000);
    expect((await getJson(simulator, `/accounts/${HOT_WALLET}/offers`)).body._embedded.records).toEqual([]);
  });

  it("trustline_deauthorized revokes the hot wallet's USDC trustline", async () => {
    const { simulator } = simulatorAt({ scenario: "trustline_deauthorized" });
    const hot = await account(simulator, HOT_WALLET);
    if (typeof hot === "number") throw new Error("hot wallet missing");
    expect(hot.balances.find((balance) => balance.asset === USDC)!.authorized).toBe(false);
  });
});

describe("the accounts model", () => {
  it("adds accounts, bumps sequences, charges fees, refuses bad ids and duplicates", () => {
    const { simulator } = simulatorAt();
    const at = simulator.latestLedgerPoint();
    const id = Keypair.random().publicKey();
    simulator.accounts.add({ id, balance: 10n * STROOPS, sequence: 2n ** 60n }, at);
    expect(simulator.accounts.bumpSequence(id, at)).toBe(2n ** 60n + 1n);
    expect(simulator.accounts.bumpSequence(id, at, 2n ** 61n)).toBe(2n ** 61n);
    simulator.accounts.chargeFee(id, 100n, at);
    expect(simulator.accounts.get(id)!.balance).toBe(10n * STROOPS - 100n);
    expect(() => simulator.accounts.chargeFee(id, 11n * STROOPS, at)).toThrow(AccountError);
    expect(() => simulator.accounts.add({ id, balance: 1n }, at)).toThrow(/already exists/);
    expect(() => simulator.accounts.add({ id: "GABC", balance: 1n }, at)).toThrow(AccountError);
  });
});

describe("GET /liquidity_pools?account=", () => {
  it("lists the pools whose shares the account holds, as Horizon does, and none once it is merged", async () => {
    const { simulator } = simulatorAt();
    const hot = await getJson(simulator, `/accounts/${HOT_WALLET}`);
    const held = hot.body.balances
      .filter((balance: { asset_type: string }) => balance.asset_type === "liquidity_pool_shares")
      .map((balance: { liquidity_pool_id: string }) => balance.liquidity_pool_id);
    expect(held).toHaveLength(1);
    const ids = async (query: string) =>
      (await getJson(simulator, `/liquidity_pools?${query}`)).body._embedded.records.map(
        (pool: { id: string }) => pool.id,
      );
    expect(await ids(`account=${HOT_WALLET}&limit=200`)).toEqual(held);
    expect(await ids(`account=${HOT_WALLET}&cursor=${held[0]}`)).toEqual([]);
    expect(await ids(`account=${COLD_WALLET}`)).toEqual([]);
    expect((await getJson(simulator, "/liquidity_pools?account=GBAD")).status).toBe(400);
    simulator.setScenario("account_merged");
    expect(await ids(`account=${HOT_WALLET}`)).toEqual([]);
  });
});
