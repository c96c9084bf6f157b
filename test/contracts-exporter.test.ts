import { execFileSync } from "node:child_process";
import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { startSimulator, type RunningSimulator } from "../src/simulator/index.js";
import { DEMO_TTLS, EXPIRING_TTL_LEDGERS } from "../src/simulator/contracts.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";
import { writeConfig } from "./support/config-files.js";

/** The exporter watching the simulator's demo contracts through a config file, as an operator would; time moves only when told. */
const LEDGER_MS = 5_000;
let simulator: RunningSimulator | undefined;
let exporter: RunningExporter | undefined;

/** Replicas besides `exporter`, one per shard. */
const shards: RunningExporter[] = [];

afterEach(async () => {
  await Promise.all(shards.splice(0).map((replica) => replica.close()));
  await exporter?.close();
  await simulator?.close();
  exporter = simulator = undefined;
});

const entry = (contract: string, name: string) => ({ rpc: "sim-rpc", contract, entry: name, durability: "persistent" });

it("every contract series equals what the RPC serves, and contract_expiring runs the storage entry down to archival", async () => {
  const clock = Date.UTC(2026, 0, 1);
  simulator = await startSimulator({ ledgerIntervalMs: LEDGER_MS, pools: 1, seed: 3, now: () => clock });
  const sim = simulator.simulator;
  const [counter, usdc] = sim.contracts.demo;
  const file = writeConfig(`poll_interval: 1h
schedules:
  contracts: 1h
rpc_targets:
  - name: sim-rpc
    url: ${simulator.url}/rpc
    contracts:
      - name: counter
        id: ${counter!.id}
        keys:
          - name: counter
            key: ${counter!.keys[0]!.key}
      - name: usdc
        id: ${usdc!.id}
`);
  const config = await configFrom([`--config.file=${file}`]);
  expect(config.rpcTargets[0]!.schedules.contracts.text).toBe("1h");
  exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }) });
  await exporter.firstPolls;
  const scrape = async () => parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
  const pass = async (ledgers: number) => {
    sim.advance(ledgers * LEDGER_MS);
    await exporter!.pollAll();
    return scrape();
  };

  const before = Date.now() / 1000;
  let values = await pass(2);
  const after = Date.now() / 1000;
  const latest = sim.state().historyLatestLedger;
  for (const [contract, name, ttl] of [
    ["counter", "instance", DEMO_TTLS.wasmInstance],
    ["counter", "code", DEMO_TTLS.wasmCode],
    ["counter", "counter", DEMO_TTLS.storage],
    ["usdc", "instance", DEMO_TTLS.assetInstance],
  ] as const) {
    const labels = entry(contract, name);
    // The simulator made each entry with this TTL two ledgers before.
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", labels), `${contract} ${name}`).toBe(ttl - 2);
    expect(valueOf(values, "stellar_rpc_contract_entry_live_until_ledger", labels)).toBe(latest + ttl - 2);
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", labels)).toBe(1);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", labels)).toBe(0);
    // The exporter's clock is the system's; the simulated ledgers close every 5 s.
    const expiry = valueOf(values, "stellar_rpc_contract_entry_expiry_timestamp_seconds", labels)!;
    expect(expiry).toBeGreaterThanOrEqual(Math.round(before + (ttl - 2) * 5));
    expect(expiry).toBeLessThanOrEqual(Math.round(after + (ttl - 2) * 5));
  }
  expect(valueOf(values, "stellar_rpc_contract_entry_exists", entry("usdc", "code"))).toBeUndefined();
  expect(
    valueOf(values, "stellar_rpc_contract_info", {
      rpc: "sim-rpc",
      contract: "usdc",
      contract_id: usdc!.id,
      executable: "stellar_asset",
      wasm_hash: "",
    }),
  ).toBe(1);
  expect(valueOf(values, "stellar_rpc_state_archival_max_entry_ttl_ledgers", { rpc: "sim-rpc" })).toBe(3_110_400);
  expect(
    valueOf(values, "stellar_horizon_exporter_rpc_requests_total", {
      rpc: "sim-rpc",
      endpoint: "contracts",
      code: "200",
    }),
  ).toBe(3);

  sim.setScenario("contract_expiring");
  values = await pass(1);
  expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("counter", "counter"))).toBe(
    EXPIRING_TTL_LEDGERS - 1,
  );
  values = await pass(EXPIRING_TTL_LEDGERS + 1);
  const counterEntry = entry("counter", "counter");
  expect(valueOf(values, "stellar_rpc_contract_entry_archived", counterEntry)).toBe(1);
  expect(valueOf(values, "stellar_rpc_contract_entry_exists", counterEntry)).toBe(1);
  expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", counterEntry)).toBeUndefined();
  expect(valueOf(values, "stellar_rpc_contract_entry_archived", entry("counter", "instance"))).toBe(0);
  const text = await (await fetch(`${exporter.url}/metrics`)).text();
  expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" }).trim()).toBe("");
});

it("on every shard, the expiry uses the RPC's close interval (10 s), with the contracts polled once an hour", async () => {
  const ledgerMs = 10_000;
  const clock = Date.UTC(2026, 0, 1);
  simulator = await startSimulator({ ledgerIntervalMs: ledgerMs, pools: 1, seed: 5, now: () => clock });
  const sim = simulator.simulator;
  const at = sim.latestLedgerPoint();
  const ttls = { instance: 3_000_000, code: 2_500_000, storage: 300_000 };
  // Enough contracts that each of the two shards watches some.
  const extra = Array.from({ length: 8 }, (_, index) =>
    sim.contracts.addWasmContract(`extra${index}`, ["Counter"], at, ttls),
  );
  const contracts = [...sim.contracts.demo, ...extra];
  const file = writeConfig(
    JSON.stringify({ rpc_targets: [{ name: "sim-rpc", url: `${simulator.url}/rpc`, contracts }], poll_interval: "1h" }),
  );
  for (const shard of ["0/2", "1/2"]) {
    const config = await configFrom([`--config.file=${file}`, `--shard=${shard}`]);
    const replica = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }) });
    shards.push(replica);
    await replica.firstPolls;
  }
  for (let round = 0; round < 4; round += 1) {
    sim.advance(3 * ledgerMs);
    for (const replica of shards) await replica.pollAll();
  }
  for (const replica of shards) {
    const values = parseExposition(await (await fetch(`${replica.url}/metrics`)).text());
    const nowSeconds = Date.now() / 1000;
    const perLedger: number[] = [];
    for (const [series, ttl] of values) {
      if (!series.startsWith("stellar_rpc_contract_entry_ttl_ledgers{") || ttl < 1000) continue;
      const expiry = values.get(series.replace("_ttl_ledgers{", "_expiry_timestamp_seconds{"))!;
      perLedger.push((expiry - nowSeconds) / ttl);
    }
    expect(perLedger.length).toBeGreaterThan(0);
    for (const seconds of perLedger) expect(seconds).toBeCloseTo(10, 0);
  }
}, 60_000);
