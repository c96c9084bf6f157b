/**
 * Reads watched accounts: the account itself (a 404 is an answer, "missing", not a failure), and
 * optionally its open offers and the balances it can claim, each paged and capped.
 */
import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { accountSchema, claimableBalanceSchema, offerSchema, type Account, type ClaimableBalance } from "./account-schemas.js";
import { HorizonError } from "./errors.js";
import type { HorizonClient, Page, Query } from "./horizon-client.js";

/** The part of HorizonClient this reader needs. */
export type HorizonReader = Pick<HorizonClient, "getValidated" | "getPage">;

export type AccountLookup = { readonly status: "found"; readonly account: Account } | { readonly status: "missing" };

/** Records of a paged list, read up to a cap. */
export interface CappedList<T> {
  readonly records: readonly T[];
  /** True when the cap was reached: there may be more. */
  readonly capped: boolean;
  readonly invalidRecords: number;
}

const ENDPOINT: Endpoint = "accounts";
/** Horizon's maximum page size. */
const PAGE_LIMIT = 200;

export class AccountsClient {
  constructor(private readonly reader: HorizonReader) {}

  async account(id: string): Promise<AccountLookup> {
    try {
      const account = await this.reader.getValidated(ENDPOINT, `accounts/${encodeURIComponent(id)}`, {}, accountSchema);
      return { status: "found", account };
    } catch (error) {
      if (error instanceof HorizonError && error.details.status === 404) return { status: "missing" };
      throw error;
    }
  }

  /** The account's open offers, at most `cap`. */
  offers(id: string, cap: number): Promise<CappedList<z.output<typeof offerSchema>>> {
    return this.readCapped(`accounts/${encodeURIComponent(id)}/offers`, {}, offerSchema, cap);
  }

  /** Claimable balances the account is a claimant of, at most `cap`. */
  claimableBalances(claimant: string, cap: number): Promise<CappedList<ClaimableBalance>> {
    return this.readCapped("claimable_balances", { claimant }, claimableBalanceSchema, cap);
  }

  /** Follows the paging cursor in ascending order until a short page or the cap. */
  private async readCapped<S extends z.ZodType<{ paging_token: string }>>(
    path: string,
    filter: Query,
    schema: S,
    cap: number,
  ): Promise<CappedList<z.output<S>>> {
    const records: z.output<S>[] = [];
    let invalidRecords = 0;
    let cursor: string | undefined;
    for (;;) {
      const limit = Math.min(PAGE_LIMIT, cap - records.length + 1);
      const page: Page<z.output<S>> = await this.reader.getPage(ENDPOINT, path, { ...filter, order: "asc", limit, cursor }, schema);
      invalidRecords += page.invalidRecords;
      records.push(...page.records);
      if (records.length > cap) return { records: records.slice(0, cap), capped: true, invalidRecords };
      const last = page.records.at(-1);
      if (last === undefined || page.records.length + page.invalidRecords < limit) return { records, capped: false, invalidRecords };
      if (last.paging_token === cursor) throw new HorizonError("paging", `${path} cursor did not advance past ${cursor}`);
      cursor = last.paging_token;
    }
  }
}
