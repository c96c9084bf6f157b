// The contracts poll of a Stellar RPC target: its watched contracts' entries and the state-archival settings' TTLs.
import type { Logger } from "pino";
import { RPC_METRICS } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import {
  codeKeysPerCall,
  ledgerEntriesCalls,
  readLedgerEntries,
  type LedgerEntriesRead,
} from "../client/ledger-entries.js";
import { contractCodeKey, contractDataKey, contractInstanceKey, stateArchivalKey } from "../client/ledger-keys.js";
import type { RpcClient } from "../client/rpc-client.js";
import { latestLedgerSchema, type RpcLedgerEntry } from "../client/rpc-schemas.js";
import type { Durability, WatchedContract } from "../config/contracts.js";
import type { CollectorSamples, LabelsOf, Sample } from "../exposition/samples.js";
import { stellarBase } from "../stellar-base.js";
import type { xdr } from "@stellar/stellar-base";
import { Poll, type JobTiming, type PollContext, type PollJob, type RpcJobParts } from "../job/job.js";
import { ArchivalJudge, LedgerCloseWindow, type ReturnedEntry } from "./contract-archival.js";
import type { Clock } from "../clock.js";
import type { LedgerClose, NetworkView } from "../job/network.js";

/** What a contract's instance says it runs: a wasm (by hash, hex) or the Stellar Asset Contract (hash empty). */
type Executable = { readonly kind: "wasm" | "stellar_asset"; readonly wasmHash: string };

/** `entry`: `instance`, `code`, or the configured key's name. */
type EntryLabels = LabelsOf<typeof RPC_METRICS.contractEntryExists>;
type WatchedEntry = { readonly key: string; readonly labels: EntryLabels };

/** What a poll keeps of a returned entry: its TTL, and the XDR of the entries it decodes (instances, the setting). */
type ReadEntry = ReturnedEntry & { readonly xdr?: string };

interface ContractsDependencies {
  readonly client: Pick<RpcClient, "call">;
  /** Where the status poll notes the latest ledger and its close time (`latestLedgerClose`). */
  readonly network: Pick<NetworkView, "current">;
  /** Whether the poll reads the latest ledger's close time itself (getLatestLedger), for want of a status poll: on
   * shards other than 0. */
  readonly ownCloses?: boolean;
  readonly clock: Pick<Clock, "now">;
  readonly log: Logger;
  /** Whether to read and export the network's state-archival settings: network-level series come from shard 0 alone. */
  readonly stateArchival: boolean;
  /** The client's body cap, which bounds the code keys one call asks for. */
  readonly maxBodyBytes: number;
}

/** A watched contract with its instance and configured keys, encoded once. */
type WatchedKeys = ReturnType<typeof watchedKeys>;

function watchedKeys(contract: WatchedContract) {
  const { id, name } = contract;
  const keys = contract.keys.map((key) =>
    watchedEntry(name, key.name, key.durability, contractDataKey(id, key.key, key.durability)),
  );
  return { contract, instance: watchedEntry(name, "instance", "persistent", contractInstanceKey(id)), keys };
}

function watchedEntry(contract: string, entry: string, durability: Durability, key: string): WatchedEntry {
  return { key, labels: { contract, entry, durability } };
}

/** Requests a contracts poll sends in steady state: the setting where read, each contract's instance, code (at most
 * codeKeysPerCall a call) and keys, and getLatestLedger where it reads close times itself. */
export function contractsRequestsPerPoll(
  contracts: readonly WatchedContract[],
  {
    stateArchival,
    ownCloses = false,
    maxBodyBytes,
  }: Pick<ContractsDependencies, "stateArchival" | "ownCloses" | "maxBodyBytes">,
): number {
  const keys = contracts.reduce((total, { keys }) => total + 2 + keys.length, stateArchival ? 1 : 0);
  return ledgerEntriesCalls(keys, contracts.length, codeKeysPerCall(maxBodyBytes)) + (ownCloses ? 1 : 0);
}

export class ContractsCollector extends Poll implements PollJob {
  readonly source = "contracts";
  private readonly watched: readonly WatchedKeys[];
  /** The first round's keys but the code: the setting (where read), every instance and configured key. */
  private readonly ownKeys: readonly string[];
  private readonly configKey = stateArchivalKey();
  private readonly judge: ArchivalJudge<EntryLabels>;
  private readonly closes = new LedgerCloseWindow();
  /** By contract name (one id may be watched under two names, each with its own info): its instance's executable,
   * XDR and the contract's info sample, made again only when the XDR changes. */
  private readonly executables = new Map<string, { xdr: string; executable: Executable; info: Sample }>();
  /** By contract, the code entry of the wasm its instance was last returned running: unused code is forgotten. */
  private readonly codeEntries = new Map<string, { readonly wasmHash: string; readonly entry: WatchedEntry }>();
  private latest: readonly Sample[] = [];
  /** The keys whose XDR a poll keeps, to decode it: every instance, and the state-archival setting. */
  private readonly decodedKeys: ReadonlySet<string>;

