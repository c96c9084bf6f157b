import type { z } from "zod";
import type { Endpoint } from "../catalog/metrics.js";
import { CourteousHttp, validated, type HttpOptions, type RequestObserver as HttpRequestObserver } from "./http.js";
import {
  feeStatsSchema,
  liquidityPoolSchema,
  pageSchema,
  rootSchema,
  type FeeStats,
  type HorizonRoot,
  type LiquidityPool,
} from "./schemas.js";

/** Receives what every HTTP attempt to Horizon did, for the exporter's self-metrics. */
export type RequestObserver = HttpRequestObserver<Endpoint>;

export type HorizonClientOptions = HttpOptions<Endpoint>;

export type Query = Readonly<Record<string, string | number | undefined>>;

/**
 * A page's records as Horizon sent them. Collectors validate them one by one, so one bad record
 * is counted and left out instead of failing the page, and still moves the paging cursor.
 */
export type RawRecords = readonly unknown[];

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

  root(signal?: AbortSignal): Promise<HorizonRoot> {
    return this.getValidated("root", "", {}, rootSchema, signal);
  }

  feeStats(signal?: AbortSignal): Promise<FeeStats> {
    return this.getValidated("fee_stats", "fee_stats", {}, feeStatsSchema, signal);
  }

  async ledgers(query: Query, signal?: AbortSignal): Promise<RawRecords> {
    return (await this.getValidated("ledgers", "ledgers", query, pageSchema, signal))._embedded.records;
  }

  async liquidityPools(query: Query, signal?: AbortSignal): Promise<RawRecords> {
    return (await this.getValidated("liquidity_pools", "liquidity_pools", query, pageSchema, signal))._embedded.records;
  }

  liquidityPool(id: string, signal?: AbortSignal): Promise<LiquidityPool> {
    return this.getValidated("liquidity_pools", `liquidity_pools/${encodeURIComponent(id)}`, {}, liquidityPoolSchema, signal);
  }

  /** One document, validated against `schema`; throws a HorizonError (reason `schema` when it does not match). */
  async getValidated<S extends z.ZodType>(
    endpoint: Endpoint,
    path: string,
    query: Query,
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    return validated(schema, await this.http.json(endpoint, this.urlFor(path, query), undefined, signal), `Horizon's ${endpoint}`);
  }

  private urlFor(path: string, query: Query): string {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }
}
