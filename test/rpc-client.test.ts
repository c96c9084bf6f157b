import { afterEach, beforeEach, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { HttpOptions } from "../src/client/http.js";
import { RpcClient } from "../src/client/rpc-client.js";
import { FakeRpc } from "./support/fake-rpc.js";

let rpc: FakeRpc;
let base: string;

beforeEach(async () => {
  rpc = new FakeRpc();
  base = await rpc.start();
});

afterEach(async () => {
  await rpc.stop();
});

function client(url: string, options: Partial<HttpOptions<string>> = {}): RpcClient {
  return new RpcClient({ url, timeoutMs: 2_000, retries: 0, maxBodyBytes: 1 << 20, ...options });
}

async function failure(promise: Promise<unknown>): Promise<PollError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PollError);
  return error as PollError;
}

it("POSTs one JSON-RPC 2.0 batch per poll to the URL exactly as given, credentials as Basic auth", async () => {
  const url = new URL(`${base}/soroban/rpc?tenant=a`);
  url.username = "user";
  url.password = "s3cret";
  const status = await client(url.href, { headers: { "X-Api-Key": "k" } }).status();
  expect(rpc.requests).toHaveLength(1);
  const [request] = rpc.requests;
  expect(request!.url.pathname + request!.url.search).toBe("/soroban/rpc?tenant=a");
  expect(request!.headers.get("content-type")).toBe("application/json");
  expect(request!.headers.get("authorization")).toBe(`Basic ${Buffer.from("user:s3cret").toString("base64")}`);
  expect(request!.headers.get("x-api-key")).toBe("k");
  expect(request!.body).toEqual([
    { jsonrpc: "2.0", id: 1, method: "getHealth" },
    { jsonrpc: "2.0", id: 2, method: "getLatestLedger" },
    { jsonrpc: "2.0", id: 3, method: "getFeeStats" },
  ]);
  expect(status.healthy).toBe(true);
  expect(status.health).toMatchObject({ latestLedger: 3730763, oldestLedger: 3609804, ledgerRetentionWindow: 120960 });
  expect(status.latestLedger).toMatchObject({ sequence: 1283415, protocolVersion: 25, closeTime: 1772416629 });
  expect(status.feeStats.sorobanInclusionFee.transactionCount).toBe(371);
});

it("reads getNetwork and getVersionInfo in a batch of their own", async () => {
  const versions = await client(base).versions();
  expect(rpc.methodsCalled()).toEqual(["getNetwork", "getVersionInfo"]);
  expect(versions.network.passphrase).toBe("Test SDF Network ; September 2015");
  expect(versions.versionInfo.captiveCoreVersion).toBe(
    "stellar-core 27.1.0 (3589a696b0d4ef5a2cf2124e349c671d71886d9c)",
  );
});

it("a getHealth error means unhealthy, not a failed poll", async () => {
  rpc.answers.set("getHealth", {
    error: { code: -32603, message: "latency (41s) since last known ledger closed is too high (>30s)" },
  });
  const status = await client(base).status();
  expect(status.healthy).toBe(false);
  expect(status.health).toBeUndefined();
  expect(status.latestLedger.sequence).toBe(1283415);
});

it("a getHealth status other than healthy is unhealthy too", async () => {
  rpc.answers.set("getHealth", {
    result: { status: "catching_up", latestLedger: 5, oldestLedger: 1, ledgerRetentionWindow: 10 },
  });
  const status = await client(base).status();
  expect(status.healthy).toBe(false);
  expect(status.health?.latestLedger).toBe(5);
});

it("any other JSON-RPC error is an rpc_error naming the method", async () => {
  rpc.answers.set("getFeeStats", { error: { code: -32603, message: "fee stats\nnot ready" } });
  const error = await failure(client(base).status());
  expect(error.reason).toBe("rpc_error");
  expect(error.message).toBe("getFeeStats answered JSON-RPC error -32603: fee stats not ready");
});

it("a batch rejected as a whole is an rpc_error", async () => {
  rpc.fault = {
    status: 200,
    body: JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are disabled" } }),
  };
  const error = await failure(client(base).versions());
  expect(error.reason).toBe("rpc_error");
  expect(error.message).toContain("getNetwork, getVersionInfo");
});

it("matches responses by id, string or number, in any order; a missing one is a schema error", async () => {
  const reversed = [
    { jsonrpc: "2.0", id: "2", result: { version: "23.0.0", captiveCoreVersion: "core", protocolVersion: 23 } },
    {
      jsonrpc: "2.0",
      id: 1,
      result: { passphrase: "Public Global Stellar Network ; September 2015", protocolVersion: 23 },
    },
  ];
  rpc.fault = { status: 200, body: JSON.stringify(reversed) };
  const versions = await client(base).versions();
  expect(versions.versionInfo.version).toBe("23.0.0");
  expect(versions.network.protocolVersion).toBe(23);
  rpc.fault = { status: 200, body: JSON.stringify(reversed.slice(1)) };
  const error = await failure(client(base).versions());
  expect(error.reason).toBe("schema");
  expect(error.message).toBe("the JSON-RPC batch has no response to getVersionInfo");
});

it("malformed results are schema errors that say where", async () => {
  rpc.answers.set("getLatestLedger", { result: { id: "ab", sequence: "12", protocolVersion: 25 } });
  const error = await failure(client(base).status());
  expect(error.reason).toBe("schema");
  expect(error.message).toMatch(/^response does not match Stellar RPC's getLatestLedger schema at sequence: /);
});

it("shares the Horizon client's courtesy: 429 holds back, 5xx retried, body capped, secrets never in messages", async () => {
  const secretUrl = new URL(base);
  secretUrl.password = "hunter2";
  secretUrl.username = "u";
  rpc.fault = { status: 429, body: "slow down", headers: { "Retry-After": "60" } };
  const held = client(secretUrl.href, { headers: { Authorization: "Bearer topsecret" } });
  expect((await failure(held.status())).reason).toBe("rate_limited");
  rpc.fault = undefined;
  const sent = rpc.requests.length;
  const holding = await failure(held.status());
  expect(holding.reason).toBe("rate_limited");
  expect(rpc.requests.length).toBe(sent);
  expect(`${holding.message}`).not.toMatch(/hunter2|topsecret/);

  rpc.fault = { status: 503, body: "<html><title>Service Unavailable</title></html>" };
  const retrying = await failure(client(base, { retries: 2, retryBaseDelayMs: 1 }).status());
  expect(retrying.reason).toBe("http_5xx");
  expect(retrying.message).toBe("HTTP 503: Service Unavailable");
  expect(rpc.requests.length).toBe(sent + 3);

  rpc.fault = undefined;
  expect((await failure(client(base, { maxBodyBytes: 64 }).status())).reason).toBe("body_too_large");
});

it("a failure while reading an answer that is no PollError is internal, never network, and not retried", async () => {
  const observer = {
    onRequest: () => undefined,
    onRateLimitHeaders: () => {
      throw new TypeError("a bug while reading the answer");
    },
  };
  const error = await failure(client(base, { retries: 2, observer }).status());
  expect(error.reason).toBe("internal");
  expect(error.message).toContain("a bug while reading the answer");
  expect(rpc.requests).toHaveLength(1);
});

it("a body that is not JSON is invalid_json, retried like any transient failure", async () => {
  rpc.fault = { status: 200, body: "<html><title>Bad gateway</title></html>" };
  const error = await failure(client(base, { retries: 1 }).status());
  expect(error.reason).toBe("invalid_json");
  expect(error.message).toBe("body is not JSON: Bad gateway");
  expect(rpc.requests).toHaveLength(2);
});
