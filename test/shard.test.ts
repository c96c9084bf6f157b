import { Keypair } from "@stellar/stellar-base";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { inShard } from "../src/config/shard.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { COLD_WALLET, HOT_WALLET, startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { STATE_ARCHIVAL, type DemoContract } from "../src/simulator/contracts.js";
import { writeConfig } from "./support/config-files.js";
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
const ACCOUNTS = [
  HOT_WALLET,
  COLD_WALLET,
  ...Array.from({ length: 10 }, (_, index) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, index + 1)).publicKey()),
];

/** The demo's contracts (a wasm one with a storage key, USDC's asset contract) and six more wasm contracts with two storage keys each. */
function deployContracts(): DemoContract[] {
  const contracts = simulator!.simulator.contracts;
  const at = simulator!.simulator.latestLedgerPoint();
  const more = Array.from({ length: 6 }, (_, index) =>
    contracts.addWasmContract(`extra${index}`, ["Counter", "Owner"], at, {
      instance: 3_000_000,
      code: 2_500_000,
      storage: 300_000,
    }),
  );
  return [...contracts.demo, ...more];
}

/** A file with both kinds of target, every account on each and the contracts on the RPC. */
function configFile(contracts: readonly DemoContract[]): string {
  const accounts = ACCOUNTS.map((id, index) => ({ name: `a${index}`, id }));
  return writeConfig(
    JSON.stringify({
      targets: [{ name: "sim", url: simulator!.url, accounts, assets: [USDC] }],
      rpc_targets: [
        {
          name: "sim-rpc",
          url: `${simulator!.url}/rpc`,
          account_assets: [USDC],
          accounts,
          contracts: contracts.map((contract) => ({ ...contract, events: true })),
        },
      ],
      poll_interval: "1h",
      liquidity_pools: { max: 3 },
    }),
  );
}

async function replica(file: string, shard: string): Promise<Map<string, number>> {
  const config = await configFrom([`--config.file=${file}`, `--shard=${shard}`]);
  const exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }) });
  exporters.push(exporter);
  await exporter.firstPolls;
  return parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
}

const watched = (values: Map<string, number>, family: string, label: "horizon" | "rpc") =>
  [...values.keys()]
    .filter((key) => key.startsWith(`${family}{`) && key.includes(`${label}=`))
    .map((key) => /account="([^"]*)"/.exec(key)![1]!);

/** Every series of the contract families, as `contract/entry` where it has an entry. */
const contractSeries = (values: Map<string, number>) =>
  [...values.keys()].filter((key) => key.startsWith("stellar_rpc_contract_"));
const contractEntries = (values: Map<string, number>) =>
  contractSeries(values)
    .filter((key) => key.startsWith("stellar_rpc_contract_entry_exists{"))
    .map((key) => `${/contract="([^"]*)"/.exec(key)![1]}/${/entry="([^"]*)"/.exec(key)![1]}`);

const STATE_ARCHIVAL_SERIES = {
  stellar_rpc_state_archival_max_entry_ttl_ledgers: STATE_ARCHIVAL.maxEntryTtl,
  stellar_rpc_state_archival_min_persistent_ttl_ledgers: STATE_ARCHIVAL.minPersistentTtl,
  stellar_rpc_state_archival_min_temporary_ttl_ledgers: STATE_ARCHIVAL.minTemporaryTtl,
};
const stateArchival = (values: Map<string, number>) =>
  Object.fromEntries(
    Object.keys(STATE_ARCHIVAL_SERIES).map((name) => [name, valueOf(values, name, { rpc: "sim-rpc" })]),
  );

