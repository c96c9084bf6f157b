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

/** One entry as the RPC returned it, with the `latestLedger` of the response it came in. */
export interface LedgerEntry extends RpcLedgerEntry {
  /** The response's latestLedger: a TTL is `liveUntilLedgerSeq − latestLedger` of the same response. */
  readonly latestLedger: number;
}

export interface LedgerEntriesRead {
  /**
   * The entries found, by their base64 key as the RPC returned it (the same canonical XDR as
   * requested). A key left out was not found: never created, deleted, or a temporary entry that
   * expired; since v23 an archived persistent entry is still returned.
   */
  readonly entries: ReadonlyMap<string, LedgerEntry>;
  /** The newest `latestLedger` of the responses; undefined when no key was asked for. */
  readonly latestLedger: number | undefined;
  /** getLedgerEntries calls sent: `ledgerEntriesCalls(distinct keys)`. */
  readonly calls: number;
}

/** Requests a read of this many keys sends, for the request plan. */
export function ledgerEntriesCalls(keyCount: number): number {
  return Math.ceil(keyCount / MAX_KEYS_PER_CALL);
}

/**
 * Reads every key (base64 `LedgerKey` XDR; duplicates are read once) in calls of at most 200.
 * Any failed call fails the read with its PollError (a JSON-RPC error is `rpc_error`, a bad
 * response `schema`), so a poll never publishes a partial picture as if it were whole.
 */
export async function readLedgerEntries(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal?: AbortSignal,
): Promise<LedgerEntriesRead> {
  const distinct = [...new Set(keys)];
  const chunks: string[][] = [];
  for (let start = 0; start < distinct.length; start += MAX_KEYS_PER_CALL) chunks.push(distinct.slice(start, start + MAX_KEYS_PER_CALL));
  const entries = new Map<string, LedgerEntry>();
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
        for (const entry of read.entries) entries.set(entry.key, { ...entry, latestLedger: read.latestLedger });
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, chunks.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return { entries, latestLedger, calls: chunks.length };
}
