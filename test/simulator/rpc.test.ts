import { describe, expect, it } from "vitest";
import {
  feeStatsSchema,
  healthSchema,
  jsonRpcResponseSchema,
  latestLedgerSchema,
  networkSchema,
  versionInfoSchema,
} from "../../src/client/rpc-schemas.js";
import type { Simulator } from "../../src/simulator/index.js";
import { getJson, sdkRpcServer, simulatorAt, START_MS, typeSignature } from "./helpers.js";
import { rpcFixtureJson } from "../support/fixtures.js";

const BATCH = ["getHealth", "getLatestLedger", "getFeeStats", "getNetwork", "getVersionInfo"];

async function call(simulator: Simulator, methods: readonly string[]): Promise<Record<string, any>> {
  const body = methods.map((method, index) => ({ jsonrpc: "2.0", id: `call-${index}`, method }));
  const { status, body: responses } = await getJson<Record<string, any>[]>(simulator, "/rpc", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(status).toBe(200);
  return Object.fromEntries(
    methods.map((method, index) => {
      const response = jsonRpcResponseSchema.parse(responses[index]);
      expect(response.id).toBe(`call-${index}`);
      return [method, response];
    }),
  );
}

describe("the simulated Stellar RPC at /rpc", () => {
  it("answers every method in the captures' wire types, from Horizon's ledgers and times", async () => {
    const { simulator } = simulatorAt();
    const answers = await call(simulator, BATCH);
    const health = healthSchema.parse(answers.getHealth.result);
    const latest = latestLedgerSchema.parse(answers.getLatestLedger.result);
    const fees = feeStatsSchema.parse(answers.getFeeStats.result);
    const network = networkSchema.parse(answers.getNetwork.result);
    const version = versionInfoSchema.parse(answers.getVersionInfo.result);

    const horizon = (await getJson(simulator, "/ledgers?order=desc&limit=1")).body._embedded.records[0];
    expect(latest.sequence).toBe(horizon.sequence);
    expect(latest.id).toBe(horizon.hash);
    expect(latest.protocolVersion).toBe(28);
    // closeTime, headerXdr and metadataXdr came with v25 (stellar-rpc#554), as the Java SDK's capture has them.
    expect(typeSignature(answers.getLatestLedger.result)).toEqual(
      typeSignature((rpcFixtureJson("getLatestLedger-java-sdk.json") as { result: unknown }).result),
    );
    expect(latest.closeTime).toBe(Date.parse(horizon.closed_at) / 1000);
    const state = simulator.state();
    expect(health).toMatchObject({
      status: "healthy",
      latestLedger: latest.sequence,
      latestLedgerCloseTime: Date.parse(horizon.closed_at) / 1000,
      oldestLedger: state.historyElderLedger,
      ledgerRetentionWindow: 120960,
    });
    expect(fees.latestLedger).toBe(latest.sequence);
    expect(fees.sorobanInclusionFee.ledgerCount).toBe(50);
    expect(fees.inclusionFee.ledgerCount).toBe(10);
    expect(fees.inclusionFee.p50).toBe(100);
    expect(network).toEqual({ passphrase: "Public Global Stellar Network ; September 2015", protocolVersion: 28 });
    expect(version.version).toMatch(/^28\.0\.1-/);
    expect(version.captiveCoreVersion).toMatch(/^stellar-core 28\./);
    // Since v23 the snake_case spellings are gone.
    expect(answers.getVersionInfo.result.captive_core_version).toBeUndefined();
    expect(typeSignature(answers.getHealth.result)).toEqual(
      typeSignature(rpcFixtureJson("getHealth-result-stellar-docs.json")),
    );
    expect(typeSignature(answers.getFeeStats.result)).toEqual(
      typeSignature(rpcFixtureJson("getFeeStats-result-stellar-docs.json")),
    );
  });

  it("old_versions: protocol 22's stellar-rpc 22.1.2, without v25's and v27.1's fields", async () => {
    const { simulator } = simulatorAt({ scenario: "old_versions" });
    const answers = await call(simulator, BATCH);
    expect(Object.keys(answers.getLatestLedger.result)).toEqual(["id", "protocolVersion", "sequence"]);
    expect(Object.keys(answers.getHealth.result)).toEqual([
      "status",
      "latestLedger",
      "oldestLedger",
      "ledgerRetentionWindow",
    ]);
    const version = versionInfoSchema.parse(answers.getVersionInfo.result);
    expect(version.version).toBe("22.1.2-7f8e3b5a1c9d2e4f6a8b0c1d3e5f7a9b2c4d6e8f");
    expect(version.captiveCoreVersion).toBe("stellar-core 22.1.0 (fdd833d57c86cfe0c5057da5b2319953ab841de0)");
    // Protocol 22's RPC sends both spellings, as v22 did.
    expect(answers.getVersionInfo.result.captive_core_version).toBe(version.captiveCoreVersion);
    const root = (await getJson(simulator, "/")).body;
    expect(root.horizon_version).toBe("22.0.1-dd8a9b473a303cfcdd383d1db45dace93ea0861c");
  });

  it("the official SDK 17's getLatestLedger and getHealth accept the default (v28) answers", async () => {
    const { simulator } = simulatorAt();
    const server = await sdkRpcServer(simulator);
    const latest = await server.getLatestLedger();
    const horizon = (await getJson(simulator, "/ledgers?order=desc&limit=1")).body._embedded.records[0];
    expect(latest.sequence).toBe(horizon.sequence);
    expect(Number(latest.closeTime)).toBe(Date.parse(horizon.closed_at) / 1000);
    expect(latest.headerXdr.ledgerSeq).toBe(horizon.sequence);
    const health = await server.getHealth();
    expect(health.status).toBe("healthy");
    const root = (await getJson(simulator, "/")).body;
    expect(root.horizon_version).toMatch(/^28\.0\.0-/);
  });

  it("the official SDK 17's getNetwork, getVersionInfo and getFeeStats read what the batch serves", async () => {
    const { simulator } = simulatorAt();
    const server = await sdkRpcServer(simulator);
    const answers = await call(simulator, ["getNetwork", "getVersionInfo", "getFeeStats"]);
    const network = await server.getNetwork();
    expect(network.passphrase).toBe("Public Global Stellar Network ; September 2015");
    expect(network.protocolVersion).toBe(28);
    const version = await server.getVersionInfo();
    expect(version).toMatchObject(versionInfoSchema.parse(answers.getVersionInfo.result));
    const fees = await server.getFeeStats();
    const served = answers.getFeeStats.result;
    expect(fees.latestLedger).toBe(served.latestLedger);
    expect(fees.sorobanInclusionFee).toEqual(served.sorobanInclusionFee);
    expect(fees.inclusionFee.p90).toBe(served.inclusionFee.p90);
  });

  it("is not subject to Horizon's rate limit or faults", async () => {
    const { simulator } = simulatorAt({ scenario: "rate_limited" });
    const answers = await call(simulator, ["getLatestLedger"]);
    expect(answers.getLatestLedger.error).toBeUndefined();
  });

  it("rpc_unhealthy: getHealth answers an error, every other method still works", async () => {
    const { simulator } = simulatorAt({ scenario: "rpc_unhealthy" });
    const answers = await call(simulator, BATCH);
    expect(answers.getHealth.error).toEqual({ code: -32603, message: "data stores are not initialized" });
    for (const method of BATCH.slice(1)) expect(answers[method].error).toBeUndefined();
  });

  it("rpc_lagging: 20 ledgers behind Horizon, and unhealthy by stellar-rpc's latency rule", async () => {
    const { simulator, clock } = simulatorAt({ scenario: "rpc_lagging" });
    clock.tick(60_000);
    const answers = await call(simulator, ["getHealth", "getLatestLedger", "getFeeStats"]);
    const latest = latestLedgerSchema.parse(answers.getLatestLedger.result);
    expect(latest.sequence).toBe(simulator.state().historyLatestLedger - 20);
    expect(feeStatsSchema.parse(answers.getFeeStats.result).latestLedger).toBe(latest.sequence);
    const closedAt = (await getJson(simulator, `/ledgers/${latest.sequence}`)).body.closed_at as string;
    const latencySeconds = Math.round((clock.nowMs - Date.parse(closedAt)) / 1000);
    expect(latencySeconds).toBeGreaterThan(60);
    // stellar-rpc prints Go's time.Duration: 1m45s, not 105s.
    const goLatency = `${Math.floor(latencySeconds / 60)}m${latencySeconds % 60}s`;
    expect(answers.getHealth.error.message).toBe(
      `latency (${goLatency}) since last known ledger closed is too high (>30s)`,
    );
  });

  it("fee_spike: Soroban inclusion fees surge with the rest", async () => {
    const { simulator, clock } = simulatorAt();
    simulator.setScenario("fee_spike");
    clock.tick(60 * 5_000);
    const fees = feeStatsSchema.parse((await call(simulator, ["getFeeStats"])).getFeeStats.result);
    expect(fees.sorobanInclusionFee.p50).toBe(5000);
    expect(fees.inclusionFee.p50).toBe(5000);
  });

  it("network_halt: healthy until the last close is 30 s old", async () => {
    const { simulator, clock } = simulatorAt({ scenario: "network_halt" });
    expect((await call(simulator, ["getHealth"])).getHealth.result.status).toBe("healthy");
    clock.tick(31_000);
    expect((await call(simulator, ["getHealth"])).getHealth.error.code).toBe(-32603);
    expect(clock.nowMs).toBe(START_MS + 31_000);
  });

  it("answers JSON-RPC errors for unknown methods, bad requests and unparseable bodies", async () => {
    const { simulator } = simulatorAt();
    expect((await call(simulator, ["getEvents2"])).getEvents2.error).toEqual({
      code: -32601,
      message: "method not found",
    });
    const post = (body: string) => getJson(simulator, "/rpc", { method: "POST", body });
    expect((await post("{")).body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "parse error" },
    });
    expect((await post("[]")).body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "invalid request" },
    });
    expect((await post('{"id":7,"method":"getHealth"}')).body).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: "invalid request" },
    });
    const single = await post('{"jsonrpc":"2.0","id":8,"method":"getNetwork"}');
    expect(single.body.id).toBe(8);
    expect(single.body.result.passphrase).toBe("Public Global Stellar Network ; September 2015");
  });
});
