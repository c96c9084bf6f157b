/**
 * Horizon's paging rules: `cursor`, `order` and `limit` parsed and validated in
 * Horizon's order with Horizon's error texts, ledger cursors resolved against the
 * retained history, and the `self`/`next`/`prev` links of a page.
 */

import { BEFORE_HISTORY, invalidField, ProblemError } from "./problems.js";
import { goEncodeQuery } from "./wire.js";

export type Order = "asc" | "desc";

export interface PageQuery {
  /** As requested, except that `now` is already resolved to a paging token. */
  readonly cursor: string;
  readonly order: Order;
  readonly limit: number;
}

const DEFAULT_PAGE_LIMIT = 10;
const MAX_PAGE_LIMIT = 200;
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

/** Go's `strconv.ParseInt(text, 10, 64)`. */
function parseGoInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value > MAX_INT64 || value < MIN_INT64 ? undefined : value;
}

/** The paging token of a ledger (its TOID): the sequence in the high 32 bits. */
export function ledgerPagingToken(sequence: number): bigint {
  return BigInt(sequence) << 32n;
}

/** `toid.AfterLedger`: sorts after every operation of the ledger, which is what `cursor=now` means. */
function afterLedgerToken(sequence: number): bigint {
  return ledgerPagingToken(sequence) + 0xffffffffn;
}

function parseLimit(raw: string): number {
  if (raw === "") return DEFAULT_PAGE_LIMIT;
  const value = parseGoInt64(raw);
  if (value === undefined) throw new ProblemError(invalidField("limit", "unparseable value"));
  if (value <= 0n) throw new ProblemError(invalidField("limit", "invalid limit: non-positive value provided"));
  if (value > BigInt(MAX_PAGE_LIMIT)) {
    throw new ProblemError(
      invalidField("limit", `invalid limit: value provided that is over limit max of ${MAX_PAGE_LIMIT}`),
    );
  }
  return Number(value);
}

/** Go's `CursorInt64Pair` validation: one or two non-negative integers joined by `-`. */
function isValidNumericCursor(cursor: string): boolean {
  if (cursor === "") return true;
  const separator = cursor.indexOf("-");
  const parts = separator < 0 ? [cursor] : [cursor.slice(0, separator), cursor.slice(separator + 1)];
  return parts.every((part) => {
    const value = parseGoInt64(part);
    return value !== undefined && value >= 0n;
  });
}

export interface PageQueryInput {
  /** First value of a query parameter, or undefined. */
  readonly param: (name: string) => string | undefined;
  /** Latest ledger ingested into history, which `cursor=now` refers to. */
  readonly historyLatestLedger: number;
  /** Ledger endpoints require numeric cursors; pool endpoints page by id and do not. */
  readonly numericCursor: boolean;
}

/** Horizon's `GetPageQuery`, checks in the same order so the same request gets the same error. */
export function parsePageQuery(input: PageQueryInput): PageQuery {
  let cursor = input.param("cursor") ?? "";
  if (cursor === "now") cursor = afterLedgerToken(input.historyLatestLedger).toString();
  const asNumber = parseGoInt64(cursor);
  if (asNumber !== undefined && asNumber < 0n) {
    throw new ProblemError(invalidField("cursor", `the cursor ${asNumber} is a negative number: `));
  }
  const order = input.param("order") ?? "";
  const limit = parseLimit(input.param("limit") ?? "");
  if (order !== "" && order !== "asc" && order !== "desc") {
    throw new ProblemError(invalidField("order", "order: invalid value"));
  }
  if (input.numericCursor && !isValidNumericCursor(cursor)) {
    throw new ProblemError(invalidField("cursor", "cursor: invalid value"));
  }
  return { cursor, order: order === "desc" ? "desc" : "asc", limit };
}

export interface LedgerRange {
  readonly from: number;
  readonly step: 1 | -1;
}

/**
 * Where a ledger page starts. Ascending pages never fail: a cursor before the
 * retained history starts at the oldest ledger. Descending pages that would end
 * before it get Horizon's 410 `before_history`.
 */
export function ledgerRange(query: PageQuery, historyElderLedger: number, historyLatestLedger: number): LedgerRange {
  if (query.cursor.includes("-")) {
    // Horizon accepts `a-b` during validation but cannot apply it to ledger ids.
    throw new ProblemError(invalidField("cursor", "cursor: invalid value"));
  }
  const elderToken = ledgerPagingToken(historyElderLedger);
  if (query.order === "asc") {
    const cursor = query.cursor === "" ? 0n : BigInt(query.cursor);
    if (cursor <= elderToken) return { from: historyElderLedger, step: 1 };
    return { from: Number(cursor >> 32n) + 1, step: 1 };
  }
  const cursor = query.cursor === "" ? MAX_INT64 : BigInt(query.cursor);
  if (cursor <= elderToken) throw new ProblemError(BEFORE_HISTORY);
  return { from: Math.min(historyLatestLedger, Number((cursor - 1n) >> 32n)), step: -1 };
}

export interface Link {
  href: string;
  templated?: boolean;
}

export interface PageLinks {
  self: Link;
  next: Link;
  prev: Link;
}

export interface PageLinkInput {
  /** Scheme, host and path of the request, e.g. `http://127.0.0.1:8000/ledgers`. */
  readonly url: string;
  /** Every query parameter of the request, in request order. */
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly query: PageQuery;
  /** Paging tokens of the page's records, in page order. */
  readonly pagingTokens: readonly string[];
}

/** Go's `hal.Page.PopulateLinks`: paging params overwritten, all params re-encoded in key order. */
export function pageLinks(input: PageLinkInput): PageLinks {
  const href = (overrides: Record<string, string>): Link => {
    const params = new Map(input.params);
    for (const [key, value] of Object.entries(overrides)) params.set(key, [value]);
    return { href: `${input.url}?${goEncodeQuery(params)}` };
  };
  const { cursor, order, limit } = input.query;
  const first = input.pagingTokens[0];
  const last = input.pagingTokens[input.pagingTokens.length - 1];
  const reversed = order === "asc" ? "desc" : "asc";
  return {
    self: href({ cursor, order, limit: String(limit) }),
    next: href({ cursor: last ?? cursor, order, limit: String(limit) }),
    prev: href({ cursor: first ?? cursor, order: reversed, limit: String(limit) }),
  };
}
