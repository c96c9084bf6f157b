import { z } from "zod";
import { RPC_ACCOUNT_METRICS } from "../catalog/metrics.js";
import { accountFromEntries, baseReserveFromHeader, baseReserveFromHistoryEntry } from "../client/account-entries.js";
import { PollError } from "../client/errors.js";
import { validated } from "../client/http.js";
import { ledgerEntriesCalls, visitLedgerEntries } from "../client/ledger-entries.js";
import { accountLedgerKey, trustlineLedgerKey } from "../client/ledger-keys.js";
import type { RpcClient } from "../client/rpc-client.js";
import { latestLedgerSchema } from "../client/rpc-schemas.js";
import type { RpcWatchedAccount } from "../config/accounts.js";
import type { JobTiming, PollContext, PollJob, RpcJobParts } from "../job/job.js";
import type { NetworkView } from "../job/network.js";
import type { CollectorSamples } from "../exposition/samples.js";
import { AccountSamples, SignerChanges, type AccountObservation, type AccountObservations } from "./accounts.js";

/** getLatestLedger with the header stellar-rpc 25 added beside it. */
const latestWithHeaderSchema = latestLedgerSchema.extend({ headerXdr: z.string().min(1).optional() });
const ledgersPageSchema = z.object({
  ledgers: z.array(z.object({ sequence: z.number().int(), headerXdr: z.string().min(1) })).min(1),
});

/**
 * Where the ledger keys of one watched account stand in a poll's key list (each key's first
 * place): its account entry and a trustline entry per configured asset, in the order of its assets.
 */
interface AccountKeys {
  readonly account: number;
  readonly trustlines: readonly number[];
}

/** Requests one poll of these accounts sends: their entries in calls of 200 keys, and one for the ledger header. */
export function rpcAccountsRequestsPerPoll(accounts: readonly RpcWatchedAccount[]): number {
  if (accounts.length === 0) return 0;
  const keys = accounts.reduce((total, account) => total + 1 + account.assets.length, 0);
  return ledgerEntriesCalls(keys) + 1;
}

/**
 * Watched accounts of a Stellar RPC target, read as ledger entries: every account and configured
 * trustline in getLedgerEntries calls of 200 keys, and the latest ledger header for the base
 * reserve. An account whose entry is absent does not exist (`exists` 0), which is no poll error.
 */
export class RpcAccountsCollector implements PollJob {
  readonly role = "poll";
  readonly source = "accounts";
  readonly schedule: JobTiming["schedule"];
  readonly requestsPerRun: number;
  /** Each watched account with its ledger keys, encoded once. */
  private readonly accounts: readonly { readonly watched: RpcWatchedAccount; readonly keys: AccountKeys }[];
  /** Every ledger key a poll reads, in the order of the watch list. */
  private readonly allKeys: readonly string[];
  /** What the last poll learnt of each account, in the order of the watch list. */
  private observations: AccountObservations | undefined;
  /**
   * Each entry's xdr as the last poll kept it, by its key's place in `allKeys` (undefined: not
   * found): an account whose entries are all the same keeps the last poll's observation, as
   * decoding the XDR is most of a poll's CPU.
   */
  private xdrs: readonly (string | undefined)[] = [];
  private readonly signerChanges = new SignerChanges();
  private readonly accountSamples = new AccountSamples(RPC_ACCOUNT_METRICS);
  /** False once getLatestLedger has shown no header (stellar-rpc before 25): getLedgers gives it then. */
  private latestHasHeader = true;

  constructor(
    private readonly client: Pick<RpcClient, "call">,
    private readonly watched: readonly RpcWatchedAccount[],
    /** The target's network view, told the base reserve read. */
    private readonly network: NetworkView,
    timing: JobTiming,
  ) {
    this.schedule = timing.schedule;
    this.requestsPerRun = timing.requestsPerRun;
    const keys = watched.map((account) => [
      accountLedgerKey(account.id),
      ...account.assets.map((asset) => trustlineLedgerKey(account.id, asset)),
    ]);
    this.allKeys = keys.flat();
    // An account watched under two names lists its keys twice; a read gives each key at its first place.
    const firstPlaces = new Map<string, number>();
    for (const [place, key] of this.allKeys.entries()) if (!firstPlaces.has(key)) firstPlaces.set(key, place);
    this.accounts = watched.map((account, index) => {
      const [accountPlace, ...trustlinePlaces] = keys[index]!.map((key) => firstPlaces.get(key)!);
      return { watched: account, keys: { account: accountPlace!, trustlines: trustlinePlaces } };
    });
  }

