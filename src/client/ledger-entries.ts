/**
 * Stellar RPC's getLedgerEntries, batched: any number of ledger keys, read in calls of at most
 * 200 keys (stellar-rpc refuses a larger call as a whole), each response validated with zod.
 * Every job that reads ledger state over RPC (contracts, watched accounts) builds on this: encode
 * the keys once with @stellar/stellar-base (`xdr.LedgerKey…toXDR("base64")`), plan
 * `ledgerEntriesCalls(keys)` requests per poll, then look each key up in what `readLedgerEntries`
 * returns and decode its `xdr` (an `xdr.LedgerEntryData`) only when needed. Responses are read
 * by a scanner (ledger-entries-scan.ts) where they have stellar-rpc's plain shape, else parsed and
 * validated with zod; both give the same entries and the same errors.
 */
import type { RpcEndpoint } from "../catalog/metrics.js";
import { validated } from "./http.js";
import { RequestedKeys, scanLedgerEntries, ScannedEntryView } from "./ledger-entries-scan.js";
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
 * One entry of a response as `keep` sees it, only during that call: the view of a scanned
 * response shows each of its entries in turn.
 */
export interface LedgerEntryView {
  /** The key as requested. */
  readonly key: string;
  readonly lastModifiedLedgerSeq: number;
  /** Present only on entries that have a TTL (contract data and code); 0 on an archived entry since v23. */
  readonly liveUntilLedgerSeq: number | undefined;
  /**
   * The entry's base64 `xdr`: `previous` itself when the entry's is the same text, so a read that
   * keeps last poll's string for an unchanged entry makes no new one.
   */
  xdr(previous?: string): string;
}

/**
 * What a read keeps of one entry, called as its response arrives with the response's latestLedger
 * (a TTL is `liveUntilLedgerSeq − latestLedger` of the same response). A
 * read of tens of thousands of entries that keeps only what it needs (or the previous poll's
 * equal value) lets the rest of each response go at once.
 */
export type KeepEntry<Kept> = (entry: LedgerEntryView, latestLedger: number) => Kept;

/** Requests a read of this many keys sends, for the request plan. */
export function ledgerEntriesCalls(keyCount: number): number {
  return Math.ceil(keyCount / MAX_KEYS_PER_CALL);
}

/** Each key list's distinct keys, kept while the list lives: a poll that reads the same list every time prepares it once. */
const requestedByList = new WeakMap<readonly string[], RequestedKeys>();

function requestedKeys(keys: readonly string[]): RequestedKeys {
  let requested = requestedByList.get(keys);
  if (requested === undefined) requestedByList.set(keys, (requested = new RequestedKeys(keys, MAX_KEYS_PER_CALL)));
  return requested;
}

/**
 * Reads every key (base64 `LedgerKey` XDR; duplicates are read once) in calls of at most 200,
 * keeping what `keep` makes of each entry. An entry under a key not asked for is
 * ignored. Any failed call fails the read with its PollError (a JSON-RPC error is `rpc_error`, a
 * bad response `schema`), so a poll never publishes a partial picture as if it were whole.
 */
export async function readLedgerEntries<Kept>(
  client: Pick<RpcClient, "scannedCall">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  keep: KeepEntry<Kept>,
): Promise<LedgerEntriesRead<Kept>> {
  const entries = new Map<string, Kept>();
  const { latestLedger, calls } = await visitLedgerEntries(client, endpoint, keys, signal, (entry, latestLedger) => {
    entries.set(entry.key, keep(entry, latestLedger));
  });
  return { entries, latestLedger, calls };
}

/**
 * Called with each entry found, as its response arrives, with the response's latestLedger and
 * where its key stands in the list read (its first place, when listed twice).
 */
export type VisitEntry = (entry: LedgerEntryView, latestLedger: number, position: number) => void;

/**
 * readLedgerEntries for a read that holds what it keeps by the keys' places in its list: a poll
 * of 40 000 keys that would otherwise build a map of them every poll, and look each up twice.
 */
export async function visitLedgerEntries(
  client: Pick<RpcClient, "scannedCall">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  visit: VisitEntry,
): Promise<Omit<LedgerEntriesRead<never>, "entries">> {
  const requested = requestedKeys(keys);
  const { calls, positions } = requested;
  let latestLedger: number | undefined;
  let next = 0;
  // The first failure stops the other workers taking new calls; the calls in flight end first.
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    const view = new ScannedEntryView();
    while (failure === undefined && next < calls.length) {
      const call = next++;
      try {
        const answer = await client.scannedCall(endpoint, calls[call]!, signal, (body) =>
          scanLedgerEntries(body, requested, call),
        );
        if ("scanned" in answer) {
          const scanned = answer.scanned;
          latestLedger = Math.max(latestLedger ?? 0, scanned.latestLedger);
          for (let entry = 0; entry < scanned.count; entry += 1)
            visit(view, scanned.latestLedger, positions[scanned.show(entry, view)]!);
        } else {
          const read = validated(ledgerEntriesSchema, answer.result, "Stellar RPC's getLedgerEntries");
          latestLedger = Math.max(latestLedger ?? 0, read.latestLedger);
          for (const entry of read.entries) {
            const index = requested.indexOfText(entry.key);
            if (index >= 0) visit(parsedView(requested.keys[index]!, entry), read.latestLedger, positions[index]!);
          }
        }
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, calls.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return { latestLedger, calls: calls.length };
}

/** An entry parsed and validated with zod, as `keep` sees it. */
function parsedView(key: string, entry: RpcLedgerEntry): LedgerEntryView {
  const { lastModifiedLedgerSeq, liveUntilLedgerSeq, xdr } = entry;
  return { key, lastModifiedLedgerSeq, liveUntilLedgerSeq, xdr: (previous) => (previous === xdr ? previous : xdr) };
}
