import type { z } from "zod";
import type { Endpoint, RequestPurpose } from "../catalog/metrics.js";
import { CourteousHttp, validated, type HttpOptions } from "./http.js";
import { feeStatsSchema, liquidityPoolSchema, pageSchema, rootSchema, transactionResponseSchema } from "./schemas.js";

export type Query = Readonly<Record<string, string | number | undefined>>;

/** A page's records as Horizon sent them: collectors validate them one by one, so a bad one still moves the cursor. */
export type RawRecords = readonly unknown[];

const ACCEPT = "application/hal+json, application/problem+json;q=0.9, application/json;q=0.8";

/** Horizon holds a submission until it is in a ledger, and answers 504 after 30 s: a submission outlives that wait
 * (the client's own timeout, if longer, still applies), and so does the run that submits (TxProbe). */
export const SUBMISSION_TIMEOUT_MS = 45_000;

/** One Horizon target: typed, validated reads (the HTTP courtesy, shared with Stellar RPC, is in http.ts). */
export class HorizonClient {
  private readonly http: CourteousHttp<RequestPurpose>;
  private readonly baseUrl: URL;

  constructor(private readonly options: HttpOptions<RequestPurpose>) {
    this.http = new CourteousHttp(options, ACCEPT);
    this.baseUrl = new URL(this.http.url);
    if (!this.baseUrl.pathname.endsWith("/")) this.baseUrl.pathname += "/";
  }

  root(signal?: AbortSignal) {
    return this.getValidated("root", "", {}, rootSchema, signal);
  }

  feeStats(signal?: AbortSignal) {
    return this.getValidated("fee_stats", "fee_stats", {}, feeStatsSchema, signal);
  }

  ledgers(query: Query, signal?: AbortSignal): Promise<RawRecords> {
    return this.records("ledgers", "ledgers", query, signal);
  }

  liquidityPools(query: Query, signal?: AbortSignal): Promise<RawRecords> {
    return this.records("liquidity_pools", "liquidity_pools", query, signal);
  }

  liquidityPool(id: string, signal?: AbortSignal) {
    const path = `liquidity_pools/${encodeURIComponent(id)}`;
    return this.getValidated("liquidity_pools", path, {}, liquidityPoolSchema, signal);
  }

  /** The `/assets` record of one asset (none when Horizon knows no such asset). */
  asset(code: string, issuer: string, signal?: AbortSignal): Promise<RawRecords> {
    return this.records("assets", "assets", { asset_code: code, asset_issuer: issuer, limit: 1 }, signal);
  }

  accountStream(id: string, stream: "payments" | "transactions" | "operations", query: Query, signal?: AbortSignal) {
    return this.records("activity", `accounts/${encodeURIComponent(id)}/${stream}`, query, signal);
  }

  marketPage(path: "trade_aggregations" | "trades" | "offers", query: Query, signal?: AbortSignal) {
    return this.records("markets", path, query, signal);
  }

  /** Submits a signed envelope, awaiting Horizon's verdict; never retried: the caller rereads the sequence first. */
  async submitTransaction(envelopeXdr: string, signal?: AbortSignal) {
    const body = { form: new URLSearchParams({ tx: envelopeXdr }) };
    const timeoutMs = Math.max(this.options.timeoutMs, SUBMISSION_TIMEOUT_MS);
    const response = await this.http.once("transactions", this.urlFor("transactions", {}), body, timeoutMs, signal);
    return validated(transactionResponseSchema, response, "Horizon's transactions");
  }

  /** One page of paths, records unvalidated; sent once: Horizon's dearest request, and a timeout is an outcome. */
  async paths(mode: "strict_send" | "strict_receive", query: Query, signal?: AbortSignal): Promise<RawRecords> {
    const url = this.urlFor(mode === "strict_send" ? "paths/strict-send" : "paths/strict-receive", query);
    const page = await this.http.once("corridors", url, undefined, this.options.timeoutMs, signal);
    return validated(pageSchema, page, "Horizon's paths")._embedded.records;
  }

  holdingBack(): boolean {
    return this.http.holdingBack();
  }

  /** One document, validated against `schema`; throws a PollError (reason `schema` when it does not match). */
  async getValidated<S extends z.ZodType>(
    endpoint: Endpoint,
    path: string,
    query: Query,
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    const body = await this.http.json(endpoint, this.urlFor(path, query), undefined, signal);
    return validated(schema, body, `Horizon's ${endpoint}`);
  }

  private async records(endpoint: Endpoint, path: string, query: Query, signal?: AbortSignal): Promise<RawRecords> {
    return (await this.getValidated(endpoint, path, query, pageSchema, signal))._embedded.records;
  }

  private urlFor(path: string, query: Query): string {
    const url = new URL(path, this.baseUrl);
    // A provider's key in the target's query (`?apikey=`) goes with every request.
    url.search = this.baseUrl.search;
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.toString();
  }
}
