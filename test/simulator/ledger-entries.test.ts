import { Address, Asset, hash, StrKey, xdr } from "@stellar/stellar-base";
import { Asset as SdkAsset, Keypair as SdkKeypair, xdr as sdkXdr } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { ledgerEntriesSchema } from "../../src/client/rpc-schemas.js";
import { DEMO_TTLS, EXPIRING_TTL_LEDGERS, STATE_ARCHIVAL } from "../../src/simulator/contracts.js";
import { COLD_WALLET, HOT_WALLET, USDC_ISSUER } from "../../src/simulator/demo-accounts.js";
import type { Simulator } from "../../src/simulator/index.js";
import { rpcFixtureJson } from "../support/fixtures.js";
import { rpcCall, sdkRpcServer, simulatorAt, typeSignature } from "./helpers.js";

const getLedgerEntries = (simulator: Simulator, keys: unknown[]) => rpcCall(simulator, "getLedgerEntries", { keys });

function instanceKey(contractId: string): string {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contractId).toScAddress(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent(),
    }),
  ).toXDR("base64");
}

function storageKey(contractId: string, key: string): string {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contractId).toScAddress(),
      key: xdr.ScVal.fromXDR(key, "base64"),
      durability: xdr.ContractDataDurability.persistent(),
    }),
  ).toXDR("base64");
}

const STATE_ARCHIVAL_KEY = xdr.LedgerKey.configSetting(
  new xdr.LedgerKeyConfigSetting({ configSettingId: xdr.ConfigSettingId.configSettingStateArchival() }),
).toXDR("base64");

