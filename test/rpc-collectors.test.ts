import { describe, expect, it } from "vitest";
import { FEE_STATS } from "../src/catalog/metrics.js";
import type { RpcStatus, RpcVersions } from "../src/client/rpc-client.js";
import {
  feeStatsSchema,
  healthSchema,
  latestLedgerSchema,
  networkSchema,
  versionInfoSchema,
} from "../src/client/rpc-schemas.js";
import { rpcStatusSamples } from "../src/collectors/rpc-status.js";
import { rpcVersionsSamples } from "../src/collectors/rpc-versions.js";
import type { CollectorSamples } from "../src/exposition/samples.js";
import { renderSamples } from "./support/render-samples.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { rpcFixtureJson } from "./support/fixtures.js";

async function series(samples: CollectorSamples) {
  return parseExposition(await renderSamples("soroban-1", [...samples.persistent, ...samples.live]));
}

const envelopeResult = (name: string) => rpcFixtureJson<{ result: unknown }>(name).result;

function status(overrides: Partial<RpcStatus> = {}): RpcStatus {
  const health = healthSchema.parse(rpcFixtureJson("getHealth-result-stellar-docs.json"));
  return {
    health,
    healthy: true,
    latestLedger: latestLedgerSchema.parse(envelopeResult("getLatestLedger-java-sdk.json")),
    feeStats: feeStatsSchema.parse(envelopeResult("getFeeStats-java-sdk.json")),
    ...overrides,
  };
}

const rpc = "soroban-1";

