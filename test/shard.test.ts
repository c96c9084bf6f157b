import { Keypair } from "@stellar/stellar-base";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { COLD_WALLET, HOT_WALLET, startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";

let simulator: RunningSimulator | undefined;
const exporters: RunningExporter[] = [];

afterEach(async () => {
  await Promise.all(exporters.splice(0).map((exporter) => exporter.close()));
  await simulator?.close();
  simulator = undefined;
});

/** The demo's two accounts and ten that were never created. */
const ACCOUNTS = [HOT_WALLET, COLD_WALLET, ...Array.from({ length: 10 }, (_, index) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, index + 1)).publicKey())];

async function replica(shard: string): Promise<Map<string, number>> {
  const config = await configFrom([
    `--horizon.url=sim=${simulator!.url}`,
    `--rpc.url=sim-rpc=${simulator!.url}/rpc`,
    "--poll.interval=1h",
    "--pools.max=3",
    ...ACCOUNTS.map((id, index) => `--account=a${index}=${id}`),
    `--account.asset=${USDC}`,
    `--shard=${shard}`,
  ]);
  const exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }) });
  exporters.push(exporter);
  await exporter.firstPolls;
  return parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
}

const watched = (values: Map<string, number>, family: string, label: "horizon" | "rpc") =>
  [...values.keys()].filter((key) => key.startsWith(`${family}{`) && key.includes(`${label}=`)).map((key) => /account="([^"]*)"/.exec(key)![1]!);

describe("--shard=INDEX/TOTAL", () => {
  it("two replicas export every account exactly once, on both kinds of target; network-level series only on shard 0", async () => {
    const clock = Date.UTC(2026, 0, 1);
    simulator = await startSimulator({ ledgerIntervalMs: 5_000, pools: 3, seed: 5, now: () => clock });
    const [zero, one] = [await replica("0/2"), await replica("1/2")];
    const names = ACCOUNTS.map((_, index) => `a${index}`).sort();
    for (const [family, label] of [["stellar_horizon_account_exists", "horizon"], ["stellar_rpc_account_exists", "rpc"]] as const) {
      const both = [...watched(zero, family, label), ...watched(one, family, label)].sort();
      expect(both, family).toEqual(names);
      expect(watched(one, family, label).length, family).toBeGreaterThan(0);
      expect(watched(zero, family, label).length, family).toBeGreaterThan(0);
    }
    expect(valueOf(zero, "stellar_horizon_exporter_shard_info", { index: "0", total: "2" })).toBe(1);
    expect(valueOf(one, "stellar_horizon_exporter_shard_info", { index: "1", total: "2" })).toBe(1);
    expect(valueOf(zero, "stellar_horizon_up", { horizon: "sim" })).toBe(1);
    expect(valueOf(zero, "stellar_rpc_up", { rpc: "sim-rpc" })).toBe(1);
    const networkLevel = /^stellar_(horizon_(up|info|ledger|fee|liquidity|ingest|history|core|current)|rpc_(up|healthy|info|latest|inclusion|fee))/;
    expect([...one.keys()].filter((key) => networkLevel.test(key))).toEqual([]);

    // Every shard reads the base reserve its accounts need: the same minimum balances as the Horizon path of shard 0 would show.
    const hot = `a0`;
    const owner = watched(zero, "stellar_horizon_account_exists", "horizon").includes(hot) ? zero : one;
    const expected = valueOf(owner, "stellar_horizon_account_minimum_balance", { horizon: "sim", account: hot });
    expect(expected).toBeGreaterThan(1);
    expect(valueOf(owner, "stellar_rpc_account_minimum_balance", { rpc: "sim-rpc", account: hot })).toBe(expected);
  });
});
