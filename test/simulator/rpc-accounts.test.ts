import { describe, expect, it } from "vitest";
import { accountFromEntries, baseReserveFromHistoryEntry } from "../../src/client/account-entries.js";
import { accountLedgerKey, trustlineLedgerKey } from "../../src/client/ledger-keys.js";
import { accountSchema } from "../../src/client/account-schemas.js";
import { ledgerEntriesSchema } from "../../src/client/rpc-schemas.js";
import { COLD_WALLET, HOT_WALLET } from "../../src/simulator/demo-accounts.js";
import { getJson, rpcCall, sdkRpcServer, simulatorAt } from "./helpers.js";

describe("watched accounts through the simulated Stellar RPC", () => {
  it("give the facts the simulated Horizon gives for the same accounts, field by field", async () => {
    const { simulator, clock } = simulatorAt();
    // Let the demo accounts transact, so sequence ledgers and times are set.
    clock.tick(60_000);
    simulator.state();
    for (const id of [HOT_WALLET, COLD_WALLET]) {
      const horizon = accountSchema.parse((await getJson(simulator, `/accounts/${id}`)).body);
      const credit = horizon.balances
        .map((balance) => balance.asset)
        .filter((asset) => asset !== "native" && !asset.startsWith("pool:"));
      const keys = [accountLedgerKey(id), ...credit.map((asset) => trustlineLedgerKey(id, asset))];
      const read = ledgerEntriesSchema.parse((await rpcCall(simulator, "getLedgerEntries", { keys })).result);
      const xdrOf = new Map(read.entries.map((entry) => [entry.key, entry.xdr]));
      const { account } = accountFromEntries(
        id,
        xdrOf.get(keys[0]!)!,
        new Map(credit.map((asset) => [asset, xdrOf.get(trustlineLedgerKey(id, asset))])),
      );
      const {
        sequence: _sequence,
        dataEntries: _dataEntries,
        sponsor: _sponsor,
        balances,
        signers,
        ...shared
      } = horizon;
      const { balances: rpcBalances, signers: rpcSigners, sponsor: _rpcSponsor, ...rpcShared } = account;
      expect(rpcShared).toEqual(shared);
      const byAsset = <T extends { asset: string }>(list: readonly T[]) =>
        [...list].sort((a, b) => a.asset.localeCompare(b.asset));
      expect(byAsset(rpcBalances)).toEqual(byAsset(balances.filter((balance) => !balance.asset.startsWith("pool:"))));
      const bySigner = <T extends { key: string }>(list: readonly T[]) =>
        [...list].sort((a, b) => a.key.localeCompare(b.key));
      expect(bySigner(rpcSigners)).toEqual(bySigner(signers));
    }
  });

  it("serves getLedgers with LedgerHeaderHistoryEntry headers, which the SDK's rpc.Server reads", async () => {
    const { simulator } = simulatorAt();
    const latest = simulator.state().historyLatestLedger;
    const answer = await rpcCall(simulator, "getLedgers", { startLedger: latest, pagination: { limit: 1 } });
    expect(answer.result.ledgers).toHaveLength(1);
    expect(answer.result.ledgers[0].sequence).toBe(latest);
    expect(baseReserveFromHistoryEntry(answer.result.ledgers[0].headerXdr)).toBe(5_000_000);
    expect(answer.result.latestLedger).toBe(latest);
    expect(typeof answer.result.ledgers[0].ledgerCloseTime).toBe("string");
    expect((await rpcCall(simulator, "getLedgers", { startLedger: latest + 10 })).error.code).toBe(-32602);

    const sdk = await sdkRpcServer(simulator);
    const page = await sdk.getLedgers({ startLedger: latest - 2, pagination: { limit: 3 } });
    expect(page.ledgers.map((ledger) => ledger.sequence)).toEqual([latest - 2, latest - 1, latest]);
    expect(page.ledgers[2]!.headerXdr.header.ledgerSeq).toBe(latest);
  });
});