  constructor(
    contracts: readonly WatchedContract[],
    private readonly dependencies: ContractsDependencies,
    timing: JobTiming,
  ) {
    super(timing);
    this.watched = contracts.map(watchedKeys);
    const ownEntries = this.watched.flatMap(({ instance, keys }) => [instance.key, ...keys.map(({ key }) => key)]);
    this.ownKeys = dependencies.stateArchival ? [this.configKey, ...ownEntries] : ownEntries;
    this.decodedKeys = new Set([this.configKey, ...this.watched.map(({ instance }) => instance.key)]);
    this.judge = new ArchivalJudge(({ contract, entry }, state, latestLedger) => {
      dependencies.log.warn(
        { contract, entry, lastKnownLiveUntilLedger: state.lastKnownLiveUntil, latestLedger },
        "the RPC reports as expired a contract entry this exporter saw live beyond its latest ledger " +
          "(stellar-rpc#990): its archival state is unknown until the RPC reports it live again",
      );
    });
  }

  /** One round: the setting, instances, keys, known code; a second: code of new wasm hashes (first poll, upgrade). */
  async run({ signal, progressed, invalidRecords }: PollContext): Promise<void> {
    const close = this.dependencies.ownCloses
      ? await this.latestClose(signal, progressed, invalidRecords)
      : this.dependencies.network.current.latestLedgerClose;
    if (close !== undefined) this.closes.observe(close);
    const codeKeys = new Map([...this.codeEntries.values()].map(({ wasmHash, entry }) => [wasmHash, entry.key]));
    // A storage or code entry's XDR is dropped as its response arrives: only its TTL is read.
    const keep = (entry: Readonly<RpcLedgerEntry>, latestLedger: number): ReadEntry => {
      const xdr = this.decodedKeys.has(entry.key) ? entry.xdr : undefined;
      return { xdr, liveUntilLedgerSeq: entry.liveUntilLedgerSeq, latestLedger };
    };
    // Every answer is progress, one of only missing keys too: the deadline waits for a silent RPC alone.
    // A code entry may hold 128 KiB of wasm: a call asks for no more code than keeps its answer under the body cap.
    const perCall = codeKeysPerCall(this.dependencies.maxBodyBytes);
    const read = (keys: readonly string[], code: Iterable<string>) =>
      readLedgerEntries(this.dependencies.client, "contracts", keys, signal, keep, progressed, {
        keys: new Set(code),
        perCall,
      });
    const first = await read([...this.ownKeys, ...codeKeys.values()], codeKeys.values());
    const fresh = new Set<string>();
    for (const watched of this.watched) {
      const executable = this.executableOf(watched, first.entries.get(watched.instance.key));
      if (executable?.kind === "wasm" && !codeKeys.has(executable.wasmHash)) fresh.add(executable.wasmHash);
    }
    const freshKeys = [...fresh].map((wasmHash) => contractCodeKey(wasmHash));
    const second = freshKeys.length > 0 ? await read(freshKeys, freshKeys) : undefined;
    this.latest = this.sampled(first, second);
  }

  /** The latest close from getLatestLedger (stellar-rpc 25+ sends its time), for the interval alone: an answer that
   * fails its schema is counted invalid and leaves the interval as it was, the entries read all the same. An RPC not
   * answering fails the poll, as its entries would. */
  private async latestClose(
    signal: AbortSignal,
    progressed: () => void,
    invalidRecords: (count: number) => void,
  ): Promise<LedgerClose | undefined> {
    const answer = await this.dependencies.client.call("contracts", "getLatestLedger", undefined, signal);
    progressed();
    const latest = latestLedgerSchema.safeParse(answer);
    if (!latest.success) return void invalidRecords(1);
    const { sequence, closeTime } = latest.data;
    return closeTime === undefined ? undefined : { sequence, closeTime };
  }

  samples(lastPollSucceeded: boolean): CollectorSamples<Sample> {
    return { live: lastPollSucceeded ? this.latest : [], persistent: [] };
  }

  /** Each watched entry's samples (instance, a returned wasm instance's code, keys), then the infos and the setting. */
  private sampled(first: LedgerEntriesRead<ReadEntry>, second: LedgerEntriesRead<ReadEntry> | undefined): Sample[] {
    const secondsPerLedger = this.closes.meanIntervalSeconds();
    const nowSeconds = this.dependencies.clock.now() / 1000;
    const live: Sample[] = [];
    const judge = ({ key, labels }: WatchedEntry) => {
      const state = this.judge.judge(key, first.entries.get(key) ?? second?.entries.get(key), labels);
      live.push({ metric: RPC_METRICS.contractEntryExists, labels, value: state.kind === "missing" ? 0 : 1 });
      if (state.kind === "archived") live.push({ metric: RPC_METRICS.contractEntryArchived, labels, value: 1 });
      if (state.kind !== "live") return;
      const expiry = Math.round(nowSeconds + state.ttlLedgers * secondsPerLedger);
      live.push(
        { metric: RPC_METRICS.contractEntryArchived, labels, value: 0 },
        { metric: RPC_METRICS.contractEntryLiveUntil, labels, value: state.liveUntilLedger },
        { metric: RPC_METRICS.contractEntryTtl, labels, value: state.ttlLedgers },
        { metric: RPC_METRICS.contractEntryExpiry, labels, value: expiry },
      );
    };
    const infos: Sample[] = [];
    for (const { contract, instance, keys } of this.watched) {
      judge(instance);
      const known = this.executables.get(contract.name);
      if (known !== undefined) infos.push(known.info);
      if (known?.executable.kind === "wasm") judge(this.codeEntryOf(contract.name, known.executable.wasmHash));
      else this.codeEntries.delete(contract.name);
      for (const key of keys) judge(key);
    }
    // What the judge remembers of entries no longer watched (a contract's code before an upgrade) goes.
    this.judge.forgetUnjudged();
    live.push(...infos, ...stateArchivalSamples(first.entries.get(this.configKey)));
    return live;
  }

