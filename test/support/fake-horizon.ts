import { Hono, type Context } from "hono";
import { listen, type Listening } from "../../src/server/listen.js";
import { fixtureJson } from "./fixtures.js";

export type JsonRecord = Record<string, unknown>;

/** A canned reply that replaces an endpoint's normal answer. */
export interface Fault {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const LEDGER_TEMPLATE = fixtureJson("ledger-java-sdk.json");
const POOL_TEMPLATE = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("liquidity_pools-java-sdk.json")._embedded
  .records[0]!;

export function pagingToken(sequence: number): string {
  return (BigInt(sequence) << 32n).toString();
}

function hashOf(sequence: number, epoch: number): string {
  return `${epoch.toString(16).padStart(8, "0")}${sequence.toString(16).padStart(56, "0")}`;
}

/** A ledger record in Horizon's wire format, built on a real capture. */
export function makeLedger(sequence: number, overrides: JsonRecord = {}, epoch = 0): JsonRecord {
  return {
    ...LEDGER_TEMPLATE,
    id: hashOf(sequence, epoch),
    paging_token: pagingToken(sequence),
    hash: hashOf(sequence, epoch),
    prev_hash: hashOf(sequence - 1, epoch),
    sequence,
    closed_at: new Date(Date.UTC(2024, 6, 5, 0, 0, 0) + sequence * 5_000).toISOString().replace(".000Z", "Z"),
    ...overrides,
  };
}

export function makePool(index: number, overrides: JsonRecord = {}): JsonRecord {
  const id = index.toString(16).padStart(64, "0");
  return {
    ...POOL_TEMPLATE,
    id,
    paging_token: id,
    total_trustlines: String(index + 1),
    total_shares: `${1000 + index}.5000000`,
    reserves: [
      { asset: "native", amount: `${index * 10}.0000000` },
      {
        asset: `TOK${index}:GDEUQ2MX3YXMITFOTC3CO3GW5V3XE3IVG7JKLZZAOZ7WFYIN256INDUS`,
        amount: `${index * 20}.2500000`,
      },
    ],
    ...overrides,
  };
}

function page(c: Context, path: string, records: JsonRecord[], cursorOf: (record: JsonRecord) => string) {
  const url = new URL(c.req.url);
  const limit = Number(url.searchParams.get("limit") ?? 10);
  const order = url.searchParams.get("order") ?? "asc";
  const cursor = url.searchParams.get("cursor") ?? "";
  const base = `${url.origin}${path}`;
  const link = (at: string, ord: string) => ({ href: `${base}?cursor=${at}&limit=${limit}&order=${ord}` });
  return c.json(
    {
      _links: {
        self: link(cursor, order),
        next: link(records.length ? cursorOf(records[records.length - 1]!) : cursor, order),
        prev: link(records.length ? cursorOf(records[0]!) : cursor, order === "asc" ? "desc" : "asc"),
      },
      _embedded: { records },
    },
    200,
    { "Content-Type": "application/hal+json; charset=utf-8" },
  );
}

/**
 * A small, fully controlled Horizon for integration tests: state is plain data the test
 * mutates, faults replace an endpoint's answer, and every request is recorded.
 */
export class FakeHorizon {
  root: JsonRecord = fixtureJson("root-java-sdk.json");
  feeStats: JsonRecord = fixtureJson("fee_stats-java-sdk.json");
  /** Ascending by sequence. */
  ledgers: JsonRecord[] = [];
  /** Each ascending page of ledgers starts again with the record at its cursor, as some Horizons do. */
  repeatCursorLedger = false;
  /** Ascending by id. */
  pools: JsonRecord[] = [];
  /** Accounts by id; any other id gets Horizon's 404. */
  accounts = new Map<string, JsonRecord>();
  /** Open offers by seller, ascending by id. */
  offers = new Map<string, JsonRecord[]>();
  /** Claimable balances, ascending by paging token. */
  claimableBalances: JsonRecord[] = [];
  /** Records of an account's `payments`, `transactions` and `operations` streams, by `ID/stream`, ascending. */
  accountStreams = new Map<string, JsonRecord[]>();
  /** `/assets` records by CODE:ISSUER; any other asset gets a page with no records. */
  assets = new Map<string, JsonRecord>();
  faults = new Map<string, Fault>();
  rateLimitHeaders: Record<string, string> = {};
  /** Every answer waits this long: a Horizon slower than the exporter's schedule. */
  responseDelayMs = 0;
  /** The most requests that were in flight at once, per path. */
  readonly maxInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  readonly requests: URL[] = [];
  /** Headers of each request, in the order of `requests`. */
  readonly requestHeaders: Headers[] = [];
  private server: Listening | undefined;

