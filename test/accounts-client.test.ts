import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountsClient } from "../src/client/accounts.js";
import { PollError } from "../src/client/errors.js";
import { HorizonClient } from "../src/client/horizon-client.js";
import { COLD_WALLET, HOT_WALLET, startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { fixtureText } from "./support/fixtures.js";
import { LoopbackServer } from "./support/loopback-server.js";

describe("AccountsClient against the simulator", () => {
  let running: RunningSimulator;
  let client: AccountsClient;
  const requests: string[] = [];

  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 60_000 });
    const horizon = new HorizonClient({
      url: running.url,
      timeoutMs: 5000,
      retries: 0,
      maxBodyBytes: 1 << 20,
      observer: { onRequest: (endpoint, code) => requests.push(`${endpoint} ${code}`), onRateLimitHeaders: () => {} },
    });
    client = new AccountsClient(horizon);
  });
  afterAll(() => running.close());

  it("reads an account with exact values", async () => {
    const lookup = await client.account(HOT_WALLET);
    if (lookup.status !== "found") throw new Error("hot wallet not found");
    expect(lookup.account.balances.find((balance) => balance.asset === USDC)?.balance).toBe(30000);
    expect(typeof lookup.account.sequence).toBe("bigint");
  });

  it("Horizon's 404 not_found problem is an answer: missing, not an error", async () => {
    requests.length = 0;
    expect(await client.account(Keypair.random().publicKey())).toEqual({ status: "missing" });
    expect(requests).toEqual(["accounts 404"]);
  });

  it("any other 4xx is an error", async () => {
    const muxed = StrKey.encodeMed25519PublicKey(
      Buffer.concat([StrKey.decodeEd25519PublicKey(HOT_WALLET), Buffer.alloc(8)]),
    );
    await expect(client.account(muxed)).rejects.toSatisfy(
      (error) => error instanceof PollError && error.reason === "http_4xx",
    );
  });

  it("counts offers up to a cap, paging as needed", async () => {
    requests.length = 0;
    const all = await client.offers(HOT_WALLET, 10);
    expect(all.records).toHaveLength(3);
    expect(all.capped).toBe(false);
    expect(requests).toEqual(["accounts 200"]);
    const capped = await client.offers(HOT_WALLET, 2);
    expect(capped.records).toHaveLength(2);
    expect(capped.capped).toBe(true);
    const exact = await client.offers(HOT_WALLET, 3);
    expect(exact).toMatchObject({ capped: false, invalidRecords: 0 });
    expect((await client.offers(COLD_WALLET, 10)).records).toEqual([]);
  });

  it("reads claimable balances of a claimant", async () => {
    const { records, capped } = await client.claimableBalances(COLD_WALLET, 100);
    expect(capped).toBe(false);
    expect(records.map((record) => [record.asset, record.amount])).toEqual([
      [USDC, "1250.0000000"],
      ["native", "40.0000000"],
    ]);
  });
});

type Query = Record<string, unknown>;

/** A Horizon reader answering each request with `answer(query, n)` (n: the request's number, from 1). */
function pagedReader(answer: (query: Query, n: number) => unknown) {
  const requests: Query[] = [];
  return {
    requests,
    getValidated: async (
      _endpoint: string,
      _path: string,
      query: Query,
      schema: { parse(value: unknown): unknown },
    ) => {
      requests.push(query);
      if (requests.length > 60) throw new Error("stopped by the test after 60 requests");
      return schema.parse(answer(query, requests.length));
    },
  };
}

describe("AccountsClient counts offers and claimable balances up to 1000, five pages", () => {
  it("stops after five pages when Horizon serves only invalid records", async () => {
    // Every page full, each record with a fresh paging token, none valid (an empty id).
    const horizon = pagedReader((query, n) => ({
      _embedded: {
        records: Array.from({ length: Number(query.limit) }, (_, i) => ({ id: "", paging_token: `${n * 1000 + i}` })),
      },
    }));
    const read = await new AccountsClient(horizon as never).offers(HOT_WALLET, 1000);
    // Five pages of 200, then the one-record probe past the cap.
    expect(horizon.requests.map((query) => query.limit)).toEqual([200, 200, 200, 200, 200, 1]);
    expect(read).toEqual({ records: [], capped: true, invalidRecords: 1001 });
  });

  it("counts a claimable balance served on two pages once", async () => {
    const record = (i: number) => ({
      id: `00000000${i.toString(16).padStart(64, "0")}`,
      paging_token: `${i}`,
      asset: "native",
      amount: "1.0000000",
    });
    // Page 1: balances 1..200; page 2 repeats 101..200 and adds 201..250 (a short page: the end).
    const horizon = pagedReader((query) => ({
      _embedded: {
        records:
          query.cursor === undefined
            ? Array.from({ length: 200 }, (_, i) => record(i + 1))
            : Array.from({ length: 150 }, (_, i) => record(i + 101)),
      },
    }));
    const read = await new AccountsClient(horizon as never).claimableBalances(COLD_WALLET, 1000);
    expect(read.records.map((balance) => balance.paging_token)).toEqual(
      Array.from({ length: 250 }, (_, i) => `${i + 1}`),
    );
    expect(read).toMatchObject({ capped: false, invalidRecords: 0 });
  });
});

describe("AccountsClient tells Horizon's missing account from any other 404", () => {
  const notFound = fixtureText("error-not_found-horizon-src.json");
  const problem = { "Content-Type": "application/problem+json" };
  /** What the server answers to `GET /accounts/{id}`, by id. */
  const answers = new Map<string, { body: string; headers: Record<string, string> }>();
  const server = new LoopbackServer((request, response) => {
    const answer = answers.get(decodeURIComponent(request.url?.split("?")[0]?.split("/")[2] ?? ""));
    response.writeHead(404, answer?.headers ?? problem).end(answer?.body ?? notFound);
  });
  let client: AccountsClient;

  beforeAll(async () => {
    const url = await server.start();
    client = new AccountsClient(new HorizonClient({ url, timeoutMs: 5000, retries: 0, maxBodyBytes: 1 << 20 }));
  });
  afterAll(() => server.stop());

  it("only Horizon's not_found problem (a 2019 one too) is a missing account; another 404 is an http_4xx error", async () => {
    const id = () => Keypair.random().publicKey();
    const cases = {
      horizon: { body: notFound, headers: problem },
      horizon2019: { body: fixtureText("error-not_found-go-sdk.json"), headers: problem },
      proxyPage: {
        body: "<html><head><title>404 Not Found</title></head></html>",
        headers: { "Content-Type": "text/html" },
      },
      gatewayJson: {
        body: '{"message":"no Route matched with those values"}',
        headers: { "Content-Type": "application/json" },
      },
      otherProblem: {
        body: JSON.stringify({ type: "about:blank", title: "Not Found", status: 404 }),
        headers: problem,
      },
    };
    const outcomes: Record<string, unknown> = {};
    for (const [name, answer] of Object.entries(cases)) {
      const account = id();
      answers.set(account, answer);
      outcomes[name] = await client.account(account).then(
        (lookup) => lookup.status,
        (error: unknown) => (error instanceof PollError ? `${error.reason} ${error.details.status}` : String(error)),
      );
    }
    expect(outcomes).toEqual({
      horizon: "missing",
      horizon2019: "missing",
      proxyPage: "http_4xx 404",
      gatewayJson: "http_4xx 404",
      otherProblem: "http_4xx 404",
    });
  });
});
