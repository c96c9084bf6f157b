import { z } from "zod";
import { RPC_ACCOUNT_METRICS } from "../catalog/metrics.js";
import { accountFromEntries, baseReserveFromHeader, baseReserveFromHistoryEntry } from "../client/account-entries.js";
import { PollError } from "../client/errors.js";
import { validated } from "../client/http.js";
import { ledgerEntriesCalls, visitLedgerEntries } from "../client/ledger-entries.js";
import { accountLedgerKey, trustlineLedgerKey } from "../client/ledger-keys.js";
import type { RpcClient } from "../client/rpc-client.js";
import { latestLedgerSchema, type RpcLedgerEntry } from "../client/rpc-schemas.js";
import type { RpcWatchedAccount } from "../config/accounts.js";
import type { JobTiming, PollContext, RpcJobParts } from "../job/job.js";
import type { NetworkView } from "../job/network.js";
import { MISSING, WatchedAccountsPoll, type AccountObservation } from "./accounts.js";

/** getLatestLedger with the header stellar-rpc 25 added beside it. */
const latestWithHeaderSchema = latestLedgerSchema.extend({ headerXdr: z.string().min(1).optional() });
const ledgersPageSchema = z.object({
  ledgers: z.array(z.object({ sequence: z.number().int(), headerXdr: z.string().min(1) })).min(1),
});

/** Entries' XDR by their key's place in a poll's key list; undefined: not found. */
type Xdrs = readonly (string | undefined)[];

/** Watched accounts of a Stellar RPC target, read as ledger entries, and the latest header for the base reserve. */
export class RpcAccountsCollector extends WatchedAccountsPoll<RpcWatchedAccount> {
  /** By account, where its account entry and its trustlines (in the order of its assets) stand in `allKeys`. */
  private readonly places: readonly { readonly account: number; readonly trustlines: readonly number[] }[];
  /** Every ledger key a poll reads, in the order of the watch list. */
  private readonly allKeys: readonly string[];
  /** The last poll's entries: an account whose entries are the same keeps its observation (decoding is most CPU). */
  private xdrs: Xdrs = [];
  /** False once getLatestLedger has shown no header (stellar-rpc before 25): getLedgers gives it then. */
  private latestHasHeader = true;

  constructor(
    private readonly client: Pick<RpcClient, "call">,
    watched: readonly RpcWatchedAccount[],
    network: NetworkView,
    timing: JobTiming,
  ) {
    super(RPC_ACCOUNT_METRICS, watched, network, timing);
    const keys = watched.map((account) => [
      accountLedgerKey(account.id),
      ...account.assets.map((asset) => trustlineLedgerKey(account.id, asset)),
    ]);
    this.allKeys = keys.flat();
    // An account watched under two names lists its keys twice; a read gives each key at its first place.
    const firstPlaces = new Map<string, number>();
    for (const [place, key] of this.allKeys.entries()) if (!firstPlaces.has(key)) firstPlaces.set(key, place);
    this.places = keys.map((accountKeys) => {
      const [account, ...trustlines] = accountKeys.map((key) => firstPlaces.get(key)!);
      return { account: account!, trustlines };
    });
  }

  async run({ signal, invalidRecords, progressed }: PollContext): Promise<void> {
    const before = this.xdrs;
    const xdrs = new Array<string | undefined>(this.allKeys.length).fill(undefined);
    const visit = (entry: Readonly<RpcLedgerEntry>, _latest: number, place: number) => {
      xdrs[place] = entry.xdr;
    };
    // Every answer is progress, one of only missing keys too: the deadline waits for a silent RPC alone.
    const read = await visitLedgerEntries(this.client, "accounts", this.allKeys, signal, visit, progressed);
    const baseReserve = await this.baseReserve(read.latestLedger, signal);
    const observations = this.watched.map((watched, index) => this.observe(watched, index, xdrs, before));
    invalidRecords(observations.filter((observation) => observation === undefined).length);
    this.xdrs = xdrs;
    this.keep(observations);
    this.network.learn({ baseReserveStroops: baseReserve });
  }

  /** The account as its entries say, the last poll's observation if they are the same; undefined if one is invalid. */
  private observe(watched: RpcWatchedAccount, index: number, xdrs: Xdrs, before: Xdrs): AccountObservation | undefined {
    const { account, trustlines } = this.places[index]!;
    const accountXdr = xdrs[account];
    if (accountXdr === undefined) return MISSING;
    if (before[account] === accountXdr && trustlines.every((place) => xdrs[place] === before[place]))
      return this.observations?.[index];
    const assets = watched.assets.map((asset, nth) => [asset, xdrs[trustlines[nth]!]] as const);
    try {
      return { exists: true, ...accountFromEntries(watched.id, accountXdr, assets) };
    } catch (error) {
      if (error instanceof PollError && error.reason === "schema") return undefined;
      throw error;
    }
  }

  /** The latest ledger header's base reserve: getLatestLedger's (stellar-rpc 25+), else getLedgers' for that ledger. */
  private async baseReserve(latestLedger: number | undefined, signal: AbortSignal): Promise<number> {
    if (this.latestHasHeader || latestLedger === undefined) {
      const answer = await this.client.call("accounts", "getLatestLedger", undefined, signal);
      const latest = validated(latestWithHeaderSchema, answer, "Stellar RPC's getLatestLedger");
      if (latest.headerXdr !== undefined) return baseReserveFromHeader(latest.headerXdr);
      this.latestHasHeader = false;
      latestLedger = latest.sequence;
    }
    const params = { startLedger: latestLedger, pagination: { limit: 1 } };
    const answer = await this.client.call("accounts", "getLedgers", params, signal);
    const page = validated(ledgersPageSchema, answer, "Stellar RPC's getLedgers");
    return baseReserveFromHistoryEntry(page.ledgers[0]!.headerXdr);
  }
}

export function rpcAccountsJob({ client, target, network }: RpcJobParts): RpcAccountsCollector {
  // Entries in calls of 200 keys, and one call for the ledger header.
  const keys = target.accounts.reduce((total, account) => total + 1 + account.assets.length, 0);
  const timing = { schedule: target.schedules.accounts, requestsPerRun: ledgerEntriesCalls(keys) + 1 };
  return new RpcAccountsCollector(client, target.accounts, network, timing);
}
