import { contractEventSchema, eventsResultSchema, ledgerOfEventId } from "../src/client/event-schemas.js";
import { RpcClient } from "../src/client/rpc-client.js";
import { topicLabel } from "../src/collectors/contract-events.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { describe, expect, it } from "vitest";
import {
  feeStatsSchema,
  healthSchema,
  jsonRpcResponseSchema,
  latestLedgerSchema,
  networkSchema,
  versionInfoSchema,
} from "../src/client/rpc-schemas.js";
import { rpcFixtureJson, rpcFixtureNames } from "./support/fixtures.js";

/** The `result` of a fixture: the whole file for `*-result-*`, else the envelope's result, checked. */
function resultOf(name: string): unknown {
  const body = rpcFixtureJson<unknown>(name);
  if (name.includes("-result-")) return body;
  const envelope = jsonRpcResponseSchema.parse(body);
  expect(envelope.error).toBeUndefined();
  return envelope.result;
}

describe("Stellar RPC captures parse with exact values", () => {
  it("covers every capture in test/fixtures/stellar-rpc", () => {
    expect(rpcFixtureNames()).toEqual([
      "getEvents-error-cursor-and-startLedger-stellar-rpc-src.json",
      "getEvents-error-startLedger-out-of-range-stellar-rpc-src.json",
      "getEvents-result-fee-events-stellar-docs.json",
      "getEvents-result-stellar-docs.json",
      "getFeeStats-java-sdk.json",
      "getFeeStats-result-stellar-docs.json",
      "getHealth-java-sdk.json",
      "getHealth-result-stellar-docs.json",
      "getLatestLedger-java-sdk.json",
      "getLedgerEntries-account-dotnet-sdk.json",
      "getLedgerEntries-config-settings-dotnet-sdk.json",
      "getLedgerEntries-contract-code-dotnet-sdk.json",
      "getLedgerEntries-contract-data-persistent-java-sdk.json",
      "getLedgerEntries-contract-instance-dotnet-sdk.json",
      "getLedgerEntries-empty-dotnet-sdk.json",
      "getLedgerEntries-error-malformed-key-stellar-rpc-src.json",
      "getLedgerEntries-error-too-many-keys-stellar-rpc-src.json",
      "getLedgerEntries-error-ttl-key-stellar-rpc-src.json",
      "getLedgerEntries-trustline-dotnet-sdk.json",
      "getLedgers-java-sdk.json",
      "getLedgers-result-js-sdk.json",
      "getNetwork-java-sdk.json",
      "getNetwork-result-testnet-stellar-docs.json",
      "getVersionInfo-java-sdk.json",
      "getVersionInfo-result-stellar-docs.json",
      "getVersionInfo-result-v21-js-sdk.json",
    ]);
  });

  it("keeps the JSON-RPC id as sent: a string or a number", () => {
    expect(jsonRpcResponseSchema.parse(rpcFixtureJson("getHealth-java-sdk.json")).id).toBe(
      "198cb1a8-9104-4446-a269-88bf000c2721",
    );
    expect(jsonRpcResponseSchema.parse(rpcFixtureJson("getFeeStats-java-sdk.json")).id).toBe(8675309);
  });

  it("getHealth without and with close times", () => {
    expect(healthSchema.parse(resultOf("getHealth-java-sdk.json"))).toEqual({
      status: "healthy",
      latestLedger: 50000,
      oldestLedger: 1,
      ledgerRetentionWindow: 10000,
    });
    expect(healthSchema.parse(resultOf("getHealth-result-stellar-docs.json"))).toEqual({
      status: "healthy",
      latestLedger: 3730763,
      latestLedgerCloseTime: 1784671485,
      oldestLedger: 3609804,
      oldestLedgerCloseTime: 1784065656,
      ledgerRetentionWindow: 120960,
    });
  });

  it("getLatestLedger: closeTime a string of unix seconds", () => {
    expect(latestLedgerSchema.parse(resultOf("getLatestLedger-java-sdk.json"))).toEqual({
      id: "98908807544d6658094c94e00c1cff99e341b96ee1c59abbda39d5f4a3b20cdc",
      sequence: 1283415,
      protocolVersion: 25,
      closeTime: 1772416629,
    });
  });

  it("getFeeStats: fee values and transactionCount strings, ledgerCount and latestLedger numbers", () => {
    const java = feeStatsSchema.parse(resultOf("getFeeStats-java-sdk.json"));
    expect(java.latestLedger).toBe(4519945);
    expect(java.sorobanInclusionFee).toEqual({
      max: 210,
      min: 100,
      mode: 100,
      p10: 100,
      p20: 100,
      p30: 100,
      p40: 100,
      p50: 100,
      p60: 100,
      p70: 100,
      p80: 100,
      p90: 120,
      p95: 190,
      p99: 200,
      transactionCount: 10,
      ledgerCount: 50,
    });
    expect(java.inclusionFee).toEqual({
      max: 200,
      min: 100,
      mode: 125,
      p10: 100,
      p20: 100,
      p30: 100,
      p40: 100,
      p50: 100,
      p60: 100,
      p70: 100,
      p80: 100,
      p90: 100,
      p95: 100,
      p99: 100,
      transactionCount: 7,
      ledgerCount: 10,
    });
    const docs = feeStatsSchema.parse(resultOf("getFeeStats-result-stellar-docs.json"));
    expect(docs.latestLedger).toBe(3730870);
    expect(docs.sorobanInclusionFee).toMatchObject({
      max: 200,
      p90: 200,
      p99: 200,
      transactionCount: 371,
      ledgerCount: 50,
    });
    expect(docs.inclusionFee).toMatchObject({ max: 133, min: 100, p99: 133, transactionCount: 28, ledgerCount: 10 });
  });

  it("getNetwork: protocolVersion a number, or the string of a hand-edited capture", () => {
    expect(networkSchema.parse(resultOf("getNetwork-java-sdk.json"))).toEqual({
      friendbotUrl: "http://localhost:8000/friendbot",
      passphrase: "Standalone Network ; February 2017",
      protocolVersion: 20,
    });
    expect(networkSchema.parse(resultOf("getNetwork-result-testnet-stellar-docs.json"))).toEqual({
      friendbotUrl: "https://friendbot-testnet.stellar.org/",
      passphrase: "Test SDF Network ; September 2015",
      protocolVersion: 20,
    });
  });

  it("getVersionInfo: snake_case (v21), camelCase, and both (v22) with camelCase winning", () => {
    expect(versionInfoSchema.parse(resultOf("getVersionInfo-result-v21-js-sdk.json"))).toEqual({
      version: "21.4.0-dbb390c6bb99024122fccb12c8219af67d50db04",
      commitHash: "dbb390c6bb99024122fccb12c8219af67d50db04",
      buildTimestamp: "2024-07-10T14:50:09",
      captiveCoreVersion: "stellar-core 21.1.1 (b3aeb14cc798f6d11deb2be913041be916f3b0cc)",
      protocolVersion: 21,
    });
    expect(versionInfoSchema.parse(resultOf("getVersionInfo-java-sdk.json"))).toEqual({
      version: "21.1.0",
      commitHash: "fcd2f0523f04279bae4502f3e3fa00ca627e6f6a",
      buildTimestamp: "2024-05-10T11:18:38",
      captiveCoreVersion: "stellar-core 21.0.0.rc2 (c6f474133738ae5f6d11b07963ca841909210273)",
      protocolVersion: 21,
    });
    expect(versionInfoSchema.parse(resultOf("getVersionInfo-result-stellar-docs.json"))).toEqual({
      version: "27.1.1-7e712815319140618b9be8cf0846701a6f9a2cbe",
      commitHash: "7e712815319140618b9be8cf0846701a6f9a2cbe",
      buildTimestamp: "2026-07-07T21:12:19",
      captiveCoreVersion: "stellar-core 27.1.0 (3589a696b0d4ef5a2cf2124e349c671d71886d9c)",
      protocolVersion: 27,
    });
    const v22 = versionInfoSchema.parse({
      version: "22.0.0",
      commitHash: "new",
      commit_hash: "old",
      captiveCoreVersion: "stellar-core 22.0.0",
      captive_core_version: "stellar-core 21.0.0",
      protocolVersion: 22,
      protocol_version: 21,
    });
    expect(v22).toMatchObject({ commitHash: "new", captiveCoreVersion: "stellar-core 22.0.0", protocolVersion: 22 });
  });

  it("JSON-RPC error objects, and responses with neither result nor error", () => {
    const error = jsonRpcResponseSchema.parse({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: "method not found" },
    });
    expect(error.error).toEqual({ code: -32601, message: "method not found" });
    expect(jsonRpcResponseSchema.safeParse({ jsonrpc: "2.0", id: 1 }).success).toBe(false);
    expect(jsonRpcResponseSchema.safeParse({ jsonrpc: "2.0", id: 1, error: { message: "no code" } }).success).toBe(
      false,
    );
  });

  it("rejects wrong wire types instead of coercing them", () => {
    const health = healthSchema.safeParse({
      status: "healthy",
      latestLedger: "5",
      oldestLedger: 1,
      ledgerRetentionWindow: 1,
    });
    expect(health.success).toBe(false);
    const fees = resultOf("getFeeStats-result-stellar-docs.json") as { inclusionFee: Record<string, unknown> };
    expect(feeStatsSchema.safeParse({ ...fees, inclusionFee: { ...fees.inclusionFee, p50: 100 } }).success).toBe(false);
  });
});