describe("the simulated RPC's getLedgerEntries", () => {
  it("serves the demo contracts' instance, code and storage entries and the state-archival setting, in the captures' wire types", async () => {
    const { simulator } = simulatorAt();
    const [counter, usdc] = simulator.contracts.demo;
    expect(usdc!.id).toBe(new Asset("USDC", USDC_ISSUER).contractId("Public Global Stellar Network ; September 2015"));
    expect(StrKey.isValidContract(counter!.id)).toBe(true);
    const missing = storageKey(counter!.id, xdr.ScVal.scvSymbol("Nothing").toXDR("base64"));
    const keys = [
      instanceKey(counter!.id),
      storageKey(counter!.id, counter!.keys[0]!.key),
      instanceKey(usdc!.id),
      missing,
      STATE_ARCHIVAL_KEY,
    ];
    const response = await getLedgerEntries(simulator, keys);
    const result = ledgerEntriesSchema.parse(response.result);
    const latest = simulator.state().historyLatestLedger;
    expect(result.latestLedger).toBe(latest);
    expect(result.entries.map((entry) => entry.key)).toEqual([keys[0], keys[1], keys[2], keys[4]]);

    const instance = xdr.LedgerEntryData.fromXDR(result.entries[0]!.xdr, "base64").contractData().val().instance();
    const wasmHash = instance.executable().wasmHash();
    const code = await getLedgerEntries(simulator, [
      xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: wasmHash })).toXDR("base64"),
    ]);
    const codeEntry = ledgerEntriesSchema.parse(code.result).entries[0]!;
    expect(hash(xdr.LedgerEntryData.fromXDR(codeEntry.xdr, "base64").contractCode().code())).toEqual(wasmHash);
    expect(codeEntry.liveUntilLedgerSeq! - latest).toBe(DEMO_TTLS.wasmCode);
    // The asset contract's executable is the Stellar Asset, with no code entry.
    const assetInstance = xdr.LedgerEntryData.fromXDR(result.entries[2]!.xdr, "base64").contractData().val().instance();
    expect(assetInstance.executable().switch().name).toBe("contractExecutableStellarAsset");

    expect(result.entries.map((entry) => (entry.liveUntilLedgerSeq ?? 0) - latest)).toEqual([
      DEMO_TTLS.wasmInstance,
      DEMO_TTLS.storage,
      DEMO_TTLS.assetInstance,
      -latest,
    ]);
    const settings = xdr.LedgerEntryData.fromXDR(result.entries[3]!.xdr, "base64")
      .configSetting()
      .stateArchivalSettings();
    expect([settings.maxEntryTtl(), settings.minPersistentTtl(), settings.minTemporaryTtl()]).toEqual([
      STATE_ARCHIVAL.maxEntryTtl,
      STATE_ARCHIVAL.minPersistentTtl,
      STATE_ARCHIVAL.minTemporaryTtl,
    ]);
    // The same fields and types as the captures: config settings carry no liveUntilLedgerSeq; the
    // default (v28) RPC adds extXdr, which the pre-v23 captures lack.
    const withExt = (entry: unknown) => ({ ...(entry as object), extXdr: "AAAAAA==" });
    expect(typeSignature(response.result.entries[0])).toEqual(
      typeSignature(
        withExt(
          rpcFixtureJson<{ result: { entries: unknown[] } }>("getLedgerEntries-contract-instance-dotnet-sdk.json")
            .result.entries[0],
        ),
      ),
    );
    expect(typeSignature(response.result.entries[3])).toEqual(
      typeSignature(
        withExt(
          rpcFixtureJson<{ result: { entries: unknown[] } }>("getLedgerEntries-config-settings-dotnet-sdk.json").result
            .entries[10],
        ),
      ),
    );
  });

  it("contract_expiring: the storage entry runs down to archival, reported as v22 and as v23+ RPCs do", async () => {
    const { simulator, clock } = simulatorAt({ scenario: "old_versions" });
    const [counter] = simulator.contracts.demo;
    const key = storageKey(counter!.id, counter!.keys[0]!.key);
    simulator.setScenario("contract_expiring");
    simulator.setScenario("old_versions");
    const entered = simulator.state().historyLatestLedger;
    const before = ledgerEntriesSchema.parse((await getLedgerEntries(simulator, [key])).result).entries[0]!;
    expect(before.liveUntilLedgerSeq).toBe(entered + EXPIRING_TTL_LEDGERS);
    clock.tick((EXPIRING_TTL_LEDGERS + 2) * 5_000);
    const after = ledgerEntriesSchema.parse((await getLedgerEntries(simulator, [key])).result);
    // v22 (old_versions: the simulated release of protocol 22) returns the expired entry with its past live-until.
    expect(after.entries[0]!.liveUntilLedgerSeq).toBe(entered + EXPIRING_TTL_LEDGERS);
    expect(after.latestLedger).toBeGreaterThan(entered + EXPIRING_TTL_LEDGERS);
    // v23 and later (the default, v28) return 0, and extXdr on every entry.
    simulator.setScenario("healthy");
    const v23 = (await getLedgerEntries(simulator, [key])).result.entries[0];
    expect(v23).toMatchObject({ key, liveUntilLedgerSeq: 0, extXdr: "AAAAAA==" });
  });

  it("answers stellar-rpc's errors: more than 200 keys, a malformed key, a TTL key", async () => {
    const { simulator } = simulatorAt();
    const errorOf = (name: string) => rpcFixtureJson<{ error: unknown }>(name).error;
    expect(
      (
        await getLedgerEntries(
          simulator,
          Array.from({ length: 201 }, () => STATE_ARCHIVAL_KEY),
        )
      ).error,
    ).toEqual(errorOf("getLedgerEntries-error-too-many-keys-stellar-rpc-src.json"));
    expect((await getLedgerEntries(simulator, ["<>@@#$"])).error).toEqual(
      errorOf("getLedgerEntries-error-malformed-key-stellar-rpc-src.json"),
    );
    const ttlKey = xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: Buffer.alloc(32) })).toXDR("base64");
    expect((await getLedgerEntries(simulator, [ttlKey])).error).toEqual(
      errorOf("getLedgerEntries-error-ttl-key-stellar-rpc-src.json"),
    );
  });

  it("works with the SDK's rpc.Server: getLedgerEntries, getAccount, getTrustline", async () => {
    const { simulator } = simulatorAt();
    const sdk = await sdkRpcServer(simulator);
    const [counter] = simulator.contracts.demo;
    // The SDK's client takes and returns its own XDR classes (17's: fields are properties, arms are .type).
    const { entries, latestLedger } = await sdk.getLedgerEntries(
      sdkXdr.LedgerKey.fromXdr(instanceKey(counter!.id), "base64"),
    );
    expect(latestLedger).toBe(simulator.state().historyLatestLedger);
    const instance = entries[0]!.val;
    expect(
      instance.type === "contractData" &&
        instance.contractData.contract.type === "scAddressTypeContract" &&
        Buffer.from(instance.contractData.contract.contractId.value),
    ).toEqual(StrKey.decodeContract(counter!.id));
    expect(entries[0]!.liveUntilLedgerSeq).toBe(latestLedger + DEMO_TTLS.wasmInstance);

    const hot = simulator.accounts.get(HOT_WALLET)!;
    const account = await sdk.getAccount(HOT_WALLET);
    expect(account.accountId()).toBe(HOT_WALLET);
    expect(account.sequenceNumber()).toBe(hot.sequence.toString());
    const [entry] = (
      await sdk.getLedgerEntries(
        sdkXdr.LedgerKey.account(
          new sdkXdr.LedgerKeyAccount({ accountId: SdkKeypair.fromPublicKey(HOT_WALLET).xdrAccountId() }),
        ),
      )
    ).entries;
    if (entry?.val.type !== "account") throw new Error(`not an account entry: ${entry?.val.type}`);
    const decoded = entry.val.account;
    expect(decoded.balance).toBe(hot.balance);
    expect(decoded.numSubEntries).toBe(simulator.accounts.subentries(HOT_WALLET));
    expect(decoded.signers.length).toBe(hot.signers.length - 1);
    expect(entry!.liveUntilLedgerSeq).toBeUndefined();

    const usdc = hot.trustlines[0]!;
    const trustline = await sdk.getTrustline(HOT_WALLET, new SdkAsset(...(usdc.asset.split(":") as [string, string])));
    expect(trustline.balance).toBe(usdc.balance);
    expect(trustline.limit).toBe(usdc.limit);
    await expect(sdk.getAccount(SdkKeypair.random().publicKey())).rejects.toThrow(/not found/i);
    expect((await sdk.getAccount(COLD_WALLET)).accountId()).toBe(COLD_WALLET);
  });
});
