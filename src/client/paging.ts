import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { PollError } from "./errors.js";
import type { RawRecords } from "./horizon-client.js";
import { isUint64Text } from "./wire-values.js";

/** Horizon's maximum page size. */
export const PAGE_LIMIT = 200;

/** A raw record's paging token, read even when the record fails its schema. */
export function rawPagingToken(raw: unknown): string | undefined {
  const token = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).paging_token : undefined;
  return typeof token === "string" && token !== "" ? token : undefined;
}

/** The cursor after a non-empty page: the last raw record's token, valid or not, so no record is fetched twice. A
 * page that cannot move the cursor would be asked for forever: it fails with reason `paging`. */
export function cursorAfter(records: RawRecords, cursor: string | undefined, endpoint: Endpoint): string {
  const next = rawPagingToken(records.at(-1));
  return next === undefined || next === cursor ? stuck(cursor, endpoint) : next;
}

/** Fails a poll whose page cannot move the cursor from `cursor` (undefined: the start), reason `paging`. */
function stuck(cursor: string | undefined, endpoint: Endpoint): never {
  throw new PollError("paging", `${endpoint} page did not move the cursor past ${cursor ?? "the start"}`);
}

/** The record if it matches the schema, else undefined: the caller counts it as invalid. */
export function validRecord<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> | undefined {
  return schema.safeParse(raw).data;
}

/** A paging token's place when it is an unsigned 64-bit integer, as most of Horizon's are. */
export function uint64Place(token: string): bigint | undefined {
  return isUint64Text(token) ? BigInt(token) : undefined;
}

/** How a job reads the records after its cursor, each counted once. */
export interface CursorFeed {
  readonly endpoint: Endpoint;
  /** Pages one poll reads at most; a longer backlog continues at the next poll. */
  readonly maxPages: number;
  /** The ascending page after `cursor`; undefined ends the poll as `gone` (no such stream, or the cursor refused). */
  page(cursor: string | undefined): Promise<RawRecords | undefined>;
  /** Where a paging token sits in the stream, undefined if it cannot be the cursor; `raw` is absent for the cursor. */
  place(token: string, raw?: unknown): bigint | undefined;
  /** Counts a record the cursor passes; false when it is invalid, as one whose token is not `usable` must be. */
  count(raw: unknown, usable: boolean): boolean;
}

/** Where a job stands: the last counted record's paging token, and how many unusable tokens after it were counted. */
export type CursorState = { cursor?: string | undefined; unusableCounted?: number };
/** A stream's place: whether its first poll has read it, and its cursor, undefined while it never had a record. */
export type StreamState = CursorState & { started: boolean };
/** A poll's context as paging sees it: records left out, and each answer, which keeps a long poll in its deadline. */
type Tally = { invalidRecords(count: number): void; progressed(): void };

/** Whether a page's failure is Horizon refusing its cursor: a 400, as for a token it cannot read. */
export function refusedCursor(error: unknown): boolean {
  return error instanceof PollError && error.details.status === 400;
}

/** Forgets a cursor: the next poll starts after the newest record, counting nothing, as a first poll does. */
export function startOver(state: StreamState): void {
  state.started = false;
  state.cursor = undefined;
  state.unusableCounted = 0;
}

/** How a job reads a stream of its own from a cursor, as account activity and trades do. */
interface StreamFeed extends Omit<CursorFeed, "page"> {
  /** Names the stream in errors: a market, an account and its stream. */
  readonly stream: string;
  /** A page of the stream in `order` from `cursor`; undefined when there is no such stream (yet). */
  page(query: { order: "asc" | "desc"; limit: number; cursor?: string }): Promise<RawRecords | undefined>;
  /** Sees the newest record the first poll reads, which counts nothing; false when it is invalid (left out). */
  sawNewest?(raw: unknown): boolean;
}

/** A stream's poll: the first starts after its newest record, counting nothing; later ones read the records after the
 * cursor, each counted once. */