describe("--shard=INDEX/TOTAL", () => {
  it("two replicas export every account and every contract entry exactly once, on both kinds of target; network-level series only on shard 0", async () => {
    const clock = Date.UTC(2026, 0, 1);
    simulator = await startSimulator({ ledgerIntervalMs: 5_000, pools: 3, seed: 5, now: () => clock });
    const contracts = deployContracts();
    const file = configFile(contracts);
    const [zero, one] = [await replica(file, "0/2"), await replica(file, "1/2")];
    const names = ACCOUNTS.map((_, index) => `a${index}`).sort();
    for (const [family, label] of [
      ["stellar_horizon_account_exists", "horizon"],
      ["stellar_rpc_account_exists", "rpc"],
    ] as const) {
      const both = [...watched(zero, family, label), ...watched(one, family, label)].sort();
      expect(both, family).toEqual(names);
      expect(watched(one, family, label).length, family).toBeGreaterThan(0);
      expect(watched(zero, family, label).length, family).toBeGreaterThan(0);
    }

    // Every contract's instance, code (wasm ones) and storage keys, each on the shard its id hashes to.
    const entriesOf = (contract: DemoContract) => [
      `${contract.name}/instance`,
      ...(contract.name === "usdc" ? [] : [`${contract.name}/code`]),
      ...contract.keys.map((key) => `${contract.name}/${key.name}`),
    ];
    const expected = (index: number) =>
      contracts
        .filter((contract) => inShard({ index, total: 2 }, contract.id))
        .flatMap(entriesOf)
        .sort();
    expect(expected(0).length).toBeGreaterThan(0);
    expect(expected(1).length).toBeGreaterThan(0);
    expect(contractEntries(zero).sort()).toEqual(expected(0));
    expect(contractEntries(one).sort()).toEqual(expected(1));
    expect([...contractEntries(zero), ...contractEntries(one)].sort()).toEqual(contracts.flatMap(entriesOf).sort());
    // Not one series of the contract families is on both (each shard reads its own contracts' events, and
    // counts the ledgers its own cursors skipped).
    expect(
      contractSeries(zero).filter(
        (key) => one.has(key) && !key.startsWith("stellar_rpc_contract_events_skipped_ledgers_total"),
      ),
    ).toEqual([]);
    // A contract's events are counted by the shard that watches it, and by no other.
    const upgradesOf = (values: Map<string, number>) =>
      contractSeries(values)
        .filter((key) => key.startsWith("stellar_rpc_contract_upgrades_total{"))
        .map((key) => /contract="([^"]*)"/.exec(key)![1]!)
        .sort();
    const namesOn = (index: number) =>
      contracts
        .filter((contract) => inShard({ index, total: 2 }, contract.id))
        .map(({ name }) => name)
        .sort();
    expect(upgradesOf(zero)).toEqual(namesOn(0));
    expect(upgradesOf(one)).toEqual(namesOn(1));
    // With the clock frozen no ledger closes: each extra storage key has the 300 000 ledgers it was given, on its shard.
    for (const contract of contracts.filter(({ name }) => name.startsWith("extra"))) {
      const owner = contractEntries(zero).includes(`${contract.name}/owner`) ? zero : one;
      expect(
        valueOf(owner, "stellar_rpc_contract_entry_ttl_ledgers", {
          rpc: "sim-rpc",
          contract: contract.name,
          entry: "owner",
          durability: "persistent",
        }),
        contract.name,
      ).toBe(300_000);
    }

    // The state-archival settings are the network's: shard 0 alone exports them, with the served values.
    expect(stateArchival(zero)).toEqual(STATE_ARCHIVAL_SERIES);
    expect([...one.keys()].filter((key) => key.startsWith("stellar_rpc_state_archival_"))).toEqual([]);

    expect(valueOf(zero, "stellar_horizon_exporter_shard_info", { index: "0", total: "2" })).toBe(1);
    expect(valueOf(one, "stellar_horizon_exporter_shard_info", { index: "1", total: "2" })).toBe(1);
    expect(valueOf(zero, "stellar_horizon_up", { horizon: "sim" })).toBe(1);
    expect(valueOf(zero, "stellar_rpc_up", { rpc: "sim-rpc" })).toBe(1);
    const networkLevel =
      /^stellar_(horizon_(up|info|ledger|fee|liquidity|ingest|history|core|current|asset)|rpc_(up|healthy|info|latest|inclusion|fee|state_archival))/;
    expect([...one.keys()].filter((key) => networkLevel.test(key))).toEqual([]);
    // Assets are network-level: shard 0 alone polls them.
    expect(valueOf(zero, "stellar_horizon_asset_exists", { horizon: "sim", asset: USDC })).toBe(1);

    // Every shard reads the base reserve its accounts need: the same minimum balances as the Horizon path of shard 0 would show.
    const hot = `a0`;
    const owner = watched(zero, "stellar_horizon_account_exists", "horizon").includes(hot) ? zero : one;
    const expectedMinimum = valueOf(owner, "stellar_horizon_account_minimum_balance", { horizon: "sim", account: hot });
    expect(expectedMinimum).toBeGreaterThan(1);
    expect(valueOf(owner, "stellar_rpc_account_minimum_balance", { rpc: "sim-rpc", account: hot })).toBe(
      expectedMinimum,
    );
  });

  it("shard 0 exports the state-archival settings even when every watched contract is another shard's", async () => {
    simulator = await startSimulator({ ledgerIntervalMs: 5_000, pools: 3, seed: 5 });
    const others = deployContracts().filter((contract) => inShard({ index: 1, total: 2 }, contract.id));
    expect(others.length).toBeGreaterThan(0);
    const zero = await replica(configFile(others), "0/2");
    expect(contractSeries(zero)).toEqual([]);
    expect(stateArchival(zero)).toEqual(STATE_ARCHIVAL_SERIES);
  });
});
