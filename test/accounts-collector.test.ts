import { execFileSync } from "node:child_process";
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HORIZON_ACCOUNT_METRICS } from "../src/catalog/metrics.js";
import { NetworkView } from "../src/job/network.js";
import { accountSchema } from "../src/client/account-schemas.js";
import { AccountsClient } from "../src/client/accounts.js";
import { HorizonClient } from "../src/client/horizon-client.js";
import { AccountSamples, AccountsCollector, type AccountObservation } from "../src/collectors/accounts.js";
import type { CollectorSamples } from "../src/exposition/samples.js";
import { renderSamples } from "./support/render-samples.js";
import type { WatchedAccount } from "../src/config/accounts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { COLD_WALLET, HOT_WALLET, startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { fixtureJson, fixtureText } from "./support/fixtures.js";
import { LoopbackServer } from "./support/loopback-server.js";
import { PollError } from "../src/client/errors.js";
import { pollContext } from "./support/poll-context.js";

const BASE_RESERVE_STROOPS = 5_000_000;

function watched(name: string, id: string, options: Partial<WatchedAccount> = {}): WatchedAccount {
  return { name, id, lowBalance: {}, offers: false, claimableBalances: false, cold: false, ...options };
}

async function exposition(samples: CollectorSamples): Promise<string> {
  return renderSamples("h", [...samples.persistent, ...samples.live]);
}

async function series(samples: CollectorSamples) {
  return parseExposition(await exposition(samples));
}

const ACCOUNT_METRICS = Object.values(HORIZON_ACCOUNT_METRICS);

