/** Reads watched accounts (a 404 is an answer, "missing"), their open offers and claimable balances, capped. */
import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { accountSchema, claimableBalanceSchema, offerSchema, type Account } from "./account-schemas.js";
import { PollError } from "./errors.js";
import type { HorizonClient, Query } from "./horizon-client.js";
import { cursorAfter, PAGE_LIMIT, validRecord } from "./paging.js";
import { ledgerSchema, pageSchema } from "./schemas.js";

export type AccountLookup = { readonly status: "found"; readonly account: Account } | { readonly status: "missing" };

const ENDPOINT: Endpoint = "accounts";

export class AccountsClient {
  constructor(private readonly reader: Pick<HorizonClient, "getValidated">) {}

  async account(id: string, signal?: AbortSignal): Promise<AccountLookup> {
    try {
      const path = `accounts/${encodeURIComponent(id)}`;
      return { status: "found", account: await this.reader.getValidated(ENDPOINT, path, {}, accountSchema, signal) };
    } catch (error) {
      if (error instanceof PollError && error.details.status === 404) return { status: "missing" };
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

  offers(id: string, cap: number, signal?: AbortSignal) {
    return this.readCapped(`accounts/${encodeURIComponent(id)}/offers`, {}, offerSchema, cap, signal);
  }

  claimableBalances(claimant: string, cap: number, signal?: AbortSignal) {
    return this.readCapped("claimable_balances", { claimant }, claimableBalanceSchema, cap, signal);
  }

  /** Pages in ascending order to a short page or the cap; the cursor moves by raw records, invalid ones too. */
  private async readCapped<S extends z.ZodType>(
    path: string,
    filter: Query,
    schema: S,
    cap: number,
    signal?: AbortSignal,
  ) {
    const records: z.output<S>[] = [];
    let invalidRecords = 0;
    let cursor: string | undefined;
    for (;;) {
      const limit = Math.min(PAGE_LIMIT, cap - records.length + 1);
      const query = { ...filter, order: "asc", limit, cursor };
      const raw = (await this.reader.getValidated(ENDPOINT, path, query, pageSchema, signal))._embedded.records;
      const valid = raw.flatMap((record) => validRecord(schema, record) ?? []);
      invalidRecords += raw.length - valid.length;
      records.push(...valid);
      if (records.length > cap) return { records: records.slice(0, cap), capped: true, invalidRecords };
      if (raw.length < limit) return { records, capped: false, invalidRecords };
      cursor = cursorAfter(raw, cursor, ENDPOINT);
    }
  }
}