  async run({ signal, invalidRecords, progressed }: PollContext): Promise<void> {
    const before = this.xdrs;
    const xdrs = new Array<string | undefined>(this.allKeys.length).fill(undefined);
    const read = await visitLedgerEntries(
      this.client,
      "accounts",
      this.allKeys,
      signal,
      (entry, _latestLedger, place) => {
        xdrs[place] = entry.xdr;
        progressed();
      },
    );
    const baseReserve = await this.baseReserve(read.latestLedger, signal);
    const observations: (AccountObservation | undefined)[] = [];
    for (const [index, { watched, keys }] of this.accounts.entries()) {
      const observation = this.observe(watched, keys, xdrs, before, this.observations?.[index]);
      if (observation === undefined) invalidRecords(1);
      observations.push(observation);
    }
    this.xdrs = xdrs;
    this.signerChanges.note(this.watched, observations);
    this.observations = observations;
    this.network.learn({ baseReserveStroops: baseReserve });
  }

  samples(): CollectorSamples {
    return this.accountSamples.of(
      this.watched,
      this.observations,
      this.signerChanges.counts,
      this.network.current.baseReserveStroops,
    );
  }

  /**
   * The account as its entries say; undefined when an entry does not decode (counted; the other
   * accounts stand). Entries the same as the last poll's (`before`) give the last poll's
   * observation (`previous`): the account existed then, so that is what they decoded to.
   */
  private observe(
    watched: RpcWatchedAccount,
    keys: AccountKeys,
    xdrs: readonly (string | undefined)[],
    before: readonly (string | undefined)[],
    previous: AccountObservation | undefined,
  ): AccountObservation | undefined {
    const accountXdr = xdrs[keys.account];
    if (accountXdr === undefined) return { exists: false };
    if (before[keys.account] === accountXdr && keys.trustlines.every((place) => xdrs[place] === before[place]))
      return previous;
    return this.decode(
      watched,
      accountXdr,
      keys.trustlines.map((place) => xdrs[place]),
    );
  }

  /** `trustlineXdrs` in the order of the account's assets. */
  private decode(
    watched: RpcWatchedAccount,
    accountXdr: string,
    trustlineXdrs: readonly (string | undefined)[],
  ): AccountObservation | undefined {
    try {
      return {
        exists: true,
        ...accountFromEntries(
          watched.id,
          accountXdr,
          watched.assets.map((asset, index) => [asset, trustlineXdrs[index]] as const),
        ),
      };
    } catch (error) {
      if (error instanceof PollError && error.reason === "schema") return undefined;
      throw error;
    }
  }

  /**
   * The base reserve of the latest ledger header: getLatestLedger's (stellar-rpc 25+), else getLedgers' for that
   * ledger.
   */
  private async baseReserve(latestLedger: number | undefined, signal: AbortSignal): Promise<number> {
    if (this.latestHasHeader || latestLedger === undefined) {
      const latest = validated(
        latestWithHeaderSchema,
        await this.client.call("accounts", "getLatestLedger", undefined, signal),
        "Stellar RPC's getLatestLedger",
      );
      if (latest.headerXdr !== undefined) return baseReserveFromHeader(latest.headerXdr);
      this.latestHasHeader = false;
      latestLedger = latest.sequence;
    }
    const page = validated(
      ledgersPageSchema,
      await this.client.call("accounts", "getLedgers", { startLedger: latestLedger, pagination: { limit: 1 } }, signal),
      "Stellar RPC's getLedgers",
    );
    return baseReserveFromHistoryEntry(page.ledgers[0]!.headerXdr);
  }
}

/** A Stellar RPC's accounts poll, as its job table builds it. */
export function rpcAccountsJob({ client, target, network }: RpcJobParts): RpcAccountsCollector {
  const timing = { schedule: target.schedules.accounts, requestsPerRun: rpcAccountsRequestsPerPoll(target.accounts) };
  return new RpcAccountsCollector(client, target.accounts, network, timing);
}
