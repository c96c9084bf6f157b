/** Stellar RPC's getLedgerEntries for any number of keys (base64 XDR, see ledger-keys.ts), in calls of at most 200. */
import type { RpcEndpoint } from "../catalog/metrics.js";
import { validated } from "./http.js";
import type { RpcClient } from "./rpc-client.js";
import { ledgerEntriesSchema, type RpcLedgerEntries, type RpcLedgerEntry } from "./rpc-schemas.js";

/** stellar-rpc's getLedgerEntriesMaxKeys, unchanged since v20: it refuses a larger call as a whole. */
export const MAX_KEYS_PER_CALL = 200;

export interface LedgerEntriesRead<Kept> {
  /** What was kept of each entry found, by key. A key left out was never created, deleted, or expired temporary. */
  readonly entries: ReadonlyMap<string, Kept>;
  /** The newest `latestLedger` of the responses; undefined when no key was asked for. */
  readonly latestLedger: number | undefined;
  readonly calls: number;
}

/** What a read keeps of one entry, given its response's latestLedger (a TTL is `liveUntilLedgerSeq − latestLedger`). */
export type KeepEntry<Kept> = (entry: Readonly<RpcLedgerEntry>, latestLedger: number) => Kept;

/** Requests a read of this many keys sends, for the request plan. */
export function ledgerEntriesCalls(keyCount: number): number {
  return Math.ceil(keyCount / MAX_KEYS_PER_CALL);
}

/** `items` cut, in order, into runs of `size` (the last one shorter if need be). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const count = Math.ceil(items.length / size);
  return Array.from({ length: count }, (_, index) => items.slice(index * size, (index + 1) * size));
}

/** Reads every key (duplicates once), keeping what `keep` makes of each entry found under a key asked for;
 * `answered` is called once per valid answer, entries or none (a job's progress). */
export async function readLedgerEntries<Kept>(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  keep: KeepEntry<Kept>,
  answered?: () => void,
): Promise<LedgerEntriesRead<Kept>> {
  const entries = new Map<string, Kept>();
  const visit = (entry: Readonly<RpcLedgerEntry>, latestLedger: number) => {
    entries.set(entry.key, keep(entry, latestLedger));
  };
  const { latestLedger, calls } = await visitLedgerEntries(client, endpoint, keys, signal, visit, answered);
  return { entries, latestLedger, calls };
}

/** readLedgerEntries, giving `visit` each entry with its key's first place in `keys`; `answered` as there. */
export async function visitLedgerEntries(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  visit: (entry: Readonly<RpcLedgerEntry>, latestLedger: number, position: number) => void,
  answered?: () => void,
): Promise<Omit<LedgerEntriesRead<never>, "entries">> {
  const positions = new Map<string, number>();
  for (const [position, key] of keys.entries()) if (!positions.has(key)) positions.set(key, position);
  const calls = chunks([...positions.keys()], MAX_KEYS_PER_CALL);
  let latestLedger: number | undefined;
  let next = 0;
  // The first failure fails the read (a partial picture is never published as whole); calls in flight end first.
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < calls.length) {
      const call = calls[next++]!;
      try {
        const read = ledgerEntriesOf(await client.call(endpoint, "getLedgerEntries", { keys: call }, signal));
        latestLedger = Math.max(latestLedger ?? 0, read.latestLedger);
        // An answer without entries (every key missing or expired) is an answer all the same.
        answered?.();
        for (const entry of read.entries) {
          const position = positions.get(entry.key);
          if (position !== undefined) visit(entry, read.latestLedger, position);
        }
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  // Four at a time: 10 000 keys (50 calls) end well within their schedule without 50 requests at once.
  await Promise.all(Array.from({ length: Math.min(4, calls.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return { latestLedger, calls: calls.length };
}

// Checked by hand as ledgerEntriesSchema would: zod costs several times JSON.parse over tens of thousands of entries
// (docs/performance.md). What the guard refuses, zod judges and explains.
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
  const liveUntil = liveUntilLedgerSeq === undefined || isLedgerSequence(liveUntilLedgerSeq);
  return isBase64Xdr(key) && isBase64Xdr(xdr) && isLedgerSequence(lastModifiedLedgerSeq) && liveUntil;
}

function isBase64Xdr(value: unknown): boolean {
  return typeof value === "string" && value !== "";
}

function isLedgerSequence(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
