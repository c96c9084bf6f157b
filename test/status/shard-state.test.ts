import { Keypair } from "@stellar/stellar-base";
import { afterEach, expect, it } from "vitest";
import { inShard } from "../../src/config/shard.js";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.js";
import type { StatusReport } from "../../src/status/model.js";
import { writeConfig } from "../support/config-files.js";
import { configFrom, startHarness, type Harness } from "../support/exporter-harness.js";

let simulator: RunningSimulator | undefined;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.exporter.close();
  await simulator?.close();
  harness = simulator = undefined;
});

it("a shard other than 0, which runs no heartbeat poll, shows its targets up once their polls succeed", async () => {
  simulator = await startSimulator();
  // An account of shard 1 of 2: that shard polls it, and runs neither the root nor the status poll.
  const id = [1, 2, 3, 4, 5, 6, 7, 8]
    .map((seed) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, seed)).publicKey())
    .find((key) => inShard({ index: 1, total: 2 }, key))!;
  const accounts = [{ name: "a", id }];
  const file = writeConfig(
    JSON.stringify({
      targets: [{ name: "sim", url: simulator.url, accounts }],
      rpc_targets: [{ name: "sim-rpc", url: `${simulator.url}/rpc`, accounts }],
      poll_interval: "1h",
    }),
  );
  harness = await startHarness(await configFrom([`--config.file=${file}`, "--shard=1/2"]));
  const report = (await (await fetch(`${harness.exporter.url}/status.json`)).json()) as StatusReport;
  expect(report.targets.map(({ name, endpoints }) => [name, endpoints.map((e) => [e.endpoint, e.state])])).toEqual([
    ["sim", [["accounts", "ok"]]],
    ["sim-rpc", [["accounts", "ok"]]],
  ]);
  expect(report.targets.map(({ name, state }) => [name, state])).toEqual([
    ["sim", "up"],
    ["sim-rpc", "up"],
  ]);
});
