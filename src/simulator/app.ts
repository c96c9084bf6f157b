/**
 * The HTTP face of the simulator: Horizon's routes, headers and failure modes on
 * top of the model, a Stellar RPC at /rpc (see rpc.ts), plus the `/_sim/*` control endpoints (never rate limited or
 * failed, so a test can always steer the simulator).
 */

import { StrKey } from "@stellar/stellar-base";
import { Hono, type Context } from "hono";
import { historyRecordWithLinks, type HistoryRecord } from "./account-history.js";
import { accountResource, claimableBalanceResource } from "./account-resources.js";
import type { SimulatedAccounts } from "./accounts.js";
import type { SimulatedAssets } from "./asset-stats.js";
import type { SimulatedContracts } from "./contracts.js";
import { canonicalAsset, parseCanonicalAsset } from "./assets.js";
import { exhaustedQuota, type Fault, type HangingRequests, type RateLimitHeaders } from "./http-faults.js";
import { registerMarketRoutes } from "./market-routes.js";
import type { HorizonModel, ModelStatus } from "./model.js";
import type { OrderBook } from "./order-book.js";
import { ledgerRange, parsePageQuery, type PageQuery } from "./paging.js";
import type { PoolDefinition, PoolUniverse } from "./pools.js";
import {
  BEFORE_HISTORY,
  invalidField,
  NOT_FOUND,
  ProblemError,
  RATE_LIMIT_EXCEEDED,
  SERVER_ERROR,
  TIMEOUT,
  type Problem,
} from "./problems.js";
import { ledgerResource, pageResource, poolResource, rootResource, type PagedRecord } from "./resources.js";
import { registerRpcRoutes, RPC_PATH } from "./rpc.js";
import { registerPathRoutes } from "./path-routes.js";
import { dexLiquidity } from "./paths.js";
import { UnknownScenarioError } from "./scenarios.js";
import { compressedLikeHorizon } from "./compression.js";
import type { SubmissionAnswer } from "./transactions.js";
import { goJson } from "./wire.js";

/** What the HTTP layer needs from the simulator. */
export interface HorizonBackend {
  readonly model: HorizonModel;
  readonly pools: PoolUniverse;
  readonly accounts: SimulatedAccounts;
  readonly assets: SimulatedAssets;
  /** The DEX's offers and trades. */
  readonly orderBook: OrderBook;
  readonly contracts: SimulatedContracts;
  readonly networkPassphrase: string;
  readonly hangingRequests: HangingRequests;
  /** Whether `/paths` routes read the order book; when disabled they are not registered (404). */
  readonly pathFinding: boolean;
  /** Brings the model up to the current time; returns that time. */
  sync(): number;
  consumeRateLimit(nowMs: number): RateLimitHeaders;
  drawFault(): Fault | undefined;
  setScenario(name: string): void;
  /** The simulator's state (simulator.ts, SimulatorState), served as JSON. */
  state(): object;
  /** Resolves with Horizon's answer once the transaction is in an ingested ledger, or failed, or timed out. */
  submitTransaction(envelopeXdr: string, baseUrl: string): Promise<SubmissionAnswer>;
}

const HAL_JSON = "application/hal+json; charset=utf-8";
const PROBLEM_JSON = "application/problem+json; charset=utf-8";
const CONTROL_PATH_PREFIX = "/_sim/";
const MAX_LEDGER_SEQUENCE = 0xffffffff;
const RESERVES_INVALID = invalidField(
  "reserves",
  "Invalid reserves, should be comma-separated list of assets in canonical form",
);

function halResponse(body: unknown, extraHeaders: Record<string, string> = {}): Response {
  return new Response(goJson(body), {
    status: 200,
    headers: { "Content-Type": HAL_JSON, "Content-Disposition": "inline", ...extraHeaders },
  });
}

function problemResponse(problem: Problem): Response {
  return new Response(goJson(problem), { status: problem.status, headers: { "Content-Type": PROBLEM_JSON } });
}

/** Go's `http.Error` from chi's Throttle middleware, which answers before Horizon's own handlers run. */
function overCapacityResponse(): Response {
  return new Response("Server capacity exceeded.\n", {
    status: 503,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
  });
}

/** Headers every response gets from Horizon's middleware chain (cache headers come first in that chain). */
function withCacheHeaders(response: Response): Response {
  response.headers.set("Cache-Control", "no-cache, no-store, max-age=0");
  return response;
}