  /** The instance's executable, decoded when its entry changed; undefined while it is not returned. */
  private executableOf({ contract }: WatchedKeys, returned: ReadEntry | undefined): Executable | undefined {
    if (returned === undefined) {
      this.executables.delete(contract.name);
      return undefined;
    }
    const entryXdr = returned.xdr ?? "";
    const cached = this.executables.get(contract.name);
    if (cached?.xdr === entryXdr) return cached.executable;
    const executable = decodeExecutable(entryXdr, contract.name);
    const { kind, wasmHash } = executable;
    const labels = { contract: contract.name, contract_id: contract.id, executable: kind, wasm_hash: wasmHash };
    const info: Sample = { metric: RPC_METRICS.contractInfo, labels, value: 1 };
    this.executables.set(contract.name, { xdr: entryXdr, executable, info });
    return executable;
  }

  /** The contract's code entry for this wasm hash: the same object, and labels, poll after poll. */
  private codeEntryOf(contract: string, wasmHash: string): WatchedEntry {
    let code = this.codeEntries.get(contract);
    if (code?.wasmHash !== wasmHash) {
      code = { wasmHash, entry: watchedEntry(contract, "code", "persistent", contractCodeKey(wasmHash)) };
      this.codeEntries.set(contract, code);
    }
    return code.entry;
  }
}

/** What `read` takes from the entry's data; a schema failure saying getLedgerEntries returned `what` if it throws. */
function decodeEntry<T>(entryXdr: string, what: string, read: (data: xdr.LedgerEntryData) => T): T {
  const { LedgerEntryData } = stellarBase().xdr;
  try {
    return read(LedgerEntryData.fromXDR(entryXdr, "base64"));
  } catch (error) {
    throw new PollError("schema", `getLedgerEntries returned ${what}: ${String(error)}`);
  }
}

function decodeExecutable(entryXdr: string, contract: string): Executable {
  const what = `contract ${JSON.stringify(contract)}'s instance as something other than a contract instance`;
  return decodeEntry(entryXdr, what, (data): Executable => {
    const executable = data.contractData().val().instance().executable();
    if (executable.switch() === stellarBase().xdr.ContractExecutableType.contractExecutableStellarAsset())
      return { kind: "stellar_asset", wasmHash: "" };
    return { kind: "wasm", wasmHash: executable.wasmHash().toString("hex") };
  });
}

function stateArchivalSamples(entry: ReadEntry | undefined): Sample[] {
  if (entry === undefined) return [];
  return decodeEntry(entry.xdr ?? "", "the state-archival setting in another shape", (data): Sample[] => {
    const settings = data.configSetting().stateArchivalSettings();
    return [
      { metric: RPC_METRICS.stateArchivalMaxEntryTtl, value: settings.maxEntryTtl() },
      { metric: RPC_METRICS.stateArchivalMinPersistentTtl, value: settings.minPersistentTtl() },
      { metric: RPC_METRICS.stateArchivalMinTemporaryTtl, value: settings.minTemporaryTtl() },
    ];
  });
}

/** A Stellar RPC's contracts poll: state-archival settings on shard 0, even when all contracts are another shard's. */
export function contractsJob({ client, config, target, network, clock, log }: RpcJobParts): ContractsCollector {
  const stateArchival = config.shard.index === 0 && (target.contractsWatched ?? target.contracts.length > 0);
  // The expiry's close interval: the status poll's latest close, read at each run, on shard 0; elsewhere no status
  // poll runs (it is network-level), so the poll asks getLatestLedger itself, one request more.
  const ownCloses = config.shard.index !== 0;
  const endpointLog = log.child({ endpoint: "contracts" });
  const { maxBodyBytes } = config;
  const dependencies = { client, network, clock, log: endpointLog, stateArchival, ownCloses, maxBodyBytes };
  const requestsPerRun = contractsRequestsPerPoll(target.contracts, dependencies);
  const timing = { schedule: target.schedules.contracts, requestsPerRun };
  return new ContractsCollector(target.contracts, dependencies, timing);
}
