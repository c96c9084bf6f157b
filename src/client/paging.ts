import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { PollError } from "./errors.js";
import type { RawRecords } from "./horizon-client.js";

/** Horizon's maximum page size. */
export const PAGE_LIMIT = 200;

/** A raw record's paging token, read even when the record fails its schema. */
export function rawPagingToken(raw: unknown): string | undefined {
  const token = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).paging_token : undefined;
  return typeof token === "string" && token !== "" ? token : undefined;
}

/**
 * The cursor after a non-empty page: the last raw record's token, valid or not, so no record is fetched twice. A page
 * that cannot move the cursor would be asked for forever: it fails with reason `paging`.
 */
export function cursorAfter(records: RawRecords, cursor: string | undefined, endpoint: Endpoint): string {
  return cursorPast(rawPagingToken(records.at(-1)), cursor, endpoint);
}

/** The cursor after a page whose last record carries paging token `next` (see cursorAfter). */
export function cursorPast(next: string | undefined, cursor: string | undefined, endpoint: Endpoint): string {
  if (next === undefined || next === cursor) {
    throw new PollError("paging", `${endpoint} page did not move the cursor past ${cursor ?? "the start"}`);
  }
  return next;
}

/** The record if it matches the schema, else undefined: the caller counts it as invalid. */
export function validRecord<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> | undefined {
  return schema.safeParse(raw).data;
}
