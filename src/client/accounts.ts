/** Reads watched accounts (Horizon's not_found problem is an answer, "missing"), their open offers and claimable
 * balances, capped. */
import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { accountSchema, claimableBalanceSchema, offerSchema, type Account } from "./account-schemas.js";
import { isNotFound, PollError } from "./errors.js";
import type { HorizonClient, Query } from "./horizon-client.js";
import { cursorAfter, PAGE_LIMIT, validRecord } from "./paging.js";
import { ledgerSchema, pageSchema } from "./schemas.js";

export type AccountLookup = { readonly status: "found"; readonly account: Account } | { readonly status: "missing" };

const ENDPOINT: Endpoint = "accounts";

/** Open offers and claimable balances counted per account at most: five pages, and a sixth to learn if more follow. */
export const ACCOUNT_LIST_CAP = 1000;

export class AccountsClient {
  constructor(private readonly reader: Pick<HorizonClient, "getValidated">) {}

  async account(id: string, signal?: AbortSignal): Promise<AccountLookup> {
    try {
      const path = `accounts/${encodeURIComponent(id)}`;
      return { status: "found", account: await this.reader.getValidated(ENDPOINT, path, {}, accountSchema, signal) };
    } catch (error) {
      if (isNotFound(error)) return { status: "missing" };
      throw error;
    }
  }

  /** The latest ledger's sequence and base reserve in stroops, for a shard other than 0, which reads no ledgers. */
  async latestLedger(signal?: AbortSignal): Promise<{ sequence: number; baseReserveStroops: number }> {
    const page = await this.reader.getValidated(ENDPOINT, "ledgers", { order: "desc", limit: 1 }, pageSchema, signal);
    const latest = validRecord(ledgerSchema, page._embedded.records[0]);
    if (latest === undefined)
      throw new PollError("schema", "Horizon's latest ledger record is missing or does not match its schema");
    return { sequence: latest.sequence, baseReserveStroops: latest.base_reserve_in_stroops };
  }

  offers(id: string, cap: number, signal?: AbortSignal, answered?: () => void) {
    return this.readCapped(`accounts/${encodeURIComponent(id)}/offers`, {}, offerSchema, cap, signal, answered);
  }

  claimableBalances(claimant: string, cap: number, signal?: AbortSignal, answered?: () => void) {
    return this.readCapped("claimable_balances", { claimant }, claimableBalanceSchema, cap, signal, answered);
  }

  /** Pages in ascending order to a short page or past `cap` raw records (five pages for 1000): invalid records count
   * toward the cap, so a Horizon serving only those cannot keep the poll paging. A record served again (on a later
   * page, as the set changes under the cursor) is counted once, by its id. `answered` is called at each page (a job's
   * progress: a slow Horizon paging to the cap is not a silent one). */
  private async readCapped<S extends z.ZodType<{ id: string }>>(
    path: string,
    filter: Query,
    schema: S,
    cap: number,
    signal?: AbortSignal,
    answered?: () => void,
  ) {
    const records = new Map<string, z.output<S>>();
    let rawRecords = 0;
    let invalidRecords = 0;
    let cursor: string | undefined;
    for (;;) {
      const limit = Math.min(PAGE_LIMIT, cap - rawRecords + 1);
      const query = { ...filter, order: "asc", limit, cursor };
      const raw = (await this.reader.getValidated(ENDPOINT, path, query, pageSchema, signal))._embedded.records;
      answered?.();
      rawRecords += raw.length;
      for (const record of raw) {
        const valid = validRecord(schema, record);
        if (valid === undefined) invalidRecords += 1;
        else if (!records.has(valid.id)) records.set(valid.id, valid);
      }
      if (rawRecords > cap) return { records: [...records.values()].slice(0, cap), capped: true, invalidRecords };
      if (raw.length < limit) return { records: [...records.values()], capped: false, invalidRecords };
      cursor = cursorAfter(raw, cursor, ENDPOINT);
    }
  }
}