/** Headers added by the CORS and rate-limiting middleware, which run before any handler. */
function withRateLimitHeaders(response: Response, rate: RateLimitHeaders): Response {
  response.headers.set("Vary", "Origin");
  response.headers.set("X-Ratelimit-Limit", String(rate.limit));
  response.headers.set("X-Ratelimit-Remaining", String(rate.remaining));
  response.headers.set("X-Ratelimit-Reset", String(rate.resetSeconds));
  if (rate.retryAfterSeconds !== undefined) response.headers.set("Retry-After", String(rate.retryAfterSeconds));
  return withCacheHeaders(response);
}

function baseUrl(c: Context): string {
  return new URL(c.req.url).origin;
}

function queryParams(c: Context): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [key, value] of new URL(c.req.url).searchParams) params.set(key, [...(params.get(key) ?? []), value]);
  return params;
}

function pageOf(
  c: Context,
  query: PageQuery,
  records: readonly PagedRecord[],
  extraHeaders?: Record<string, string>,
): Response {
  const links = { url: baseUrl(c) + c.req.path, params: queryParams(c), query };
  return halResponse(pageResource(links, records), extraHeaders);
}

/** Horizon's `?reserves=` filter: comma-separated canonical assets, duplicates collapse. */
function parseReserves(raw: string | undefined): string[] {
  const assets = new Set<string>();
  for (const text of (raw ?? "").split(",")) {
    if (text === "") continue;
    const asset = parseCanonicalAsset(text);
    if (asset === undefined) throw new ProblemError(RESERVES_INVALID);
    assets.add(canonicalAsset(asset));
  }
  return [...assets];
}

function parseLedgerSequence(raw: string): number {
  const sequence = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(sequence <= MAX_LEDGER_SEQUENCE)) {
    throw new ProblemError(invalidField("ledger_id", "Ledger ID must be an integer higher than 0"));
  }
  return sequence;
}

function registerHorizonRoutes(app: Hono, backend: HorizonBackend): void {
  const { model, pools } = backend;

  app.get("/", (c) => halResponse(rootResource(baseUrl(c), model.status(), backend.networkPassphrase)));

  app.get("/fee_stats", () => halResponse(model.feeStats()));

  app.get("/ledgers", (c) => {
    const status = model.status();
    const query = parsePageQuery({
      param: (name) => c.req.query(name),
      historyLatestLedger: status.historyLatestLedger,
      numericCursor: true,
    });
    const range = ledgerRange(query, status.historyElderLedger, status.historyLatestLedger);
    const legacy = status.behaviour.legacyShapes;
    const records = model
      .ledgers(range.from, range.step, query.limit)
      .map((record) => ledgerResource(baseUrl(c), record, legacy));
    return pageOf(c, query, records);
  });

  const singleLedger = (c: Context): Response => {
    const status = model.status();
    const sequence = parseLedgerSequence(c.req.param("sequence") ?? "");
    if (sequence < status.historyElderLedger) throw new ProblemError(BEFORE_HISTORY);
    const record = model.ledger(sequence);
    if (record === undefined) throw new ProblemError(NOT_FOUND);
    return halResponse(ledgerResource(baseUrl(c), record, status.behaviour.legacyShapes));
  };
  app.get("/ledgers/:sequence", singleLedger);
  // Horizon 2.11 advertised `/ledger/{sequence}` in its root document; clients that followed it must work.
  app.get("/ledger/:sequence", singleLedger);

  const poolRecord = (c: Context, pool: PoolDefinition, status: ModelStatus): PagedRecord => {
    const state = pools.stateAt(pool, status);
    const lastModified = model.ledger(state.lastModifiedLedger);
    return poolResource(baseUrl(c), pool, state, lastModified?.closedAtMs, status.behaviour.legacyShapes);
  };

  app.post("/transactions", async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const envelope = form.tx;
    if (typeof envelope !== "string" || envelope === "") {
      throw new ProblemError(invalidField("tx", "Field is required"));
    }
    const answer = await backend.submitTransaction(envelope, baseUrl(c));
    return "problem" in answer ? problemResponse(answer.problem) : halResponse(answer.body);
  });

  app.get("/liquidity_pools", (c) => {
    const reserves = parseReserves(c.req.query("reserves"));
    const status = model.status();
    const query = parsePageQuery({
      param: (name) => c.req.query(name),
      historyLatestLedger: status.historyLatestLedger,
      numericCursor: false,
    });
    // An account participates in the pools it holds shares of; an unknown (or merged) account holds none.
    const account = c.req.query("account") || undefined;
    const ids =
      account === undefined
        ? undefined
        : new Set(backend.accounts.get(parseAccountId(account, "account"))?.poolShares.map((share) => share.poolId));
    const matching = pools.page({ ...query, reserves, ids });
    const records = matching.map((pool) => poolRecord(c, pool, status));
    return pageOf(c, query, records, { "Latest-Ledger": String(status.ingestLatestLedger) });
  });

  app.get("/liquidity_pools/:id", (c) => {
    const id = c.req.param("id");
    // Horizon routes only `\w+` ids here, then requires a SHA-256 hex string.
    if (!/^\w+$/.test(id)) throw new ProblemError(NOT_FOUND);
    if (!/^[0-9a-fA-F]{64}$/.test(id)) {
      throw new ProblemError(invalidField("liquidity_pool_id", `${id} does not validate as sha256`));
    }
    const pool = pools.find(id);
    if (pool === undefined) throw new ProblemError(NOT_FOUND);
    const status = model.status();
    return halResponse(poolRecord(c, pool, status), { "Latest-Ledger": String(status.ingestLatestLedger) });
  });
}

