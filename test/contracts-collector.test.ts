import { StrKey, xdr } from "@stellar/stellar-base";
import { pino } from "pino";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PollError } from "../src/client/errors.js";
import { contractCodeKey, contractInstanceKey } from "../src/client/ledger-keys.js";
import { RpcClient } from "../src/client/rpc-client.js";
import { ContractsCollector, contractsRequestsPerPoll } from "../src/collectors/contracts.js";
import type { LedgerClose } from "../src/job/network.js";
import type { WatchedContract } from "../src/config/contracts.js";
import { renderSamples } from "./support/render-samples.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { rpcFixtureJson } from "./support/fixtures.js";
import { pollContext } from "./support/poll-context.js";

type Capture = {
  result: {
    entries: { key: string; xdr: string; lastModifiedLedgerSeq: number; liveUntilLedgerSeq?: number }[];
    latestLedger: number;
  };
};

const capture = (name: string) => rpcFixtureJson<Capture>(name).result.entries;
const INSTANCE = capture("getLedgerEntries-contract-instance-dotnet-sdk.json")[0]!;
const CODE = capture("getLedgerEntries-contract-code-dotnet-sdk.json")[0]!;
const BALANCE = capture("getLedgerEntries-contract-data-persistent-java-sdk.json")[0]!;
const STATE_ARCHIVAL = capture("getLedgerEntries-config-settings-dotnet-sdk.json")[10]!;
/** The contract of the instance capture, whose wasm is the code capture's. */
const WASM_CONTRACT = "CDSUR2JFKSUORJLUA2FISW7P6ALDTS2PDK6AYQZ7G4CSY5WZS5QVSM47";
const WASM_HASH = "c1a650506f7c20c8f4d16aae73f894f302cd011d7ef33adef572f20b34f7653e";
/** The testnet native-XLM asset contract of the balance capture. */
const XLM_CONTRACT = "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC";
const BALANCE_SCVAL = xdr.LedgerKey.fromXDR(BALANCE.key, "base64").contractData().key().toXDR("base64");
const LATEST = 458386;
const NOW_MS = 1_800_000_000_000;
const MAX_BODY_BYTES = 1 << 22;

let rpc: FakeRpc;
let url: string;
let client: RpcClient;
let logged: Record<string, unknown>[];

beforeEach(async () => {
  rpc = new FakeRpc();
  url = await rpc.start();
  client = new RpcClient({ url, timeoutMs: 2_000, retries: 0, maxBodyBytes: MAX_BODY_BYTES });
  for (const { key, ...entry } of [INSTANCE, CODE, BALANCE, STATE_ARCHIVAL]) rpc.ledgerEntries.set(key, entry);
  rpc.ledgerEntriesLatestLedger = LATEST;
  logged = [];
});

afterEach(async () => {
  await rpc.stop();
});

const CONTRACTS: WatchedContract[] = [
  { name: "hello", id: WASM_CONTRACT, keys: [] },
  { name: "xlm", id: XLM_CONTRACT, keys: [{ name: "balance", key: BALANCE_SCVAL, durability: "persistent" }] },
];

function collector(
  contracts = CONTRACTS,
  closes: (LedgerClose | undefined)[] = [],
  stateArchival = true,
): ContractsCollector {
  const log = pino(
    { level: "warn" },
    new Writable({ write: (chunk, _encoding, done) => (logged.push(JSON.parse(String(chunk))), done()) }),
  );
  const network = {
    get current() {
      const latestLedgerClose = closes.shift();
      return latestLedgerClose === undefined ? {} : { latestLedgerClose };
    },
  };
  return new ContractsCollector(
    contracts,
    { client, network, clock: { now: () => NOW_MS }, log, stateArchival, maxBodyBytes: MAX_BODY_BYTES },
    { schedule: parseSchedule("1m") as Schedule, requestsPerRun: 1 },
  );
}

async function series(job: ContractsCollector, succeeded = true) {
  const samples = job.samples(succeeded);
  return parseExposition(await renderSamples("rpc", [...samples.persistent, ...samples.live]));
}

const poll = (job: ContractsCollector) => job.run(pollContext());
const entry = (contract: string, name: string) => ({ rpc: "rpc", contract, entry: name, durability: "persistent" });

/** The plan of a shard other than 0: no status poll there, so the contracts poll reads close times itself. */
const OWN_CLOSES_PLAN = { stateArchival: false, ownCloses: true, maxBodyBytes: MAX_BODY_BYTES };