  readonly app = new Hono()
    .use(async (c, next) => {
      const url = new URL(c.req.url);
      this.requests.push(url);
      this.requestHeaders.push(new Headers(c.req.raw.headers));
      const path = url.pathname;
      this.inFlight.set(path, (this.inFlight.get(path) ?? 0) + 1);
      this.maxInFlight.set(path, Math.max(this.maxInFlight.get(path) ?? 0, this.inFlight.get(path)!));
      try {
        if (this.responseDelayMs > 0) await new Promise((done) => setTimeout(done, this.responseDelayMs));
        const fault = this.faults.get(path);
        if (fault) return c.body(fault.body, fault.status as 200, fault.headers ?? {});
        await next();
      } finally {
        this.inFlight.set(path, this.inFlight.get(path)! - 1);
      }
      for (const [name, value] of Object.entries(this.rateLimitHeaders)) c.res.headers.set(name, value);
    })
    .get("/", (c) => c.json(this.root))
    .get("/fee_stats", (c) => c.json(this.feeStats))
    .get("/ledgers", (c) => {
      const url = new URL(c.req.url);
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const cursor = url.searchParams.get("cursor");
      const descending = url.searchParams.get("order") === "desc";
      const token = (ledger: JsonRecord) => BigInt(ledger.paging_token as string);
      let records = descending ? [...this.ledgers].reverse() : this.ledgers;
      const repeated = this.repeatCursorLedger && !descending;
      if (cursor)
        records = records.filter((ledger) =>
          descending
            ? token(ledger) < BigInt(cursor)
            : token(ledger) > BigInt(cursor) || (repeated && token(ledger) === BigInt(cursor)),
        );
      return page(c, "/ledgers", records.slice(0, limit), (ledger) => ledger.paging_token as string);
    })
    .get("/liquidity_pools", (c) => {
      const url = new URL(c.req.url);
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const cursor = url.searchParams.get("cursor") ?? "";
      const reserves = url.searchParams.get("reserves")?.split(",") ?? [];
      const records = this.pools
        .filter((pool) => (pool.id as string) > cursor)
        .filter((pool) =>
          reserves.every((asset) => (pool.reserves as { asset: string }[]).some((r) => r.asset === asset)),
        );
      return page(c, "/liquidity_pools", records.slice(0, limit), (pool) => pool.paging_token as string);
    })
    .get("/accounts/:id", (c) => {
      const account = this.accounts.get(c.req.param("id"));
      return account ? c.json(account) : c.json(fixtureJson("error-not_found-horizon-src.json"), 404);
    })
    .get("/accounts/:id/offers", (c) => {
      const url = new URL(c.req.url);
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const cursor = BigInt(url.searchParams.get("cursor") || "0");
      const records = (this.offers.get(c.req.param("id")) ?? []).filter(
        (offer) => BigInt(offer.paging_token as string) > cursor,
      );
      return page(
        c,
        `/accounts/${c.req.param("id")}/offers`,
        records.slice(0, limit),
        (offer) => offer.paging_token as string,
      );
    })
    .get("/accounts/:id/:stream{payments|transactions|operations}", (c) => {
      const url = new URL(c.req.url);
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const cursor = url.searchParams.get("cursor");
      const descending = url.searchParams.get("order") === "desc";
      const all = this.accountStreams.get(`${c.req.param("id")}/${c.req.param("stream")}`);
      if (all === undefined) return c.json(fixtureJson("error-not_found-horizon-src.json"), 404);
      const ordered = descending ? [...all].reverse() : all;
      const records = ordered.filter((record) => {
        if (cursor === null) return true;
        const token = BigInt(record.paging_token as string);
        return descending ? token < BigInt(cursor) : token > BigInt(cursor);
      });
      return page(c, url.pathname, records.slice(0, limit), (record) => record.paging_token as string);
    })
    .get("/claimable_balances", (c) => {
      const url = new URL(c.req.url);
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const cursor = url.searchParams.get("cursor") ?? "";
      const claimant = url.searchParams.get("claimant");
      const records = this.claimableBalances
        .filter((balance) => (balance.paging_token as string) > cursor)
        .filter((balance) =>
          (balance.claimants as { destination: string }[]).some((entry) => entry.destination === claimant),
        );
      return page(c, "/claimable_balances", records.slice(0, limit), (balance) => balance.paging_token as string);
    })
    .get("/assets", (c) => {
      const url = new URL(c.req.url);
      const record = this.assets.get(`${url.searchParams.get("asset_code")}:${url.searchParams.get("asset_issuer")}`);
      return page(c, "/assets", record ? [record] : [], (asset) => asset.paging_token as string);
    })
    .get("/liquidity_pools/:id", (c) => {
      const pool = this.pools.find((candidate) => candidate.id === c.req.param("id"));
      return pool ? c.json(pool) : c.json(fixtureJson("error-not_found-horizon-src.json"), 404);
    });

  /** Appends `count` consecutive ledgers after the last one (or from `first`), each with the given fields. */
  addLedgers(count: number, fields: JsonRecord = {}, first?: number): void {
    const start = first ?? ((this.ledgers.at(-1)?.sequence as number | undefined) ?? 0) + 1;
    for (let sequence = start; sequence < start + count; sequence += 1) this.ledgers.push(makeLedger(sequence, fields));
  }

  requestsTo(path: string): URL[] {
    return this.requests.filter((url) => url.pathname === path);
  }

  async start(): Promise<string> {
    this.server = await listen(this.app, "127.0.0.1", 0);
    return this.server.url;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