describe("rpcStatusSamples", () => {
  it("turns a status poll into exact series labelled rpc", async () => {
    const values = await series(rpcStatusSamples(status(), true));
    expect(valueOf(values, "stellar_rpc_up", { rpc })).toBe(1);
    expect(valueOf(values, "stellar_rpc_healthy", { rpc })).toBe(1);
    expect(valueOf(values, "stellar_rpc_latest_ledger", { rpc })).toBe(1283415);
    expect(valueOf(values, "stellar_rpc_oldest_ledger", { rpc })).toBe(3609804);
    expect(valueOf(values, "stellar_rpc_ledger_retention_window_ledgers", { rpc })).toBe(120960);
    // getHealth carries a close time (27.1+): the ledger age is read from it.
    expect(valueOf(values, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBe(1784671485);
    expect(valueOf(values, "stellar_rpc_protocol_version", { rpc })).toBe(25);
    // FEE_STATS order: min, mode, p10 … p90, p95, p99, max.
    const soroban = [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 120, 190, 200, 210];
    const classic = [100, 125, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 200];
    FEE_STATS.forEach((stat, index) => {
      expect(valueOf(values, "stellar_rpc_inclusion_fee_stroops", { rpc, kind: "soroban", stat })).toBe(soroban[index]);
      expect(valueOf(values, "stellar_rpc_inclusion_fee_stroops", { rpc, kind: "classic", stat })).toBe(classic[index]);
    });
    expect(valueOf(values, "stellar_rpc_fee_stats_transactions", { rpc, kind: "soroban" })).toBe(10);
    expect(valueOf(values, "stellar_rpc_fee_stats_transactions", { rpc, kind: "classic" })).toBe(7);
    expect(valueOf(values, "stellar_rpc_fee_stats_ledgers", { rpc, kind: "soroban" })).toBe(50);
    expect(valueOf(values, "stellar_rpc_fee_stats_ledgers", { rpc, kind: "classic" })).toBe(10);
    expect(values.size).toBe(7 + 2 * (14 + 2));
  });

  it("unhealthy: healthy 0, no getHealth series, the rest still exported", async () => {
    const values = await series(rpcStatusSamples(status({ health: undefined, healthy: false }), true));
    expect(valueOf(values, "stellar_rpc_healthy", { rpc })).toBe(0);
    expect(valueOf(values, "stellar_rpc_oldest_ledger", { rpc })).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_ledger_retention_window_ledgers", { rpc })).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_latest_ledger", { rpc })).toBe(1283415);
    expect(valueOf(values, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBe(1772416629);
  });

  it("getHealth answering a status other than healthy: healthy 0, no oldest ledger or retention window", async () => {
    const health = {
      ...healthSchema.parse(rpcFixtureJson("getHealth-result-stellar-docs.json")),
      status: "catching_up",
    };
    const values = await series(rpcStatusSamples(status({ health, healthy: false }), true));
    expect(valueOf(values, "stellar_rpc_healthy", { rpc })).toBe(0);
    expect(valueOf(values, "stellar_rpc_oldest_ledger", { rpc })).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_ledger_retention_window_ledgers", { rpc })).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_latest_ledger", { rpc })).toBe(1283415);
  });

  it("reads the ledger age from getHealth's close time where it carries one, else from getLatestLedger's", async () => {
    const health = healthSchema.parse(rpcFixtureJson("getHealth-result-stellar-docs.json"));
    const noCloseTime = { id: "ab", sequence: 3730763, protocolVersion: 23 };
    const same = await series(rpcStatusSamples(status({ health, latestLedger: noCloseTime }), true));
    expect(valueOf(same, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBe(1784671485);
    const other = await series(
      rpcStatusSamples(status({ health, latestLedger: { ...noCloseTime, sequence: 3730764 } }), true),
    );
    expect(valueOf(other, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBe(1784671485);
    const both = await series(
      rpcStatusSamples(status({ health, latestLedger: { ...noCloseTime, closeTime: 1784671490 } }), true),
    );
    expect(valueOf(both, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBe(1784671485);
    const { latestLedgerCloseTime: _, ...olderHealth } = health;
    const older = await series(
      rpcStatusSamples(status({ health: olderHealth, latestLedger: { ...noCloseTime, closeTime: 1784671490 } }), true),
    );
    expect(valueOf(older, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBe(1784671490);
    const neither = await series(rpcStatusSamples(status({ health: olderHealth, latestLedger: noCloseTime }), true));
    expect(valueOf(neither, "stellar_rpc_latest_ledger_closed_timestamp_seconds", { rpc })).toBeUndefined();
  });

  it("a kind without transactions in the window (stellar-rpc's all-zero distribution) has no inclusion fee", async () => {
    // stellar-rpc's feewindow answers an empty window with its zero FeeDistribution: every value "0", ledgerCount 0.
    const empty = feeStatsSchema.shape.sorobanInclusionFee.parse({
      ...Object.fromEntries(FEE_STATS.map((stat) => [stat, "0"])),
      transactionCount: "0",
      ledgerCount: 0,
    });
    const fees = feeStatsSchema.parse(envelopeResult("getFeeStats-java-sdk.json"));
    const values = await series(rpcStatusSamples(status({ feeStats: { ...fees, sorobanInclusionFee: empty } }), true));
    for (const stat of FEE_STATS) {
      expect(valueOf(values, "stellar_rpc_inclusion_fee_stroops", { rpc, kind: "soroban", stat })).toBeUndefined();
      expect(valueOf(values, "stellar_rpc_inclusion_fee_stroops", { rpc, kind: "classic", stat })).toBeGreaterThan(0);
    }
    expect(valueOf(values, "stellar_rpc_fee_stats_transactions", { rpc, kind: "soroban" })).toBe(0);
    expect(valueOf(values, "stellar_rpc_fee_stats_ledgers", { rpc, kind: "soroban" })).toBe(0);
  });

  it("before any successful poll: only stellar_rpc_up 0", async () => {
    const values = await series(rpcStatusSamples(undefined, false));
    expect([...values]).toEqual([['stellar_rpc_up{rpc="soroban-1"}', 0]]);
  });
});

describe("rpcVersionsSamples", () => {
  it("names the network like Horizon's and keeps both version strings", async () => {
    const versions: RpcVersions = {
      network: networkSchema.parse(rpcFixtureJson("getNetwork-result-testnet-stellar-docs.json")),
      versionInfo: versionInfoSchema.parse(rpcFixtureJson("getVersionInfo-result-v21-js-sdk.json")),
    };
    const values = await series(rpcVersionsSamples(versions));
    expect([...values]).toEqual([
      [
        'stellar_rpc_info{captive_core_version="stellar-core 21.1.1 (b3aeb14cc798f6d11deb2be913041be916f3b0cc)",network="testnet",network_passphrase="Test SDF Network ; September 2015",rpc="soroban-1",version="21.4.0-dbb390c6bb99024122fccb12c8219af67d50db04"}',
        1,
      ],
    ]);
    const standalone = await series(
      rpcVersionsSamples({ ...versions, network: networkSchema.parse(envelopeResult("getNetwork-java-sdk.json")) }),
    );
    expect([...standalone.keys()][0]).toContain('network="custom"');
  });
});