/** A collector on such a shard, with no close time from a status poll in its network view. */
function ownClosesCollector(): ContractsCollector {
  const dependencies = { client, clock: { now: () => NOW_MS }, log: pino({ level: "silent" }), ...OWN_CLOSES_PLAN };
  const timing = { schedule: parseSchedule("1m") as Schedule, requestsPerRun: 2 };
  return new ContractsCollector(CONTRACTS, { ...dependencies, network: { current: {} } }, timing);
}

describe("ContractsCollector", () => {
  it("every series equals the served values; the first poll reads the new wasm's code in a second round", async () => {
    const job = collector();
    await poll(job);
    expect(rpc.ledgerEntriesCalls().map((keys) => keys.length)).toEqual([4, 1]);
    expect(rpc.ledgerEntriesCalls()[1]).toEqual([CODE.key]);
    const values = await series(job);
    const hello = entry("hello", "instance");
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", hello)).toBe(1);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", hello)).toBe(0);
    expect(valueOf(values, "stellar_rpc_contract_entry_live_until_ledger", hello)).toBe(2531884);
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", hello)).toBe(2531884 - LATEST);
    // No close seen yet: 5 s a ledger.
    expect(valueOf(values, "stellar_rpc_contract_entry_expiry_timestamp_seconds", hello)).toBe(
      NOW_MS / 1000 + (2531884 - LATEST) * 5,
    );
    const code = entry("hello", "code");
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", code)).toBe(2348425 - LATEST);
    expect(
      valueOf(values, "stellar_rpc_contract_info", {
        rpc: "rpc",
        contract: "hello",
        contract_id: WASM_CONTRACT,
        executable: "wasm",
        wasm_hash: WASM_HASH,
      }),
    ).toBe(1);
    // The asset contract's instance is not served: it is missing, and its code is not asked for.
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", entry("xlm", "instance"))).toBe(0);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", entry("xlm", "instance"))).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", entry("xlm", "code"))).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("xlm", "balance"))).toBe(3163876 - LATEST);
    expect(valueOf(values, "stellar_rpc_state_archival_max_entry_ttl_ledgers", { rpc: "rpc" })).toBe(3110400);
    expect(valueOf(values, "stellar_rpc_state_archival_min_persistent_ttl_ledgers", { rpc: "rpc" })).toBe(2073600);
    expect(valueOf(values, "stellar_rpc_state_archival_min_temporary_ttl_ledgers", { rpc: "rpc" })).toBe(17280);
  });

  it("without the state-archival settings (a shard other than 0) reads and exports the same entries, and not the setting", async () => {
    const job = collector(CONTRACTS, [], false);
    await poll(job);
    await poll(job);
    expect(rpc.ledgerEntriesCalls().map((keys) => keys.length)).toEqual([3, 1, 4]);
    expect(rpc.ledgerEntriesCalls().flat()).not.toContain(STATE_ARCHIVAL.key);
    const values = await series(job);
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("hello", "instance"))).toBe(
      2531884 - LATEST,
    );
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("hello", "code"))).toBe(2348425 - LATEST);
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", entry("xlm", "instance"))).toBe(0);
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("xlm", "balance"))).toBe(3163876 - LATEST);
    expect([...values.keys()].filter((key) => key.startsWith("stellar_rpc_state_archival_"))).toEqual([]);
  });

  it("later polls read the known code in the first round: one call", async () => {
    const job = collector();
    await poll(job);
    await poll(job);
    expect(rpc.ledgerEntriesCalls().map((keys) => keys.length)).toEqual([4, 1, 5]);
  });

  it("an unchanged entry keeps its exists, archived, live-until values and info sample from poll to poll; ttl and expiry follow the ledger", async () => {
    const job = collector();
    await poll(job);
    const first = job.samples(true).live;
    rpc.ledgerEntriesLatestLedger = LATEST + 7;
    await poll(job);
    const second = job.samples(true).live;
    expect(second.map((sample) => sample.metric.name)).toEqual(first.map((sample) => sample.metric.name));
    const steadyFamilies = ["exists", "archived", "live_until_ledger"].map(
      (suffix) => `stellar_rpc_contract_entry_${suffix}`,
    );
    second.forEach((sample, index) => {
      if (steadyFamilies.includes(sample.metric.name)) expect(sample, sample.metric.name).toEqual(first[index]);
      // The info sample comes with the decoded instance, which is kept while its XDR is the same.
      if (sample.metric.name === "stellar_rpc_contract_info") expect(sample).toBe(first[index]);
    });
    const values = await series(job);
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("hello", "instance"))).toBe(
      2531884 - LATEST - 7,
    );
    expect(valueOf(values, "stellar_rpc_contract_entry_live_until_ledger", entry("hello", "instance"))).toBe(2531884);
    // An entry extended gets a new live-until sample.
    rpc.ledgerEntries.set(INSTANCE.key, {
      xdr: INSTANCE.xdr,
      lastModifiedLedgerSeq: INSTANCE.lastModifiedLedgerSeq,
      liveUntilLedgerSeq: 2531884 + 100,
    });
    await poll(job);
    const extended = await series(job);
    expect(valueOf(extended, "stellar_rpc_contract_entry_live_until_ledger", entry("hello", "instance"))).toBe(
      2531884 + 100,
    );
    expect(valueOf(extended, "stellar_rpc_contract_entry_ttl_ledgers", entry("hello", "instance"))).toBe(
      2531884 + 100 - LATEST - 7,
    );
  });

  it("after an upgrade, the old wasm's code is asked for no more", async () => {
    const upgraded = xdr.LedgerEntryData.fromXDR(INSTANCE.xdr, "base64");
    const newHash = Buffer.alloc(32, 7);
    upgraded.contractData().val().instance().executable(xdr.ContractExecutable.contractExecutableWasm(newHash));
    const newCodeKey = xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: newHash })).toXDR("base64");
    const job = collector();
    await poll(job);
    rpc.ledgerEntries.set(INSTANCE.key, { ...INSTANCE, xdr: upgraded.toXDR("base64") });
    const { key: _oldKey, ...code } = CODE;
    rpc.ledgerEntries.set(newCodeKey, { ...code, liveUntilLedgerSeq: LATEST + 5 });
    await poll(job);
    await poll(job);
    const calls = rpc.ledgerEntriesCalls();
    // The second poll still asks for the old code with the instance, then for the new code alone.
    expect(calls.map((keys) => keys.length)).toEqual([4, 1, 5, 1, 5]);
    expect(calls[3]).toEqual([newCodeKey]);
    expect(calls[4]).toContain(newCodeKey);
    expect(calls[4]).not.toContain(CODE.key);
    const values = await series(job);
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("hello", "code"))).toBe(5);
  });

  it("a Stellar Asset Contract has no code entry", async () => {
    const sacInstance = new xdr.ContractDataEntry({
      ext: new xdr.ExtensionPoint(0),
      contract: xdr.LedgerKey.fromXDR(BALANCE.key, "base64").contractData().contract(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent(),
      val: xdr.ScVal.scvContractInstance(
        new xdr.ScContractInstance({
          executable: xdr.ContractExecutable.contractExecutableStellarAsset(),
          storage: null,
        }),
      ),
    });
    const instanceKey = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: sacInstance.contract(),
        key: sacInstance.key(),
        durability: sacInstance.durability(),
      }),
    ).toXDR("base64");
    rpc.ledgerEntries.set(instanceKey, {
      xdr: xdr.LedgerEntryData.contractData(sacInstance).toXDR("base64"),
      lastModifiedLedgerSeq: 5,
      liveUntilLedgerSeq: LATEST + 10,
    });
    const job = collector();
    await poll(job);
    const values = await series(job);
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry("xlm", "instance"))).toBe(10);
    expect(
      valueOf(values, "stellar_rpc_contract_info", {
        rpc: "rpc",
        contract: "xlm",
        contract_id: XLM_CONTRACT,
        executable: "stellar_asset",
        wasm_hash: "",
      }),
    ).toBe(1);
    expect([...values.keys()].filter((key) => key.includes('contract="xlm"') && key.includes('entry="code"'))).toEqual(
      [],
    );
    expect(rpc.ledgerEntriesCalls()).toHaveLength(2);
  });

  it("v22: an expired entry comes back with its past live-until: archived, no ttl, live-until or expiry", async () => {
    rpc.ledgerEntries.set(BALANCE.key, { ...BALANCE, liveUntilLedgerSeq: LATEST - 3 });
    const job = collector();
    await poll(job);
    const values = await series(job);
    const balance = entry("xlm", "balance");
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", balance)).toBe(1);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", balance)).toBe(1);
    for (const name of ["live_until_ledger", "ttl_ledgers", "expiry_timestamp_seconds"]) {
      expect(valueOf(values, `stellar_rpc_contract_entry_${name}`, balance)).toBeUndefined();
    }
  });

  it("v23+: 0 is archived; a 0 after the entry was seen live ahead is unknown (stellar-rpc#990), logged once", async () => {
    const job = collector();
    await poll(job);
    rpc.ledgerEntries.set(CODE.key, { ...CODE, liveUntilLedgerSeq: 0 });
    rpc.ledgerEntries.set(BALANCE.key, { ...BALANCE, liveUntilLedgerSeq: 0 });
    await poll(job);
    await poll(job);
    let values = await series(job);
    const code = entry("hello", "code");
    expect(valueOf(values, "stellar_rpc_contract_entry_exists", code)).toBe(1);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", code)).toBeUndefined();
    expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", code)).toBeUndefined();
    expect(logged.map((line) => [line.contract, line.entry, line.lastKnownLiveUntilLedger])).toEqual([
      ["hello", "code", 2348425],
      ["xlm", "balance", 3163876],
    ]);
    // A fresh exporter never saw them live: archived.
    const fresh = collector();
    await poll(fresh);
    values = await series(fresh);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", code)).toBe(1);
    expect(valueOf(values, "stellar_rpc_contract_entry_archived", entry("xlm", "balance"))).toBe(1);
  });

  it("one contract id watched under two names: each name has its own info series", async () => {
    const job = collector([
      { name: "alpha", id: WASM_CONTRACT, keys: [] },
      { name: "beta", id: WASM_CONTRACT, keys: [] },
    ]);
    await poll(job);
    await poll(job);
    const text = await renderSamples("rpc", job.samples(true).live);
    const infos = text.split("\n").filter((line) => line.startsWith("stellar_rpc_contract_info{"));
    expect(infos.map((line) => line.match(/contract="(\w+)"/)?.[1])).toEqual(["alpha", "beta"]);
    for (const contract of ["alpha", "beta"]) {
      const labels = { rpc: "rpc", contract, contract_id: WASM_CONTRACT, executable: "wasm", wasm_hash: WASM_HASH };
      expect(valueOf(await series(job), "stellar_rpc_contract_info", labels)).toBe(1);
      expect(valueOf(await series(job), "stellar_rpc_contract_entry_exists", entry(contract, "code"))).toBe(1);
    }
  });

  it("a deleted code entry gives exists 0", async () => {
    rpc.ledgerEntries.delete(CODE.key);
    const job = collector();
    await poll(job);
    expect(valueOf(await series(job), "stellar_rpc_contract_entry_exists", entry("hello", "code"))).toBe(0);
  });

  it.each([
    ["the mean close interval the RPC showed", { sequence: 1100, closeTime: 50_550 }, 5.5],
    // Runs two hours apart: the close interval between the two runs, not 5 s.
    ["polled two hours apart, the close interval between the two runs", { sequence: 2_200, closeTime: 57_200 }, 6],
  ])("the expiry uses %s", async (_, second, secondsPerLedger) => {
    const job = collector(CONTRACTS, [{ sequence: 1_000, closeTime: 50_000 }, second]);
    await poll(job);
    await poll(job);
    const ttl = 2531884 - LATEST;
    expect(
      valueOf(await series(job), "stellar_rpc_contract_entry_expiry_timestamp_seconds", entry("hello", "instance")),
    ).toBe(Math.round(NOW_MS / 1000 + ttl * secondsPerLedger));
  });

  it("where no status poll runs, reads the close times from getLatestLedger itself, one request more", async () => {
    const job = ownClosesCollector();
    const latest = { id: "ab", protocolVersion: 25 };
    rpc.answers.set("getLatestLedger", { result: { ...latest, sequence: 1000, closeTime: "50000" } });
    await poll(job);
    rpc.answers.set("getLatestLedger", { result: { ...latest, sequence: 1100, closeTime: "50700" } });
    await poll(job);
    expect(rpc.methodsCalled().filter((method) => method === "getLatestLedger")).toHaveLength(2);
    const ttl = 2531884 - LATEST;
    expect(
      valueOf(await series(job), "stellar_rpc_contract_entry_expiry_timestamp_seconds", entry("hello", "instance")),
    ).toBe(Math.round(NOW_MS / 1000 + ttl * 7));
    expect([
      contractsRequestsPerPoll(CONTRACTS, OWN_CLOSES_PLAN),
      contractsRequestsPerPoll(CONTRACTS, { ...OWN_CLOSES_PLAN, ownCloses: false }),
    ]).toEqual([2, 1]);
  });

  it("where getLatestLedger's answer fails its schema, counts it invalid and reads the entries all the same", async () => {
    const job = ownClosesCollector();
    rpc.answers.set("getLatestLedger", { result: { sequence: "not a ledger" } });
    const context = pollContext();
    await job.run(context);
    expect(context.invalid).toBe(1);
    expect(valueOf(await series(job), "stellar_rpc_contract_entry_exists", entry("hello", "instance"))).toBe(1);
  });

  it("a failed poll publishes nothing, and fails with the reader's reason", async () => {
    const job = collector();
    await poll(job);
    rpc.answers.set("getLedgerEntries", {
      error: { code: -32602, message: "key count (201) exceeds maximum supported (200)" },
    });
    const error = await poll(job).catch((caught: unknown) => caught);
    expect((error as PollError).reason).toBe("rpc_error");
    expect((await series(job, false)).size).toBe(0);
  });

  it("code entries of 128 KiB of wasm are read in calls whose answers stay under the body cap, as planned", async () => {
    const cap = 8 * 1024 ** 2;
    const big = new RpcClient({ url, timeoutMs: 10_000, retries: 0, maxBodyBytes: cap });
    const contracts: WatchedContract[] = [];
    const codeKeys = new Set<string>();
    let largestAnswer = 0;
    const { key: _key, ...servedInstance } = INSTANCE;
    for (let index = 0; index < 60; index += 1) {
      const wasmHash = Buffer.alloc(32, index + 1);
      const instance = xdr.LedgerEntryData.fromXDR(INSTANCE.xdr, "base64");
      instance.contractData().val().instance().executable(xdr.ContractExecutable.contractExecutableWasm(wasmHash));
      const name = `big${index}`;
      const id = StrKey.encodeContract(Buffer.alloc(32, index + 1));
      contracts.push({ name, id, keys: [] });
      rpc.ledgerEntries.set(contractInstanceKey(id), { ...servedInstance, xdr: instance.toXDR("base64") });
      const code = new xdr.ContractCodeEntry({
        ext: new xdr.ContractCodeEntryExt(0),
        hash: wasmHash,
        code: Buffer.alloc(128 * 1024, index),
      });
      const codeKey = contractCodeKey(wasmHash.toString("hex"));
      const served = { xdr: xdr.LedgerEntryData.contractCode(code).toXDR("base64"), lastModifiedLedgerSeq: 5 };
      rpc.ledgerEntries.set(codeKey, { ...served, liveUntilLedgerSeq: LATEST + index });
      codeKeys.add(codeKey);
      largestAnswer = Math.max(largestAnswer, JSON.stringify({ key: codeKey, ...served }).length);
    }
    const log = pino({ level: "silent" });
    const plan = { stateArchival: true, maxBodyBytes: cap };
    const dependencies = { client: big, network: { current: {} }, clock: { now: () => NOW_MS }, log, ...plan };
    const timing = { schedule: parseSchedule("1m") as Schedule, requestsPerRun: 1 };
    const job = new ContractsCollector(contracts, dependencies, timing);
    await poll(job);
    const firstPoll = rpc.ledgerEntriesCalls().length;
    await poll(job);
    const calls = rpc.ledgerEntriesCalls();
    for (const keys of calls) expect(keys.filter((key) => codeKeys.has(key)).length * largestAnswer).toBeLessThan(cap);
    expect(calls.length - firstPoll).toBe(contractsRequestsPerPoll(contracts, plan));
    const values = await series(job);
    contracts.forEach(({ name }, index) =>
      expect(valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", entry(name, "code"))).toBe(index),
    );
  });

  it("plans ceil(keys / 200) requests: 10 000 keys are 50", () => {
    // The setting, and per contract its instance, its code and 99 keys: 1 + 99 × 101 = 10 000 keys.
    const many: WatchedContract[] = Array.from({ length: 99 }, (_, index) => ({
      name: `c${index}`,
      id: WASM_CONTRACT,
      keys: Array.from({ length: 99 }, (_, key) => ({
        name: `k${key}`,
        key: BALANCE_SCVAL,
        durability: "persistent" as const,
      })),
    }));
    expect(contractsRequestsPerPoll(many, { stateArchival: true, maxBodyBytes: MAX_BODY_BYTES })).toBe(50);
    expect(contractsRequestsPerPoll(CONTRACTS, { stateArchival: true, maxBodyBytes: MAX_BODY_BYTES })).toBe(1);
    // 200 keys of contracts: the setting is the 201st, a second call.
    const twoHundred: WatchedContract[] = [
      {
        name: "c",
        id: WASM_CONTRACT,
        keys: Array.from({ length: 198 }, (_, key) => ({
          name: `k${key}`,
          key: BALANCE_SCVAL,
          durability: "persistent" as const,
        })),
      },
    ];
    const plan = (stateArchival: boolean) =>
      contractsRequestsPerPoll(twoHundred, { stateArchival, maxBodyBytes: MAX_BODY_BYTES });
    expect([plan(true), plan(false)]).toEqual([2, 1]);
  });
});
