import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { CourteousHttp, validated, type HttpOptions, type RequestObserver as HttpRequestObserver } from "./http.js";
import {
  feeStatsSchema,
  ledgerSchema,
  liquidityPoolSchema,
  pageSchema,
  rootSchema,
  type FeeStats,
  type HorizonRoot,
  type Ledger,
  type LiquidityPool,
} from "./schemas.js";

/** Receives what every HTTP attempt to Horizon did, for the exporter's self-metrics. */
export type RequestObserver = HttpRequestObserver<Endpoint>;

export type HorizonClientOptions = HttpOptions<Endpoint>;

export type Query = Readonly<Record<string, string | number | undefined>>;

/** Lets a caller skip validating records it has seen, unchanged, before. */
export interface RecordReuse<T> {
  /** The record validated earlier for a raw record identical to this one, if any. */
  known(raw: unknown): T | undefined;
  /** Told of every record that had to be validated. */
  validated(raw: unknown, record: T): void;
}

export interface Page<T> {
  records: T[];
  /** Records that failed the schema and were left out. */
  invalidRecords: number;
}

const ACCEPT = "application/hal+json, application/problem+json;q=0.9, application/json;q=0.8";

/** One Horizon target: typed, validated reads with timeouts, retries and rate-limit courtesy. */
export class HorizonClient {
  private readonly http: CourteousHttp<Endpoint>;
  private readonly baseUrl: URL;

  constructor(options: HorizonClientOptions) {
    this.http = new CourteousHttp(options, ACCEPT);
    const { href } = this.http.url;
    this.baseUrl = new URL(href.endsWith("/") ? href : `${href}/`);
  }

  root(): Promise<HorizonRoot> {
    return this.getValidated("root", "", {}, rootSchema);
  }

  feeStats(): Promise<FeeStats> {
    return this.getValidated("fee_stats", "fee_stats", {}, feeStatsSchema);
  }

  ledgers(query: Query): Promise<Page<Ledger>> {
    return this.getPage("ledgers", "ledgers", query, ledgerSchema);
  }

  liquidityPools(query: Query, reuse?: RecordReuse<LiquidityPool>): Promise<Page<LiquidityPool>> {
    return this.getPage("liquidity_pools", "liquidity_pools", query, liquidityPoolSchema, reuse);
  }

  liquidityPool(id: string): Promise<LiquidityPool> {
    return this.getValidated("liquidity_pools", `liquidity_pools/${encodeURIComponent(id)}`, {}, liquidityPoolSchema);
  }

  private async getPage<S extends z.ZodType>(
    endpoint: Endpoint,
    path: string,
    query: Query,
    recordSchema: S,
    reuse?: RecordReuse<z.output<S>>,
  ): Promise<Page<z.output<S>>> {
    const page = await this.getValidated(endpoint, path, query, pageSchema);
    const records: z.output<S>[] = [];
    let invalidRecords = 0;
    for (const raw of page._embedded.records) {
      const known = reuse?.known(raw);
      if (known !== undefined) {
        records.push(known);
        continue;
      }
      const parsed = recordSchema.safeParse(raw);
      if (parsed.success) {
        records.push(parsed.data);
        reuse?.validated(raw, parsed.data);
      } else {
        invalidRecords += 1;
      }
    }
    return { records, invalidRecords };
  }

  private async getValidated<S extends z.ZodType>(
    endpoint: Endpoint,
    path: string,
    query: Query,
    schema: S,
  ): Promise<z.output<S>> {
    return validated(schema, await this.http.json(endpoint, this.urlFor(path, query)), `Horizon's ${endpoint}`);
  }

  private urlFor(path: string, query: Query): string {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }
}