/** `/assets`, the asset stats: the demo assets (see asset-stats.ts). */
function registerAssetRoutes(app: Hono, backend: HorizonBackend): void {
  app.get("/assets", (c) => {
    const query = parsePageQuery({
      param: (name) => c.req.query(name),
      historyLatestLedger: backend.model.status().historyLatestLedger,
      numericCursor: false,
    });
    // An empty filter is no filter, as in Horizon.
    const records = backend.assets.page(
      c.req.query("asset_code") || undefined,
      c.req.query("asset_issuer") || undefined,
      query,
    );
    return pageOf(c, query, records);
  });
}

/** Horizon's check of an account id in a path or filter (muxed M... ids are refused too). */
function parseAccountId(raw: string | undefined, field: string): string {
  if (raw === undefined || !StrKey.isValidEd25519PublicKey(raw)) {
    throw new ProblemError(invalidField(field, "Account ID must start with `G` and contain 56 alphanum characters"));
  }
  return raw;
}

/** Records after (asc) or before (desc) the cursor, by paging token, at most `limit`. */
function pageAfterCursor<T>(
  records: readonly T[],
  query: PageQuery,
  token: (record: T) => string,
  compare: (a: string, b: string) => number,
): T[] {
  const ordered = query.order === "asc" ? [...records] : [...records].reverse();
  const after =
    query.cursor === ""
      ? ordered
      : ordered.filter((record) => (query.order === "asc" ? 1 : -1) * compare(token(record), query.cursor) > 0);
  return after.slice(0, query.limit);
}

const compareNumericTokens = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function registerAccountRoutes(app: Hono, backend: HorizonBackend): void {
  const { model, accounts } = backend;
  const pageQuery = (c: Context, numericCursor: boolean) =>
    parsePageQuery({
      param: (name) => c.req.query(name),
      historyLatestLedger: model.status().historyLatestLedger,
      numericCursor,
    });

  app.get("/accounts/:id", (c) => {
    const account = accounts.get(parseAccountId(c.req.param("id"), "account_id"));
    if (account === undefined) throw new ProblemError(NOT_FOUND);
    return halResponse(accountResource(baseUrl(c), account, accounts, model.status().behaviour.legacyShapes));
  });

  for (const stream of ["payments", "transactions", "operations"] as const) {
    app.get(`/accounts/:id/${stream}`, (c) => {
      const id = parseAccountId(c.req.param("id"), "account_id");
      const includeFailed = c.req.query("include_failed") ?? "";
      if (!["", "true", "false"].includes(includeFailed)) {
        throw new ProblemError(invalidField("include_failed", "Filter should be true or false"));
      }
      const query = pageQuery(c, true);
      // Horizon answers 404 for an account its history has never seen.
      if (!accounts.history.knows(id) && accounts.get(id) === undefined) throw new ProblemError(NOT_FOUND);
      const successful = (record: HistoryRecord) =>
        (stream === "transactions" ? record.successful : record.transaction_successful) !== false;
      const records = accounts.history
        .records(id, stream)
        .filter((record) => includeFailed === "true" || successful(record)) as HistoryRecord[];
      const page = pageAfterCursor(records, query, (record) => record.paging_token, compareNumericTokens);
      return pageOf(
        c,
        query,
        page.map((record) => historyRecordWithLinks(baseUrl(c), stream, record)),
      );
    });
  }

  app.get("/claimable_balances", (c) => {
    const claimant = parseAccountId(c.req.query("claimant"), "claimant");
    const query = pageQuery(c, false);
    const records = accounts.claimableBy(claimant).map((balance) => claimableBalanceResource(baseUrl(c), balance));
    return pageOf(
      c,
      query,
      pageAfterCursor(records, query, (record) => record.paging_token, compareClaimableTokens),
    );
  });
}

