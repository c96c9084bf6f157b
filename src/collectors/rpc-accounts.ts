import { z } from "zod";
import { RPC_ACCOUNT_METRICS } from "../catalog/metrics.js";
import { accountFromEntries, baseReserveFromHeader, baseReserveFromHistoryEntry } from "../client/account-entries.js";
import { PollError } from "../client/errors.js";
import { validated } from "../client/http.js";
import { ledgerEntriesCalls, readLedgerEntries } from "../client/ledger-entries.js";
import { accountLedgerKey, trustlineLedgerKey } from "../client/ledger-keys.js";
import type { RpcClient } from "../client/rpc-client.js";
import { latestLedgerSchema } from "../client/rpc-schemas.js";
import type { RpcWatchedAccount } from "../config/accounts.js";
import type { NetworkView } from "../runtime/network.js";
import type { CollectorSamples } from "../exposition/samples.js";
import { AccountSamples, SignerChanges, type AccountObservation, type AccountObservations } from "./accounts.js";
import type { Collector, PollContext } from "./collector.js";

/** getLatestLedger with the header stellar-rpc 25 added beside it. */
const latestWithHeaderSchema = latestLedgerSchema.extend({ headerXdr: z.string().min(1).optional() });
const ledgersPageSchema = z.object({ ledgers: z.array(z.object({ sequence: z.number().int(), headerXdr: z.string().min(1) })).min(1) });

/** The ledger keys of one watched account: its account entry and a trustline entry per configured asset, in the order of its assets. */
interface AccountKeys {
  readonly account: string;
  readonly trustlines: readonly string[];
}

/** An account's entries as a poll read them (its account entry's xdr, and its trustlines' in the order of its assets), and what they said. */
interface DecodedAccount {
  readonly accountXdr: string;
  readonly trustlineXdrs: readonly (string | undefined)[];
  readonly observation: AccountObservation | undefined;
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
export class RpcAccountsCollector implements Collector<"accounts"> {
  readonly endpoint = "accounts";
  /** Each watched account with its ledger keys, encoded once. */
  private readonly accounts: readonly { readonly watched: RpcWatchedAccount; readonly keys: AccountKeys }[];
  /** Every ledger key a poll reads, in the order of the watch list. */
  private readonly allKeys: readonly string[];
  private observations: AccountObservations | undefined;
  /**
   * Each existing account's entries as the last poll read them, and what they said, in the order
   * of the watch list: decoding the XDR is most of a poll's CPU, and most accounts' entries are the
   * same from one poll to the next.
   */
  private decoded: readonly (DecodedAccount | undefined)[] = [];
  /** Each entry's xdr as the last poll kept it, by ledger key. */
  private xdrs: ReadonlyMap<string, string> = new Map();
  private readonly signerChanges = new SignerChanges();
  private readonly accountSamples = new AccountSamples(RPC_ACCOUNT_METRICS);
  /** False once getLatestLedger has shown no header (stellar-rpc before 25): getLedgers gives it then. */
  private latestHasHeader = true;

  constructor(
    private readonly client: Pick<RpcClient, "call">,
    private readonly watched: readonly RpcWatchedAccount[],
    /** The target's network view, told the base reserve read. */
    private readonly network: NetworkView,
  ) {
    this.accounts = watched.map((account) => ({
      watched: account,
      keys: { account: accountLedgerKey(account.id), trustlines: account.assets.map((asset) => trustlineLedgerKey(account.id, asset)) },
    }));
    this.allKeys = this.accounts.flatMap(({ keys }) => [keys.account, ...keys.trustlines]);
  }

  async poll({ signal, invalidRecords }: PollContext): Promise<void> {
    const before = this.xdrs;
    // An entry the same as last poll's is kept as last poll's string, so the response's copy dies young.
    const read = await readLedgerEntries(this.client, "accounts", this.allKeys, signal, ({ xdr }, _latestLedger, key) => {
      const previous = before.get(key);
      return previous === xdr ? previous : xdr;
    });
    const baseReserve = await this.baseReserve(read.latestLedger, signal);
    const observations: (AccountObservation | undefined)[] = [];
    const decoded: (DecodedAccount | undefined)[] = [];
    for (const [index, { watched, keys }] of this.accounts.entries()) {
      const observation = this.observe(watched, keys, read.entries, this.decoded[index], decoded);
      if (observation === undefined) invalidRecords(1);
      observations.push(observation);
    }
    this.xdrs = read.entries;
    this.decoded = decoded;
    this.signerChanges.note(this.watched, observations);
    this.observations = observations;
    this.network.learn({ baseReserveStroops: baseReserve });
  }

  samples(): CollectorSamples {
    return this.accountSamples.of(this.watched, this.observations, this.signerChanges.counts, this.network.current.baseReserveStroops);
  }

  /**
   * The account as its entries say; undefined when an entry does not decode (counted; the other
   * accounts stand). Entries the same as the last poll's (`previous`) give the last poll's
   * observation. What was decoded is appended to `decoded`, in the order of the watch list.
   */
  private observe(
    watched: RpcWatchedAccount,
    keys: AccountKeys,
    entries: ReadonlyMap<string, string>,
    previous: DecodedAccount | undefined,
    decoded: (DecodedAccount | undefined)[],
  ): AccountObservation | undefined {
    const accountXdr = entries.get(keys.account);
    if (accountXdr === undefined) {
      decoded.push(undefined);
      return { exists: false };
    }
    if (previous !== undefined && previous.accountXdr === accountXdr && keys.trustlines.every((key, index) => entries.get(key) === previous.trustlineXdrs[index])) {
      decoded.push(previous);
      return previous.observation;
    }
    const trustlineXdrs = keys.trustlines.map((key) => entries.get(key));
    const observation = this.decode(watched, accountXdr, trustlineXdrs);
    decoded.push({ accountXdr, trustlineXdrs, observation });
    return observation;
  }

  /** `trustlineXdrs` in the order of the account's assets. */
  private decode(watched: RpcWatchedAccount, accountXdr: string, trustlineXdrs: readonly (string | undefined)[]): AccountObservation | undefined {
    try {
      return { exists: true, ...accountFromEntries(watched.id, accountXdr, watched.assets.map((asset, index) => [asset, trustlineXdrs[index]] as const)) };
    } catch (error) {
      if (error instanceof PollError && error.reason === "schema") return undefined;
      throw error;
    }
  }

  /** The base reserve of the latest ledger header: getLatestLedger's (stellar-rpc 25+), else getLedgers' for that ledger. */
  private async baseReserve(latestLedger: number | undefined, signal: AbortSignal): Promise<number> {
    if (this.latestHasHeader || latestLedger === undefined) {
      const latest = validated(latestWithHeaderSchema, await this.client.call("accounts", "getLatestLedger", undefined, signal), "Stellar RPC's getLatestLedger");
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
