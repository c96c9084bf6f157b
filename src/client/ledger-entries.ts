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

/** One getLedgerEntries entry of the largest contract code as JSON, with room to spare: 128 KiB of wasm (pubnet's
 * contractMaxSizeBytes) is about 175 kB of base64 XDR, so 200 of them would pass the 8 MiB body cap four times over. */
export const MAX_CODE_ENTRY_BYTES = 180_000;

/** Keys whose entries may be large (contract code), and how many of them one call may hold. */
export interface LargeKeys {
  readonly keys: ReadonlySet<string>;
  readonly perCall: number;
}

/** Code keys one call may hold for its answer to stay under `maxBodyBytes` were every one the largest code. */
export function codeKeysPerCall(maxBodyBytes: number): number {
  return Math.min(MAX_KEYS_PER_CALL, Math.max(1, Math.floor(maxBodyBytes / MAX_CODE_ENTRY_BYTES)));
}

/** Requests a read of this many keys sends, `largeCount` of them large keys, for the request plan. */
export function ledgerEntriesCalls(keyCount: number, largeCount = 0, largePerCall = MAX_KEYS_PER_CALL): number {
  return Math.max(Math.ceil(keyCount / MAX_KEYS_PER_CALL), Math.ceil(largeCount / largePerCall));
}

/** The calls of a read: as few as ledgerEntriesCalls plans, the large keys spread evenly over them. */
function plannedCalls(keys: readonly string[], large: LargeKeys | undefined): string[][] {
  const big = keys.filter((key) => large?.keys.has(key) === true);
  if (big.length === 0) return chunks(keys, MAX_KEYS_PER_CALL);
  const small = keys.filter((key) => large?.keys.has(key) !== true);
  const count = ledgerEntriesCalls(keys.length, big.length, large?.perCall);
  const spread = chunks(big, Math.ceil(big.length / count));
  return Array.from({ length: count }, (_, index) => {
    const call = spread[index] ?? [];
    return [...call, ...small.splice(0, MAX_KEYS_PER_CALL - call.length)];
  });
}

/** `items` cut, in order, into runs of `size` (the last one shorter if need be). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const count = Math.ceil(items.length / size);
  return Array.from({ length: count }, (_, index) => items.slice(index * size, (index + 1) * size));
}

/** Reads every key (duplicates once), keeping what `keep` makes of each entry found under a key asked for;
 * `answered` is called once per valid answer, entries or none (a job's progress); `large` bounds large keys a call. */
export async function readLedgerEntries<Kept>(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  keep: KeepEntry<Kept>,
  answered?: () => void,
  large?: LargeKeys,
): Promise<LedgerEntriesRead<Kept>> {
  const entries = new Map<string, Kept>();
  const visit = (entry: Readonly<RpcLedgerEntry>, latestLedger: number) => {
    entries.set(entry.key, keep(entry, latestLedger));
  };
  const { latestLedger, calls } = await visitLedgerEntries(client, endpoint, keys, signal, visit, answered, large);
  return { entries, latestLedger, calls };
}

/** readLedgerEntries, giving `visit` each entry with its key's first place in `keys`; `answered`, `large` as there. */
export async function visitLedgerEntries(
  client: Pick<RpcClient, "call">,
  endpoint: RpcEndpoint,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  visit: (entry: Readonly<RpcLedgerEntry>, latestLedger: number, position: number) => void,
  answered?: () => void,
  large?: LargeKeys,
): Promise<Omit<LedgerEntriesRead<never>, "entries">> {
  const positions = new Map<string, number>();
  for (const [position, key] of keys.entries()) if (!positions.has(key)) positions.set(key, position);
  const calls = plannedCalls([...positions.keys()], large);
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