/** Claimable balance tokens are `ledger-id`: by ledger, then by id. */
function compareClaimableTokens(a: string, b: string): number {
  const [ledgerA = "0", idA = ""] = a.split("-");
  const [ledgerB = "0", idB = ""] = b.split("-");
  return Number(ledgerA) - Number(ledgerB) || compareText(idA, idB);
}

function registerControlRoutes(app: Hono, backend: HorizonBackend): void {
  const stateResponse = (): Response =>
    new Response(goJson(backend.state()), { headers: { "Content-Type": "application/json; charset=utf-8" } });

  app.get(`${CONTROL_PATH_PREFIX}state`, stateResponse);

  app.post(`${CONTROL_PATH_PREFIX}scenario/:name`, (c) => {
    try {
      backend.setScenario(c.req.param("name"));
    } catch (error) {
      if (error instanceof UnknownScenarioError) return problemResponse({ ...NOT_FOUND, detail: error.message });
      throw error;
    }
    return stateResponse();
  });
}

/** Applies the active scenario's HTTP behaviour, in the order of Horizon's middleware chain. */
function horizonBehaviour(backend: HorizonBackend) {
  return async (c: Context, next: () => Promise<void>): Promise<Response | void> => {
    // The RPC is another server: Horizon's rate limit and faults are not its own.
    if (c.req.path.startsWith(CONTROL_PATH_PREFIX) || c.req.path === RPC_PATH) return next();
    const nowMs = backend.sync();
    const http = backend.model.status().behaviour.http;
    if (http === "rate_limited")
      return withRateLimitHeaders(problemResponse(RATE_LIMIT_EXCEEDED), exhaustedQuota(nowMs));
    const fault = http === "flapping" ? backend.drawFault() : undefined;
    if (fault === "over_capacity") return withCacheHeaders(overCapacityResponse());
    const rate = backend.consumeRateLimit(nowMs);
    switch (fault) {
      case "server_error":
        return withRateLimitHeaders(problemResponse(SERVER_ERROR), rate);
      case "timeout":
        return withRateLimitHeaders(problemResponse(TIMEOUT), rate);
      case "hang":
        // A request that never gets an answer in time; the 504 only reaches clients patient enough to wait.
        await backend.hangingRequests.hold(c.req.raw.signal);
        return withRateLimitHeaders(problemResponse(TIMEOUT), rate);
      case undefined: {
        await next();
        withRateLimitHeaders(c.res, rate);
        const compressed = await compressedLikeHorizon(c.req.header("Accept-Encoding"), c.res);
        if (compressed === c.res) return;
        // Unset first: assigning over a response would copy its headers back, Vary and all.
        c.res = undefined;
        c.res = compressed;
        return;
      }
    }
  };
}

export function createHorizonApp(backend: HorizonBackend): Hono {
  const app = new Hono({ strict: false });
  app.use("*", horizonBehaviour(backend));
  registerControlRoutes(app, backend);
  registerHorizonRoutes(app, backend);
  registerAccountRoutes(app, backend);
  registerAssetRoutes(app, backend);
  registerMarketRoutes(app, {
    book: backend.orderBook,
    accountOffers: () => backend.accounts.offers,
    accountId: (raw) => parseAccountId(raw, "account_id"),
    latestLedger: () => backend.model.status().historyLatestLedger,
    now: () => backend.sync(),
    hal: halResponse,
    page: pageOf,
  });
  if (backend.pathFinding)
    registerPathRoutes(
      app,
      dexLiquidity(backend.orderBook, () => backend.accounts.offers),
      backend.accounts,
      (body) => halResponse(body),
    );
  registerRpcRoutes(app, backend);
  app.notFound(() => problemResponse(NOT_FOUND));
  app.onError((error) => {
    if (error instanceof ProblemError) return problemResponse(error.problem);
    console.error("simulator: unexpected error while serving a request", error);
    return problemResponse(SERVER_ERROR);
  });
  return app;
}
