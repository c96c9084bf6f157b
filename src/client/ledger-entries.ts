/**
 * Stellar RPC's getLedgerEntries, batched: any number of ledger keys, read in calls of at most
 * 200 keys (stellar-rpc refuses a larger call as a whole), each response validated with zod.
 * Every job that reads ledger state over RPC (contracts, watched accounts) builds on this: encode
 * the keys once with @stellar/stellar-base (`xdr.LedgerKey…toXDR("base64")`), plan
 * `ledgerEntriesCalls(keys)` requests per poll, then look each key up in what `readLedgerEntries`
 * returns and decode its `xdr` (an `xdr.LedgerEntryData`) only when needed.
 */
import type { RpcEndpoint } from "../catalog/metrics.js";
import { validated } from "./http.js";
import type { RpcClient } from "./rpc-client.js";
import { ledgerEntriesSchema, type RpcLedgerEntry } from "./rpc-schemas.js";

/** stellar-rpc's getLedgerEntriesMaxKeys, unchanged since v20. */
export const MAX_KEYS_PER_CALL = 200;

/**
 * Calls in flight at once: a poll of 10 000 keys (50 calls) ends well within its schedule without
 * sending the RPC 50 requests at the same moment.
 */
const CALLS_IN_FLIGHT = 4;

export interface LedgerEntriesRead<Kept> {
  /**
   * What was kept of each entry found, by its key as requested (the same canonical XDR the RPC
   * returns). A key left out was not found: never created, deleted, or a temporary entry that
   * expired; since v23 an archived persistent entry is still returned.
   */
  readonly entries: ReadonlyMap<string, Kept>;
  /** The newest `latestLedger` of the responses; undefined when no key was asked for. */
  readonly latestLedger: number | undefined;
  /** getLedgerEntries calls sent: `ledgerEntriesCalls(distinct keys)`. */
  readonly calls: number;
}

/**
 * What a read keeps of one entry, called as its response arrives with the response's latestLedger
 * (a TTL is `liveUntilLedgerSeq − latestLedger` of the same response) and the key as requested. A
 * read of tens of thousands of entries that keeps only what it needs (or the previous poll's
 * equal value) lets the rest of each response go at once, while it is young and cheap to collect.
 */
export type KeepEntry<Kept> = (entry: RpcLedgerEntry, latestLedger: number, key: string) => Kept;

/** Requests a read of this many keys sends, for the request plan. */
export function ledgerEntriesCalls(keyCount: number): number {
  return Math.ceil(keyCount / MAX_KEYS_PER_CALL);
}

/** Each key list's keys by their text, kept while the list lives: a poll that reads the same list every time builds it once. */
const requestedByList = new WeakMap<readonly string[], ReadonlyMap<string, string>>();

/** Each key as requested, by its text: the entries are held under these strings, not the responses'. */
function requestedKeys(keys: readonly string[]): ReadonlyMap<string, string> {
  let requested = requestedByList.get(keys);
  if (requested === undefined) requestedByList.set(keys, (requested = new Map(keys.map((key) => [key, key]))));
  return requested;
}

/**
 * Reads every key (base64 `LedgerKey` XDR; duplicates are read once) in calls of at most 200,
 * keeping what `keep` makes of each entry. An entry under a key not asked for is
 * ignored. Any failed call fails the read with its PollError (a JSON-RPC error is `rpc_error`, a
 * bad response `schema`), so a poll never publishes a partial picture as if it were whole.
 */
export async function readLedgerEntries<Kept>(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  keep: KeepEntry<Kept>,
): Promise<LedgerEntriesRead<Kept>> {
  const requested = requestedKeys(keys);
  const distinct = [...requested.keys()];
  const chunks: string[][] = [];
  for (let start = 0; start < distinct.length; start += MAX_KEYS_PER_CALL) chunks.push(distinct.slice(start, start + MAX_KEYS_PER_CALL));
  const entries = new Map<string, Kept>();
  let latestLedger: number | undefined;
  let next = 0;
  // The first failure stops the other workers taking new chunks; the calls in flight end first.
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < chunks.length) {
      const chunk = chunks[next++] as string[];
      try {
        const result = await client.call(endpoint, "getLedgerEntries", { keys: chunk }, signal);
        const read = validated(ledgerEntriesSchema, result, "Stellar RPC's getLedgerEntries");
        latestLedger = Math.max(latestLedger ?? 0, read.latestLedger);
        for (const entry of read.entries) {
          const key = requested.get(entry.key);
          if (key !== undefined) entries.set(key, keep(entry, read.latestLedger, key));
        }
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, chunks.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return { entries, latestLedger, calls: chunks.length };
}
