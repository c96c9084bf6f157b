/**
 * Stellar RPC's getLedgerEntries, batched: any number of ledger keys, read in calls of at most
 * 200 keys (stellar-rpc refuses a larger call as a whole), each response parsed with JSON.parse and
 * validated (by a type guard that accepts only what zod's schema accepts; zod says what is wrong
 * with a response the guard refuses). Every job that reads ledger state over RPC (contracts, watched accounts)
 * builds on this: encode the keys once with @stellar/stellar-base
 * (`xdr.LedgerKey…toXDR("base64")`), plan `ledgerEntriesCalls(keys)` requests per poll, then look
 * each key up in what `readLedgerEntries` returns and decode its `xdr` (an `xdr.LedgerEntryData`)
 * only when needed.
 */
import type { RpcEndpoint } from "../catalog/metrics.js";
import { validated } from "./http.js";
import type { RpcClient } from "./rpc-client.js";
import { ledgerEntriesSchema, type RpcLedgerEntries, type RpcLedgerEntry } from "./rpc-schemas.js";

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
 * One entry of a response, validated: its key is the key as requested. `liveUntilLedgerSeq` is
 * present only on entries that have a TTL (contract data and code); 0 on an archived entry since v23.
 */
export type LedgerEntryView = Readonly<RpcLedgerEntry>;

/**
 * What a read keeps of one entry, called as its response arrives with the response's latestLedger
 * (a TTL is `liveUntilLedgerSeq − latestLedger` of the same response).
 */
export type KeepEntry<Kept> = (entry: LedgerEntryView, latestLedger: number) => Kept;

/** Requests a read of this many keys sends, for the request plan. */
export function ledgerEntriesCalls(keyCount: number): number {
  return Math.ceil(keyCount / MAX_KEYS_PER_CALL);
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

/** readLedgerEntries for a read that holds what it keeps by the keys' places in its list. */
export async function visitLedgerEntries(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  visit: VisitEntry,
): Promise<Omit<LedgerEntriesRead<never>, "entries">> {
  // Each distinct key's first place in the list.
  const positions = new Map<string, number>();
  for (const [position, key] of keys.entries()) if (!positions.has(key)) positions.set(key, position);
  const distinct = [...positions.keys()];
  const calls: string[][] = [];
  for (let start = 0; start < distinct.length; start += MAX_KEYS_PER_CALL)
    calls.push(distinct.slice(start, start + MAX_KEYS_PER_CALL));
  let latestLedger: number | undefined;
  let next = 0;
  // The first failure stops the other workers taking new calls; the calls in flight end first.
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < calls.length) {
      const call = calls[next++]!;
      try {
        const read = ledgerEntriesOf(await client.call(endpoint, "getLedgerEntries", { keys: call }, signal));
        latestLedger = Math.max(latestLedger ?? 0, read.latestLedger);
        for (const entry of read.entries) {
          const position = positions.get(entry.key);
          if (position !== undefined) visit(entry, read.latestLedger, position);
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

/**
 * getLedgerEntries' result, validated. A hand-written guard checks what ledgerEntriesSchema checks:
 * zod costs several times JSON.parse over tens of thousands of entries a poll (docs/performance.md).
 * A result the guard refuses goes to zod, which accepts it or says where it breaks.
 */
export function ledgerEntriesOf(result: unknown): RpcLedgerEntries {
  if (typeof result === "object" && result !== null) {
    const { entries, latestLedger } = result as Record<string, unknown>;
    if (Array.isArray(entries) && isLedgerSequence(latestLedger) && entries.every(isLedgerEntry))
      return result as RpcLedgerEntries;
  }
  return validated(ledgerEntriesSchema, result, "Stellar RPC's getLedgerEntries");
}

/** What ledgerEntrySchema accepts (unknown fields are left as they are rather than stripped). */
function isLedgerEntry(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { key, xdr, lastModifiedLedgerSeq, liveUntilLedgerSeq } = value as Record<string, unknown>;
  return (
    typeof key === "string" &&
    key !== "" &&
    typeof xdr === "string" &&
    xdr !== "" &&
    isLedgerSequence(lastModifiedLedgerSeq) &&
    (liveUntilLedgerSeq === undefined || isLedgerSequence(liveUntilLedgerSeq))
  );
}

function isLedgerSequence(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
