import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLD_WALLET, HOT_WALLET, startSimulator, type RunningSimulator } from "../src/simulator/index.js";
import { valueOf } from "./support/exposition.js";
import { configFrom, startHarness, type Harness } from "./support/exporter-harness.js";

describe("the exporter watching accounts on the simulator", () => {
  let running: RunningSimulator;
  let harness: Harness;
  const nobody = Keypair.random().publicKey();

  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 60_000 });
    harness = await startHarness(
      await configFrom([
        `--horizon.url=sim=${running.url}`,
        "--poll.interval=1h",
        `--account=hot=${HOT_WALLET}`,
        `--account=cold=${COLD_WALLET}`,
        `--account=nobody=${nobody}`,
      ]),
    );
  });
  afterAll(async () => {
    await harness.exporter.close();
    await running.close();
  });

  const at = (account: string, labels: Record<string, string> = {}) => ({ horizon: "sim", account, ...labels });
  const errors = (values: Map<string, number>) =>
    [...values.entries()].filter(
      ([key, value]) => key.startsWith("stellar_horizon_exporter_poll_errors_total") && value > 0,
    );

  it("a missing account is data: exists 0, no poll error, up unaffected", async () => {
    await harness.exporter.pollAll();
    const values = await harness.scrape();
    expect(valueOf(values, "stellar_horizon_up", { horizon: "sim" })).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_exists", at("nobody"))).toBe(0);
    expect([...values.keys()].filter((key) => key.includes('account="nobody"'))).toHaveLength(2);
    expect(valueOf(values, "stellar_horizon_account_exists", at("hot"))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_minimum_balance", at("hot"))).toBe((2 + 8) * 0.5);
    expect(errors(values)).toEqual([]);
  });

  it("a signer change counts exactly once; a merged account leaves while the exporter stays up", async () => {
    running.simulator.setScenario("signer_change");
    await harness.exporter.pollAll();
    await harness.exporter.pollAll();
    let values = await harness.scrape();
    expect(valueOf(values, "stellar_horizon_account_signer_changes_total", at("cold"))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_signer_changes_total", at("hot"))).toBe(0);

    running.simulator.setScenario("account_merged");
    await harness.exporter.pollAll();
    values = await harness.scrape();
    expect(valueOf(values, "stellar_horizon_up", { horizon: "sim" })).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_exists", at("hot"))).toBe(0);
    expect(valueOf(values, "stellar_horizon_account_balance", at("hot", { asset: "native" }))).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_account_signer_changes_total", at("cold"))).toBe(1);
    expect(errors(values)).toEqual([]);
  });
});