describe("getEvents captures", () => {
  it("parse with exact values, and their first topics decode as the events job labels them", async () => {
    const result = eventsResultSchema.parse(rpcFixtureJson("getEvents-result-stellar-docs.json"));
    expect(result.cursor).toBe("0016010972359577600-0000000008");
    expect(result.latestLedger).toBe(3730843);
    const events = (result.events ?? []).map((event) => contractEventSchema.parse(event));
    expect(
      events.map((event) => [event.type, event.ledger, topicLabel(event.topic), event.inSuccessfulContractCall]),
    ).toEqual([
      ["contract", 3727845, "transfer", true],
      ["contract", 3727845, "transfer", true],
    ]);
    expect(ledgerOfEventId(events[0]!.id)).toBe(3727845);
    const fees = eventsResultSchema.parse(rpcFixtureJson("getEvents-result-fee-events-stellar-docs.json"));
    const feeEvents = (fees.events ?? []).map((event) => contractEventSchema.parse(event));
    expect(feeEvents.map((event) => [topicLabel(event.topic), event.inSuccessfulContractCall])).toEqual([
      ["fee", false],
      ["fee", true],
    ]);
  });

  it("the client returns the out-of-range window of -32600 and fails on -32602", async () => {
    const rpc = new FakeRpc();
    const client = new RpcClient({ url: await rpc.start(), timeoutMs: 2_000, retries: 0, maxBodyBytes: 1 << 22 });
    try {
      const params = { startLedger: 199616, filters: [], pagination: { limit: 1000 } };
      const error = (name: string) => rpcFixtureJson<{ error: { code: number; message: string } }>(name).error;
      rpc.answers.set("getEvents", { error: error("getEvents-error-startLedger-out-of-range-stellar-rpc-src.json") });
      expect(await client.getEvents(params)).toEqual({
        kind: "out_of_range",
        oldestLedger: 3609884,
        latestLedger: 3730843,
      });
      rpc.answers.set("getEvents", { error: error("getEvents-error-cursor-and-startLedger-stellar-rpc-src.json") });
      await expect(client.getEvents(params)).rejects.toMatchObject({
        reason: "rpc_error",
        message: "getEvents answered JSON-RPC error -32602: ledger ranges and cursor cannot both be set",
      });
      const served = rpcFixtureJson<Record<string, unknown[]>>("getEvents-result-stellar-docs.json");
      rpc.answers.set("getEvents", { result: { ...served, events: [...served.events!, { id: "bad" }] } });
      const answer = await client.getEvents(params);
      // An event without a well-formed id is placed after the last id before it.
      const last = (served.events!.at(-1) as { id: string }).id;
      expect(answer.kind === "events" && [answer.events.length, answer.invalid, answer.cursor]).toEqual([
        2,
        [{ after: last, nth: 1 }],
        "0016010972359577600-0000000008",
      ]);
      expect(rpc.requests.at(-1)?.body[0]).toMatchObject({ method: "getEvents", params });
    } finally {
      await rpc.stop();
    }
  });
});