describe("AccountSamples", () => {
  const mainnet = accountSchema.parse(fixtureJson("account-java-sdk.json"));
  const treasury = watched("treasury", mainnet.id, {
    lowBalance: { native: 5000, "AQUA:GBNZILSTVQZ4R7IKQDGHYGY2QXL5QOFJYQMXPKWRRM5PAV7Y4M67AQUA": 100 },
    cold: true,
  });

  it("gives exact values for a mainnet account", async () => {
    const observations = [{ exists: true, account: mainnet }];
    const values = await series(
      new AccountSamples(HORIZON_ACCOUNT_METRICS).of([treasury], observations, new Map(), BASE_RESERVE_STROOPS),
    );
    const at = (labels: Record<string, string> = {}) => ({ horizon: "h", account: "treasury", ...labels });
    expect(valueOf(values, "stellar_horizon_account_exists", at())).toBe(1);
    expect(
      valueOf(
        values,
        "stellar_horizon_account_info",
        at({ account_id: mainnet.id, home_domain: "example.com", cold: "true" }),
      ),
    ).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_balance", at({ asset: "native" }))).toBe(10025.7670792);
    expect(valueOf(values, "stellar_horizon_account_selling_liabilities", at({ asset: "native" }))).toBe(25.1);
    expect(valueOf(values, "stellar_horizon_account_buying_liabilities", at({ asset: "native" }))).toBe(10000);
    const pool = { asset: "pool:59fa1dc57433dcfbd2db7319d26cb3da1f28f2d8095a3ec36ad4ef9cadb0013e" };
    expect(valueOf(values, "stellar_horizon_account_balance", at(pool))).toBe(2816.6567089);
    expect(valueOf(values, "stellar_horizon_account_trustline_authorized", at(pool))).toBe(0);
    expect(valueOf(values, "stellar_horizon_account_buying_liabilities", at(pool))).toBeUndefined();
    const aqua = { asset: "AQUA:GBNZILSTVQZ4R7IKQDGHYGY2QXL5QOFJYQMXPKWRRM5PAV7Y4M67AQUA" };
    expect(valueOf(values, "stellar_horizon_account_balance", at(aqua))).toBe(85729.1030749);
    expect(valueOf(values, "stellar_horizon_account_trustline_limit", at(aqua))).toBe(922337203685.4775807);
    expect(valueOf(values, "stellar_horizon_account_trustline_authorized", at(aqua))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_balance_low_watermark", at(aqua))).toBe(100);
    expect(valueOf(values, "stellar_horizon_account_balance_low_watermark", at({ asset: "native" }))).toBe(5000);
    // (2 + 12 subentries + 1 sponsoring - 2 sponsored) × 0.5 XLM
    expect(valueOf(values, "stellar_horizon_account_minimum_balance", at())).toBe(6.5);
    expect(valueOf(values, "stellar_horizon_account_subentries", at())).toBe(12);
    expect(valueOf(values, "stellar_horizon_account_sponsoring", at())).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_sponsored", at())).toBe(2);
    expect(valueOf(values, "stellar_horizon_account_data_entries", at())).toBe(2);
    expect(valueOf(values, "stellar_horizon_account_threshold", at({ level: "low" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_threshold", at({ level: "medium" }))).toBe(20);
    expect(valueOf(values, "stellar_horizon_account_threshold", at({ level: "high" }))).toBe(30);
    expect(
      valueOf(values, "stellar_horizon_account_signer_weight", at({ signer: mainnet.id, type: "ed25519_public_key" })),
    ).toBe(255);
    expect(valueOf(values, "stellar_horizon_account_flag", at({ flag: "auth_clawback_enabled" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_flag", at({ flag: "auth_immutable" }))).toBe(0);
    expect(valueOf(values, "stellar_horizon_account_sequence_ledger", at())).toBe(52222212);
    expect(valueOf(values, "stellar_horizon_account_sequence_timestamp_seconds", at())).toBe(1718974099);
    expect(valueOf(values, "stellar_horizon_account_signer_changes_total", at())).toBe(0);
    for (const [key, value] of values) expect(Math.abs(value), key).toBeLessThanOrEqual(2 ** 53);
    expect(
      [...values.keys()].some(
        (key) => key.includes("sequence{") || key.startsWith("stellar_horizon_account_sequence{"),
      ),
    ).toBe(false);
  });

  it("an old Horizon's account: no sequence ledger or time, the clawback flag 0", async () => {
    const old = accountSchema.parse(fixtureJson("account-ruby-vcr-2020.json"));
    const values = await series(
      new AccountSamples(HORIZON_ACCOUNT_METRICS).of(
        [watched("old", old.id)],
        [{ exists: true, account: old }],
        new Map(),
        BASE_RESERVE_STROOPS,
      ),
    );
    expect(
      valueOf(values, "stellar_horizon_account_sequence_ledger", { horizon: "h", account: "old" }),
    ).toBeUndefined();
    expect(
      valueOf(values, "stellar_horizon_account_sequence_timestamp_seconds", { horizon: "h", account: "old" }),
    ).toBeUndefined();
    expect(
      valueOf(values, "stellar_horizon_account_flag", { horizon: "h", account: "old", flag: "auth_clawback_enabled" }),
    ).toBe(0);
    expect(valueOf(values, "stellar_horizon_account_sponsoring", { horizon: "h", account: "old" })).toBe(0);
  });

  it("a missing account shows only exists 0 (and its counter)", async () => {
    const values = await series(
      new AccountSamples(HORIZON_ACCOUNT_METRICS).of(
        [treasury],
        [{ exists: false }],
        new Map([["treasury", 2]]),
        BASE_RESERVE_STROOPS,
      ),
    );
    expect([...values.entries()]).toEqual([
      ['stellar_horizon_account_signer_changes_total{account="treasury",horizon="h"}', 2],
      ['stellar_horizon_account_exists{account="treasury",horizon="h"}', 0],
    ]);
  });

  it("gives the same sample objects for the same observation and base reserve, new ones where either changed", async () => {
    const accountSamples = new AccountSamples(HORIZON_ACCOUNT_METRICS);
    const observation: AccountObservation = { exists: true, account: mainnet };
    const first = accountSamples.of([treasury], [observation], new Map(), BASE_RESERVE_STROOPS);
    const again = accountSamples.of([treasury], [observation], new Map(), BASE_RESERVE_STROOPS);
    expect(again.live.length).toBe(first.live.length);
    again.live.forEach((sample, index) => expect(sample).toBe(first.live[index]));
    expect(again.persistent[0]).toBe(first.persistent[0]);
    // A new base reserve changes the minimum balance; a signer change moves the counter.
    const doubled = await series(
      accountSamples.of([treasury], [observation], new Map([["treasury", 1]]), 2 * BASE_RESERVE_STROOPS),
    );
    expect(valueOf(doubled, "stellar_horizon_account_minimum_balance", { horizon: "h", account: "treasury" })).toBe(13);
    expect(
      valueOf(doubled, "stellar_horizon_account_signer_changes_total", { horizon: "h", account: "treasury" }),
    ).toBe(1);
    // A new observation object of the same account is built afresh, to the same values.
    const copy = accountSamples.of(
      [treasury],
      [{ exists: true, account: { ...mainnet } }],
      new Map([["treasury", 1]]),
      2 * BASE_RESERVE_STROOPS,
    );
    expect(copy.live[0]).not.toBe(first.live[0]);
    expect(await exposition(copy)).toBe(
      await exposition(
        accountSamples.of([treasury], [observation], new Map([["treasury", 1]]), 2 * BASE_RESERVE_STROOPS),
      ),
    );
  });

  it("no minimum balance before a ledger has been read", async () => {
    const values = await series(
      new AccountSamples(HORIZON_ACCOUNT_METRICS).of(
        [treasury],
        [{ exists: true, account: mainnet }],
        new Map(),
        undefined,
      ),
    );
    expect(
      valueOf(values, "stellar_horizon_account_minimum_balance", { horizon: "h", account: "treasury" }),
    ).toBeUndefined();
    expect(
      valueOf(values, "stellar_horizon_account_balance", { horizon: "h", account: "treasury", asset: "native" }),
    ).toBe(10025.7670792);
  });

  it("a master key of weight 0, as Horizon lists it (mainnet capture), has no signer_weight series", async () => {
    type Page = { _embedded: { records: { account_id: string; signers: { key: string; weight: number }[] }[] } };
    const record = fixtureJson<Page>("accounts-asset-java-sdk.json")._embedded.records.find((candidate) =>
      candidate.signers.some((signer) => signer.key === candidate.account_id && signer.weight === 0),
    );
    const account = accountSchema.parse(record);
    const values = await series(
      new AccountSamples(HORIZON_ACCOUNT_METRICS).of(
        [watched("a", account.id)],
        [{ exists: true, account }],
        new Map(),
        BASE_RESERVE_STROOPS,
      ),
    );
    expect(HORIZON_ACCOUNT_METRICS.accountSignerWeight.help).toContain("a master key of weight 0 is not a signer");
    const master = { horizon: "h", account: "a", signer: account.id, type: "ed25519_public_key" };
    expect(valueOf(values, "stellar_horizon_account_signer_weight", master)).toBeUndefined();
    const weights = [...values.keys()].filter((key) => key.startsWith("stellar_horizon_account_signer_weight{"));
    expect(weights.length).toBe(record!.signers.length - 1);
  });
});

describe("AccountsCollector against the simulator", () => {
  let running: RunningSimulator;
  let client: AccountsClient;

  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 60_000 });
    client = new AccountsClient(
      new HorizonClient({ url: running.url, timeoutMs: 5000, retries: 0, maxBodyBytes: 1 << 20 }),
    );
  });
  afterAll(() => running.close());

  const accounts = [
    watched("hot", HOT_WALLET, { offers: true, claimableBalances: true, lowBalance: { native: 5000, [USDC]: 100 } }),
    watched("cold", COLD_WALLET, { claimableBalances: true, cold: true }),
  ];

  it("every account family, output promtool accepts; a signer change counts once; a merged account leaves", async () => {
    const network = new NetworkView();
    network.learn({ baseReserveStroops: BASE_RESERVE_STROOPS });
    const collector = new AccountsCollector(client, accounts, network, {
      schedule: parseSchedule("1m") as Schedule,
      requestsPerRun: 1,
    });
    const invalidCounts: number[] = [];
    const context = {
      signal: new AbortController().signal,
      invalidRecords: (count: number) => count > 0 && invalidCounts.push(count),
      progressed: () => {},
    };
    const hot = (labels: Record<string, string> = {}) => ({ horizon: "h", account: "hot", ...labels });
    const cold = (labels: Record<string, string> = {}) => ({ horizon: "h", account: "cold", ...labels });
    await collector.run(context);
    expect(invalidCounts).toEqual([]);
    const text = await exposition(collector.samples());
    const headers = ACCOUNT_METRICS.map(
      (metric) => `# HELP ${metric.name} ${metric.help}\n# TYPE ${metric.name} ${metric.type}\n`,
    );
    const families = text.split("\n").filter(Boolean);
    for (const metric of ACCOUNT_METRICS)
      expect(
        families.some((line) => line.startsWith(`${metric.name}{`)),
        metric.name,
      ).toBe(true);
    const withHeaders = ACCOUNT_METRICS.map(
      (metric, index) =>
        `${headers[index] + families.filter((line) => line.startsWith(`${metric.name}{`)).join("\n")}\n`,
    ).join("");
    expect(execFileSync("promtool", ["check", "metrics"], { input: withHeaders, encoding: "utf8" }).trim()).toBe("");

    let values = parseExposition(text);
    expect(valueOf(values, "stellar_horizon_account_offers", hot())).toBe(3);
    expect(valueOf(values, "stellar_horizon_account_claimable_balances", cold())).toBe(2);
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", cold({ asset: USDC }))).toBe(1250);
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", hot({ asset: "native" }))).toBe(40);
    expect(
      valueOf(
        values,
        "stellar_horizon_account_info",
        cold({ account_id: COLD_WALLET, home_domain: "cold.example.com", cold: "true" }),
      ),
    ).toBe(1);

    running.simulator.setScenario("signer_change");
    await collector.run(context);
    await collector.run(context);
    values = parseExposition(await exposition(collector.samples()));
    expect(valueOf(values, "stellar_horizon_account_signer_changes_total", cold())).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_signer_changes_total", hot())).toBe(0);

    running.simulator.setScenario("account_merged");
    await collector.run(context);
    expect(invalidCounts).toEqual([]);
    values = parseExposition(await exposition(collector.samples()));
    expect(valueOf(values, "stellar_horizon_account_exists", hot())).toBe(0);
    expect([...values.keys()].filter((key) => key.includes('account="hot"'))).toEqual([
      'stellar_horizon_account_signer_changes_total{account="hot",horizon="h"}',
      'stellar_horizon_account_exists{account="hot",horizon="h"}',
    ]);
    expect(valueOf(values, "stellar_horizon_account_balance", cold({ asset: "native" }))).toBe(1_025_000);
  });
});

type Query = Record<string, unknown>;

/** A Horizon reader answering each request with `answer(path, query)`. */
function scriptedHorizon(answer: (path: string, query: Query) => unknown) {
  return {
    getValidated: async (_endpoint: string, path: string, query: Query, schema: { parse(value: unknown): unknown }) =>
      schema.parse(answer(path, query)),
  };
}

async function runOnce(horizon: ReturnType<typeof scriptedHorizon>, account: WatchedAccount) {
  const collector = new AccountsCollector(new AccountsClient(horizon as never), [account], new NetworkView(), {
    schedule: parseSchedule("1m") as Schedule,
    requestsPerRun: 2,
  });
  const context = pollContext();
  await collector.run(context as never);
  return { values: await series(collector.samples()), invalid: context.invalid };
}

describe("AccountsCollector against a scripted Horizon", () => {
  const document = fixtureJson<{ account_id: string }>("account-stellar-docs.json");

  it("claimable amounts of spam assets: native, the low_balance assets and 18 others get a series", async () => {
    const issuer = Keypair.random().publicKey();
    const low = `LOW:${issuer}`;
    // Anyone can send an account claimable balances of any asset: 998 spam assets, native and `low` among them.
    const assets = Array.from({ length: 998 }, (_, i) => `SPAM${i}:${issuer}`);
    assets.splice(500, 0, "native", low);
    const balances = assets.map((asset, i) => ({
      id: `00000000${i.toString(16).padStart(64, "0")}`,
      paging_token: `${i + 1}`,
      asset,
      amount: "0.0000001",
    }));
    const horizon = scriptedHorizon((path, query) => {
      if (path.startsWith("accounts/")) return document;
      const after = query.cursor === undefined ? 0 : Number(query.cursor);
      return { _embedded: { records: balances.slice(after, after + Number(query.limit)) } };
    });
    const account = watched("treasury", document.account_id, { claimableBalances: true, lowBalance: { [low]: 5 } });
    const { values } = await runOnce(horizon, account);
    const at = (labels: Record<string, string> = {}) => ({ horizon: "h", account: "treasury", ...labels });
    expect(valueOf(values, "stellar_horizon_account_claimable_balances", at())).toBe(1000);
    const amounts = [...values.keys()].filter((key) => key.startsWith("stellar_horizon_account_claimable_amount{"));
    expect(amounts).toHaveLength(20);
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", at({ asset: "native" }))).toBe(0.0000001);
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", at({ asset: low }))).toBe(0.0000001);
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", at({ asset: `SPAM17:${issuer}` }))).toBe(
      0.0000001,
    );
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", at({ asset: `SPAM18:${issuer}` }))).toBe(
      undefined,
    );
    expect(valueOf(values, "stellar_horizon_account_claimable_amount", at({ asset: "other" }))).toBeUndefined();
  });

  it("Horizon answering for the watched account with another account's document: left out, counted invalid", async () => {
    const horizon = scriptedHorizon(() => document);
    const { values, invalid } = await runOnce(horizon, watched("treasury", Keypair.random().publicKey()));
    const at = { horizon: "h", account: "treasury", asset: "native" };
    expect({ balance: valueOf(values, "stellar_horizon_account_balance", at), invalid }).toEqual({
      balance: undefined,
      invalid: 1,
    });
    // Its own document is shown.
    const own = await runOnce(horizon, watched("treasury", document.account_id));
    expect({ balance: valueOf(own.values, "stellar_horizon_account_balance", at), invalid: own.invalid }).toEqual({
      balance: 72.8563792,
      invalid: 0,
    });
  });
});

describe("AccountsCollector and a 404", () => {
  const document = fixtureText("account-stellar-docs.json");
  const id = (JSON.parse(document) as { account_id: string }).account_id;
  const json = { "Content-Type": "application/hal+json" };
  const problem = { "Content-Type": "application/problem+json" };
  const emptyPage = JSON.stringify({ _embedded: { records: [] } });
  /** The 404 the server answers at `fault.path`; every other path gets the account's document or an empty page. */
  let fault: { path: string; body: string; headers: Record<string, string> } | undefined;
  const server = new LoopbackServer((request, response) => {
    const path = request.url?.split("?")[0] ?? "";
    if (fault !== undefined && path === fault.path) return response.writeHead(404, fault.headers).end(fault.body);
    response.writeHead(200, json).end(path === `/accounts/${id}` ? document : emptyPage);
  });
  let client: AccountsClient;

  beforeAll(async () => {
    const url = await server.start();
    client = new AccountsClient(new HorizonClient({ url, timeoutMs: 5000, retries: 0, maxBodyBytes: 1 << 20 }));
  });
  afterAll(() => server.stop());

  /** One poll of the account, its offers and claimable balances: its outcome and the exists gauge it leaves. */
  async function poll() {
    const account = watched("treasury", id, { offers: true, claimableBalances: true });
    const timing = { schedule: parseSchedule("1m") as Schedule, requestsPerRun: 13 };
    const collector = new AccountsCollector(client, [account], new NetworkView(), timing);
    const outcome = await collector.run(pollContext() as never).then(
      () => "ok",
      (error: unknown) => (error instanceof PollError ? `${error.reason} ${error.details.status}` : String(error)),
    );
    const values = await series(collector.samples());
    return {
      outcome,
      exists: valueOf(values, "stellar_horizon_account_exists", { horizon: "h", account: "treasury" }),
    };
  }

  it("exists 0 only for Horizon's not_found problem on the account itself; any other 404 fails the poll", async () => {
    const notFound = fixtureText("error-not_found-horizon-src.json");
    const html = { body: "<html><title>404 Not Found</title></html>", headers: { "Content-Type": "text/html" } };
    const faults = {
      accountMissing: { path: `/accounts/${id}`, body: notFound, headers: problem },
      accountProxyPage: { path: `/accounts/${id}`, ...html },
      offersProxyPage: { path: `/accounts/${id}/offers`, ...html },
      offersNotFound: { path: `/accounts/${id}/offers`, body: notFound, headers: problem },
      claimableNotFound: { path: "/claimable_balances", body: notFound, headers: problem },
    };
    const outcomes: Record<string, unknown> = {};
    for (const [name, one] of Object.entries(faults)) {
      fault = one;
      outcomes[name] = await poll();
    }
    fault = undefined;
    expect(outcomes).toEqual({
      accountMissing: { outcome: "ok", exists: 0 },
      accountProxyPage: { outcome: "http_4xx 404", exists: undefined },
      offersProxyPage: { outcome: "http_4xx 404", exists: undefined },
      offersNotFound: { outcome: "http_4xx 404", exists: undefined },
      claimableNotFound: { outcome: "http_4xx 404", exists: undefined },
    });
    expect(await poll()).toEqual({ outcome: "ok", exists: 1 });
  });
});