export async function readStream(state: StreamState, tally: Tally, feed: StreamFeed) {
  if (!state.started) {
    const records = await feed.page({ order: "desc", limit: 1 });
    tally.progressed();
    if (records === undefined) return;
    // The newest by place, not by position: a page served in the wrong order must not start the cursor in the past.
    const newest = records.reduce<unknown>((best, raw) => (newer(raw, best, feed) ? raw : best), records[0]);
    const token = rawPagingToken(newest);
    // A token that cannot be the cursor would fail every later poll: this poll fails instead, and is retried.
    if (newest !== undefined && feed.place(token ?? "") === undefined) {
      const why = `the newest record of ${feed.stream} has no paging token a cursor can use`;
      throw new PollError("paging", `${feed.endpoint}: ${why}`);
    }
    Object.assign(state, { cursor: token, unusableCounted: 0, started: true });
    if (newest !== undefined && feed.sawNewest?.(newest) === false) tally.invalidRecords(1);
    return;
  }
  const page = (cursor: string | undefined) => feed.page({ order: "asc", limit: PAGE_LIMIT, cursor });
  try {
    await readAfterCursor(state, tally, { ...feed, page });
  } catch (error) {
    // A refused cursor would be refused at every poll: the next one starts over, and this failed poll shows the gap.
    if (refusedCursor(error)) startOver(state);
    throw error;
  }
}

/** Whether `raw` sits after `than` in the stream; a record without a usable token never does. */
function newer(raw: unknown, than: unknown, feed: Pick<CursorFeed, "place">): boolean {
  const place = feed.place(rawPagingToken(raw) ?? "");
  const before = feed.place(rawPagingToken(than) ?? "");
  return place !== undefined && (before === undefined || place > before);
}

/** Reads pages after the cursor to a short page or `maxPages`; ends `gone`, `idle` (none newer), `read`, `capped`. */
export async function readAfterCursor(state: CursorState, tally: Tally, feed: CursorFeed) {
  for (let pages = 1; ; pages += 1) {
    const records = await feed.page(state.cursor);
    tally.progressed();
    if (records === undefined) return "gone";
    const full = records.length >= PAGE_LIMIT;
    if (!countPage(state, records, tally, feed, { mustMove: full })) return "idle";
    if (!full) return "read";
    if (pages >= feed.maxPages) return "capped";
  }
}

/** Counts a page's records after the cursor and moves the cursor to the newest usable token, in one step: an abort
 * between two pages leaves both consistent. Returns false, counting nothing, when nothing is newer; a page that must
 * move the cursor (`mustMove`: a full one) fails with reason `paging`. */
export function countPage(
  state: CursorState,
  records: RawRecords,
  tally: Tally,
  feed: CursorFeed,
  { mustMove = false } = {},
) {
  // Each record: true after the cursor and first in the page, false at or before it or repeated (counted already),
  // undefined for an unusable token. A page out of order loses nothing: the cursor moves to its newest record.
  const fresh: (boolean | undefined)[] = [];
  const from = state.cursor === undefined ? undefined : feed.place(state.cursor);
  const seen = new Set<bigint>();
  let newest: bigint | undefined;
  let end = -1;
  // An unusable token before a record at or before the cursor (and before any newer one) is older than the cursor:
  // counted already, if ever.
  let stale = -1;
  for (const raw of records) {
    const token = rawPagingToken(raw);
    const place = token === undefined ? undefined : feed.place(token, raw);
    if (place === undefined) fresh.push(undefined);
    else if ((from === undefined || place > from) && !seen.has(place)) {
      seen.add(place);
      if (newest === undefined || place > newest) [newest, end] = [place, fresh.length];
      fresh.push(true);
    } else {
      if (end < 0) stale = fresh.length;
      fresh.push(false);
    }
  }
  if (end < 0) return mustMove ? stuck(state.cursor, feed.endpoint) : false;
  // Unusable tokens right after the cursor: the first `unusableCounted` were counted when they ended an earlier page.
  let countedBefore = state.unusableCounted ?? 0;
  let unusableSinceLast = 0;
  let invalid = 0;
  for (const [index, raw] of records.entries()) {
    const after = fresh[index];
    if (after === false || (after === undefined && index < stale)) continue;
    if (after === true) {
      countedBefore = 0;
      unusableSinceLast = 0;
    } else {
      unusableSinceLast += 1;
      if (unusableSinceLast <= countedBefore) continue;
    }
    if (!feed.count(raw, after === true)) invalid += 1;
  }
  if (invalid > 0) tally.invalidRecords(invalid);
  state.cursor = rawPagingToken(records[end]);
  state.unusableCounted = unusableSinceLast;
  return true;
}
