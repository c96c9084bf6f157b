import { Hono } from "hono";
import { listen, type Listening } from "../../src/server/listen.js";
import { rpcFixtureJson } from "./fixtures.js";
import type { Fault, JsonRecord } from "./fake-horizon.js";

/** A method's canned answer: its result, or a JSON-RPC error object. */
export type MethodAnswer = { result: unknown } | { error: { code: number; message: string } };

function resultOf(name: string): unknown {
  return name.includes("-result-") ? rpcFixtureJson(name) : rpcFixtureJson<{ result: unknown }>(name).result;
}

/** One entry getLedgerEntries serves, in stellar-rpc's wire format. */
export interface ServedLedgerEntry {
  readonly xdr: string;
  readonly lastModifiedLedgerSeq: number;
  readonly liveUntilLedgerSeq?: number;
}

/**
 * A small, fully controlled Stellar RPC for tests: answers JSON-RPC batches from captures, any
 * method can be made to answer an error, and every request is recorded with its body.
 * getLedgerEntries, unless given a fixed answer, serves `ledgerEntries` as stellar-rpc does:
 * found keys only, `latestLedger` of the moment, and its error for more than 200 keys.
 */
export class FakeRpc {
  readonly answers = new Map<string, MethodAnswer>([
    ["getHealth", { result: resultOf("getHealth-result-stellar-docs.json") }],
    ["getLatestLedger", { result: resultOf("getLatestLedger-java-sdk.json") }],
    ["getFeeStats", { result: resultOf("getFeeStats-result-stellar-docs.json") }],
    ["getNetwork", { result: resultOf("getNetwork-result-testnet-stellar-docs.json") }],
    ["getVersionInfo", { result: resultOf("getVersionInfo-result-stellar-docs.json") }],
  ]);
  /** What getLedgerEntries serves, by base64 LedgerKey; a key not here is not found. */
  readonly ledgerEntries = new Map<string, ServedLedgerEntry>();
  ledgerEntriesLatestLedger = 458386;
  /** Replaces every answer, whatever the path. */
  fault: Fault | undefined;
  /** Replaces the answer to every batch that calls one of these methods. */
  readonly batchFaults = new Map<string, Fault>();
  readonly requests: { url: URL; headers: Headers; body: JsonRecord[] }[] = [];
  private server: Listening | undefined;

  readonly app = new Hono().post("*", async (c) => {
    const body = (await c.req.json()) as JsonRecord[] | JsonRecord;
    const calls = Array.isArray(body) ? body : [body];
    this.requests.push({ url: new URL(c.req.url), headers: new Headers(c.req.raw.headers), body: calls });
    const fault = this.fault ?? calls.map((call) => this.batchFaults.get(call.method as string)).find(Boolean);
    if (fault) return c.body(fault.body, fault.status as 200, fault.headers ?? {});
    const responses = calls.map((call) => ({
      jsonrpc: "2.0",
      id: call.id,
      ...(this.answers.get(call.method as string) ??
        (call.method === "getLedgerEntries"
          ? this.servedLedgerEntries(call.params)
          : { error: { code: -32601, message: "method not found" } })),
    }));
    return c.json(Array.isArray(body) ? responses : responses[0]);
  });

  private servedLedgerEntries(params: unknown): MethodAnswer {
    const keys = (params as { keys?: unknown } | undefined)?.keys;
    if (!Array.isArray(keys)) return { error: { code: -32602, message: "invalid parameters" } };
    if (keys.length > 200)
      return { error: { code: -32602, message: `key count (${keys.length}) exceeds maximum supported (200)` } };
    const entries = keys.flatMap((key: string) => {
      const served = this.ledgerEntries.get(key);
      return served === undefined ? [] : [{ key, ...served }];
    });
    return { result: { entries, latestLedger: this.ledgerEntriesLatestLedger } };
  }

  /** The keys of every getLedgerEntries call, one array per call. */
  ledgerEntriesCalls(): string[][] {
    return this.requests.flatMap((request) =>
      request.body
        .filter((call) => call.method === "getLedgerEntries")
        .map((call) => (call.params as { keys: string[] }).keys),
    );
  }

  methodsCalled(): string[] {
    return this.requests.flatMap((request) => request.body.map((call) => call.method as string));
  }

  async start(): Promise<string> {
    this.server = await listen(this.app, "127.0.0.1", 0);
    return this.server.url;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
