import type { IncomingMessage, ServerResponse } from "node:http";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";
import { makeLedger, makePool, type JsonRecord } from "./support/fake-horizon.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { fixtureJson, fixtureText, rpcFixtureJson } from "./support/fixtures.js";
import { HostileHorizon } from "./support/hostile-horizon.js";
import { ManualClock } from "./support/manual-clock.js";
import { duplicateSeries, nonFiniteSamples } from "./support/scrape-checks.js";

/**
 * One hostile answer at a time, each a real capture with one thing mutated: what the exporter
 * exports and counts while it lasts, and that the next good answer restores everything.
 */

const ACCOUNT_ID = "GDA2KZG7UB3C3KU4RYRGCQI6JPV2I2FYBWT434MQHPE36FH7CWGVR5X3";
const H = { horizon: "h" };
const R = { rpc: "r" };
/** With hourly polls and three periods of freshness, the longest hold is the freshness window. */
const HOLD_CAP_MS = 3 * 3_600_000;
const HUGE_NUMBER = "9".repeat(400);
const LONG_TEXT = "A".repeat(200_000);

let horizon: HostileHorizon;
let horizonUrl: string;
let rpc: FakeRpc;
let clock: ManualClock;
let exporter: RunningExporter;

beforeEach(async () => {
  horizon = new HostileHorizon();
  horizon.healthy.addLedgers(3);
  horizon.healthy.pools = [makePool(1), makePool(2)];
  horizon.healthy.accounts.set(ACCOUNT_ID, fixtureJson("account-java-sdk.json"));
  rpc = new FakeRpc();
  let rpcUrl: string;
  [horizonUrl, rpcUrl] = await Promise.all([horizon.start(), rpc.start()]);
  clock = new ManualClock();
  const config = await configFrom([
    `--horizon.url=h=${horizonUrl}`,
    `--rpc.url=r=${rpcUrl}`,
    "--poll.interval=1h",
    `--account=watched=${ACCOUNT_ID}`,
  ]);
  exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }), clock });
  await exporter.firstPolls;
});

afterEach(async () => {
  await exporter.close();
  await Promise.all([horizon.stop(), rpc.stop()]);
});

async function scrapeText(): Promise<string> {
  const response = await fetch(`${exporter.url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The scrape's series, after checking what must hold of every scrape: no ±Inf or NaN, no series twice. */
async function scrape(): Promise<Map<string, number>> {
  const text = await scrapeText();
  expect(nonFiniteSamples(text)).toEqual([]);
  expect(duplicateSeries(text)).toEqual([]);
  return parseExposition(text);
}

const invalidRecords = (values: Map<string, number>, endpoint: string) =>
  valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint });
const rpcInvalidRecords = (values: Map<string, number>, endpoint: string) =>
  valueOf(values, "stellar_horizon_exporter_rpc_invalid_records_total", { ...R, endpoint });
const account = (labels: Record<string, string> = {}) => ({ ...H, account: "watched", ...labels });

/** Everything a healthy poll shows, with the values of the captures; checked before and after each hostile answer. */
function expectAllFresh(values: Map<string, number>): void {
  expect(valueOf(values, "stellar_horizon_up", H)).toBe(1);
  expect(valueOf(values, "stellar_horizon_fee_charged_stroops", { ...H, stat: "p99" })).toBe(100);
  expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(horizon.healthy.ledgers.at(-1)!.sequence);
  expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBe(horizon.healthy.pools.length);
  expect(valueOf(values, "stellar_horizon_account_balance", account({ asset: "native" }))).toBe(10025.7670792);
  expect(valueOf(values, "stellar_rpc_up", R)).toBe(1);
  expect(valueOf(values, "stellar_rpc_inclusion_fee_stroops", { ...R, kind: "soroban", stat: "p99" })).toBe(200);
}

/** Answers as the healthy Horizon does, but with the JSON of answers to `path` changed by `mutate`. */
function mutating(path: string, mutate: (body: JsonRecord, url: URL) => void) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const answer = await horizon.healthy.app.fetch(new Request(`http://horizon${request.url ?? "/"}`));
    const url = new URL(request.url ?? "/", "http://horizon");
    let body = Buffer.from(await answer.arrayBuffer());
    if (url.pathname === path) {
      const json = JSON.parse(body.toString()) as JsonRecord;
      mutate(json, url);
      body = Buffer.from(JSON.stringify(json));
    }
    response.writeHead(answer.status, { "Content-Type": answer.headers.get("content-type") ?? "application/json" });
    response.end(body);
  };
}

const recordsOf = (page: JsonRecord) => (page._embedded as { records: JsonRecord[] }).records;

describe("1. a hold-off the server asks for is capped", () => {
  const farFuture = (nowMs: number) => String(Math.floor(nowMs / 1000) + 365 * 86_400);
  const cases: [string, number, (nowMs: number) => Record<string, string>][] = [
    ["Retry-After: 1e12 on a 429", 429, () => ({ "Retry-After": "1e12" })],
    [
      "Retry-After: an HTTP date in the year 9999 on a 503",
      503,
      () => ({ "Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT" }),
    ],
    [
      "an exhausted rate limit whose reset is a Unix epoch a year out, on a 200",
      200,
      (nowMs) => ({ "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": farFuture(nowMs) }),
    ],
  ];

  it.each(cases)("Horizon: %s", async (_name, status, headers) => {
    const body =
      status === 200 ? JSON.stringify(horizon.healthy.root) : fixtureText("error-rate_limit_exceeded-horizon-src.json");
    horizon.healthy.faults.set("/", { status, body, headers: headers(clock.now()) });
    await exporter.pollAll();
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_exporter_rate_limit_holds_capped_total", H)).toBe(1);
    // The hold is held: nothing is sent before the cap, even once the server is healthy again.
    horizon.healthy.faults.delete("/");
    const sent = horizon.requestCount;
    await clock.advance(HOLD_CAP_MS - 60_000);
    await exporter.pollAll();
    expect(horizon.requestCount).toBe(sent);
    await clock.advance(60_000);
    await exporter.pollAll();
    values = await scrape();
    expectAllFresh(values);
    expect(valueOf(values, "stellar_horizon_exporter_rate_limit_holds_capped_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_rate_limit_reset_seconds", H)).toBeUndefined();
  });

  it("Horizon: a hold cut to the cap is counted for every answer that asked, and logged once", async () => {
    const lines: { msg?: string; askedSeconds?: number; heldSeconds?: number }[] = [];
    const logger = pino(
      { level: "warn" },
      { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) },
    );
    const config = await configFrom([`--horizon.url=logged=${horizonUrl}`, "--poll.interval=1h"]);
    const logged = await startExporter({ ...config, retries: 0 }, { logger, clock });
    try {
      await logged.firstPolls;
      // Every endpoint's answer says the window is exhausted until a year from now.
      horizon.healthy.rateLimitHeaders = {
        "X-Ratelimit-Remaining": "0",
        "X-Ratelimit-Reset": String(Math.floor(clock.now() / 1000) + 365 * 86_400),
      };
      await logged.pollAll();
      const text = await (await fetch(`${logged.url}/metrics`)).text();
      const capped = valueOf(parseExposition(text), "stellar_horizon_exporter_rate_limit_holds_capped_total", {
        horizon: "logged",
      })!;
      expect(capped).toBeGreaterThan(0);
      const capLines = lines.filter((line) => line.msg?.includes("longer than the cap"));
      expect(capLines).toHaveLength(1);
      expect(capLines[0]).toMatchObject({ heldSeconds: HOLD_CAP_MS / 1000 });
    } finally {
      await logged.close();
    }
  });

  it("Horizon: Retry-After on a 200 asks for nothing, and the reset epoch is shown as seconds from now", async () => {
    horizon.healthy.rateLimitHeaders = {
      "Retry-After": "86400",
      "X-Ratelimit-Remaining": "5",
      "X-Ratelimit-Reset": String(Math.floor(clock.now() / 1000) + 42),
    };
    await exporter.pollAll();
    const sent = horizon.requestCount;
    await exporter.pollAll();
    expect(horizon.requestCount).toBeGreaterThan(sent);
    const values = await scrape();
    expect(valueOf(values, "stellar_horizon_exporter_rate_limit_holds_capped_total", H)).toBe(0);
    // The epoch is whole seconds, the clock is not: 42 s from the start of the current second.
    const resetSeconds = valueOf(values, "stellar_horizon_rate_limit_reset_seconds", H)!;
    expect(resetSeconds).toBeGreaterThan(41);
    expect(resetSeconds).toBeLessThanOrEqual(42);
  });

  it("Stellar RPC: Retry-After: 1e12 on a 429", async () => {
    rpc.fault = { status: 429, body: "slow down", headers: { "Retry-After": "1e12" } };
    await exporter.pollAll();
    let values = await scrape();
    // Both batches (status and versions) may have been in flight when the 429s came.
    const capped = valueOf(values, "stellar_horizon_exporter_rpc_rate_limit_holds_capped_total", R)!;
    expect(capped).toBeGreaterThan(0);
    expect(valueOf(values, "stellar_rpc_up", R)).toBe(0);
    rpc.fault = undefined;
    const sent = rpc.requests.length;
    await clock.advance(HOLD_CAP_MS - 60_000);
    await exporter.pollAll();
    expect(rpc.requests.length).toBe(sent);
    await clock.advance(60_000);
    await exporter.pollAll();
    values = await scrape();
    expectAllFresh(values);
    expect(valueOf(values, "stellar_horizon_exporter_rpc_rate_limit_holds_capped_total", R)).toBe(capped);
  });
});

describe("2. a paging token cannot poison the ledger cursor", () => {
  it.each(["abc", "%7F", "..%2F..%2F", String(2n ** 64n - 1n)])(
    "a last ledger whose paging token is %s is invalid and never the cursor",
    async (token) => {
      let values = await scrape();
      const ledgersBefore = valueOf(values, "stellar_horizon_ledgers_total", H)!;
      horizon.healthy.addLedgers(2);
      horizon.misbehaviour = mutating("/ledgers", (page) => {
        const last = recordsOf(page).at(-1);
        if (last?.sequence === 5) last.paging_token = token;
      });
      await exporter.pollAll();
      values = await scrape();
      expect(invalidRecords(values, "ledgers")).toBe(1);
      expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(ledgersBefore + 1);
      expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(4);
      expect(
        valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "ledgers", reason: "paging" }),
      ).toBe(0);

      horizon.misbehaviour = undefined;
      horizon.healthy.addLedgers(1);
      await exporter.pollAll();
      values = await scrape();
      expectAllFresh(values);
      expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(6);
      expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(ledgersBefore + 3);
      expect(
        horizon.healthy.requestsTo("/ledgers").every((url) => /^\d*$/.test(url.searchParams.get("cursor") ?? "")),
      ).toBe(true);
    },
  );

  it("a cursor Horizon refuses (400) is dropped: the stream resynchronises from the latest ledger, counted", async () => {
    horizon.healthy.addLedgers(3);
    horizon.misbehaviour = (request, response) => {
      const url = new URL(request.url ?? "/", "http://horizon");
      if (url.pathname === "/ledgers" && url.searchParams.get("order") === "asc" && url.searchParams.has("cursor")) {
        const body = fixtureText("error-bad_request-cursor_invalid-horizon-src.json");
        response.writeHead(400, { "Content-Type": "application/problem+json" });
        return void response.end(body);
      }
      void horizon.answerHealthily(request, response);
    };
    await exporter.pollAll();
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledger_resyncs_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(6);
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(2);
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "ledgers", reason: "http_4xx" }),
    ).toBe(0);

    horizon.misbehaviour = undefined;
    horizon.healthy.addLedgers(1);
    await exporter.pollAll();
    values = await scrape();
    expectAllFresh(values);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(7);
    expect(valueOf(values, "stellar_horizon_ledger_resyncs_total", H)).toBe(1);
  });
});

/** A hostile answer: how it is made, how it is undone, and what is exported and counted meanwhile. */
interface HostileCase {
  readonly name: string;
  readonly apply: () => void;
  readonly undo: () => void;
  readonly expectWhileHostile: (values: Map<string, number>, text: string) => void;
}

function feeStatsWith(path: "fee_charged", stat: string, value: string): HostileCase["apply"] {
  return () => {
    const original = horizon.healthy.feeStats;
    horizon.healthy.feeStats = { ...original, [path]: { ...(original[path] as JsonRecord), [stat]: value } };
  };
}

const originalFeeStats = fixtureJson("fee_stats-java-sdk.json");
const originalAccount = fixtureJson("account-java-sdk.json");
const originalRoot = fixtureJson("root-java-sdk.json");
const rpcResult = (name: string) => rpcFixtureJson(name);
const restoreAccount = () => horizon.healthy.accounts.set(ACCOUNT_ID, fixtureJson("account-java-sdk.json"));
const restorePools = () => (horizon.healthy.pools = [makePool(1), makePool(2)]);

function accountWith(mutate: (account: JsonRecord) => void): HostileCase["apply"] {
  return () => {
    const changed = structuredClone(originalAccount);
    mutate(changed);
    horizon.healthy.accounts.set(ACCOUNT_ID, changed);
  };
}

const balancesOf = (raw: JsonRecord) => raw.balances as JsonRecord[];
const signersOf = (raw: JsonRecord) => raw.signers as JsonRecord[];

/** The account left out, counted once; the other endpoints untouched. */
function accountLeftOut(values: Map<string, number>): void {
  expect(invalidRecords(values, "accounts")).toBe(1);
  expect(valueOf(values, "stellar_horizon_account_exists", account())).toBeUndefined();
  expect(valueOf(values, "stellar_horizon_account_balance", account({ asset: "native" }))).toBeUndefined();
  expect(valueOf(values, "stellar_horizon_up", H)).toBe(1);
  expect(
    valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "accounts", reason: "schema" }),
  ).toBe(0);
}

/** The second pool left out, counted once; the first still exported. */
function secondPoolLeftOut(values: Map<string, number>): void {
  expect(invalidRecords(values, "liquidity_pools")).toBe(1);
  expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBe(1);
  expect(valueOf(values, "stellar_horizon_liquidity_pool_shares", { ...H, pool_id: makePool(1).id as string })).toBe(
    1001.5,
  );
  expect(
    valueOf(values, "stellar_horizon_liquidity_pool_shares", { ...H, pool_id: makePool(2).id as string }),
  ).toBeUndefined();
}

const INFINITE_VALUES: HostileCase[] = [
  {
    name: "fee_stats p99 of 400 digits",
    apply: feeStatsWith("fee_charged", "p99", HUGE_NUMBER),
    undo: () => (horizon.healthy.feeStats = structuredClone(originalFeeStats)),
    expectWhileHostile: (values) => {
      expect(invalidRecords(values, "fee_stats")).toBe(1);
      expect(valueOf(values, "stellar_horizon_fee_charged_stroops", { ...H, stat: "p99" })).toBeUndefined();
      expect(valueOf(values, "stellar_horizon_up", H)).toBe(1);
    },
  },
  {
    name: "a ledger's total_coins of 400 digits",
    apply: () => horizon.healthy.ledgers.push(makeLedger(4, { total_coins: HUGE_NUMBER })),
    undo: () => horizon.healthy.addLedgers(1),
    expectWhileHostile: (values) => {
      expect(invalidRecords(values, "ledgers")).toBe(1);
      expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(3);
      expect(valueOf(values, "stellar_horizon_ledger_total_coins", H)).toBe(105443902087.3472865);
    },
  },
  {
    name: "a ledger's fee_pool beyond int64 stroops",
    apply: () => horizon.healthy.ledgers.push(makeLedger(4, { fee_pool: "922337203685.4775808" })),
    undo: () => horizon.healthy.addLedgers(1),
    expectWhileHostile: (values) => expect(invalidRecords(values, "ledgers")).toBe(1),
  },
  {
    name: "a pool reserve of 400 digits",
    apply: () =>
      (horizon.healthy.pools[1] = makePool(2, {
        reserves: [{ asset: "native", amount: HUGE_NUMBER }, (makePool(2).reserves as JsonRecord[])[1]],
      })),
    undo: restorePools,
    expectWhileHostile: secondPoolLeftOut,
  },
  {
    name: "a pool's total_shares of 400 digits",
    apply: () => (horizon.healthy.pools[1] = makePool(2, { total_shares: HUGE_NUMBER })),
    undo: restorePools,
    expectWhileHostile: secondPoolLeftOut,
  },
  {
    name: "an account balance of 400 digits",
    apply: accountWith((raw) => (balancesOf(raw).at(-1)!.balance = HUGE_NUMBER)),
    undo: restoreAccount,
    expectWhileHostile: accountLeftOut,
  },
  {
    name: "a trustline limit beyond int64 stroops",
    apply: accountWith((raw) => (balancesOf(raw)[1]!.limit = "922337203685.4775808")),
    undo: restoreAccount,
    expectWhileHostile: accountLeftOut,
  },
  {
    name: "selling liabilities of 400 digits",
    apply: accountWith((raw) => (balancesOf(raw).at(-1)!.selling_liabilities = `${HUGE_NUMBER}.5`)),
    undo: restoreAccount,
    expectWhileHostile: accountLeftOut,
  },
  {
    name: "Stellar RPC: getFeeStats p99 of 400 digits",
    apply: () => {
      const result = rpcResult("getFeeStats-result-stellar-docs.json");
      rpc.answers.set("getFeeStats", {
        result: { ...result, inclusionFee: { ...(result.inclusionFee as JsonRecord), p99: HUGE_NUMBER } },
      });
    },
    undo: () => rpc.answers.set("getFeeStats", { result: rpcResult("getFeeStats-result-stellar-docs.json") }),
    expectWhileHostile: (values) => {
      expect(rpcInvalidRecords(values, "status")).toBe(1);
      expect(
        valueOf(values, "stellar_rpc_inclusion_fee_stroops", { ...R, kind: "classic", stat: "p99" }),
      ).toBeUndefined();
      expect(valueOf(values, "stellar_horizon_up", H)).toBe(1);
    },
  },
  {
    name: "Stellar RPC: getHealth's latestLedgerCloseTime of 400 digits",
    apply: () =>
      rpc.answers.set("getHealth", {
        result: { ...rpcResult("getHealth-result-stellar-docs.json"), latestLedgerCloseTime: HUGE_NUMBER },
      }),
    undo: () => rpc.answers.set("getHealth", { result: rpcResult("getHealth-result-stellar-docs.json") }),
    expectWhileHostile: (values) => expect(rpcInvalidRecords(values, "status")).toBe(1),
  },
];

const DUPLICATES: HostileCase[] = [
  {
    name: "a pool whose two reserves are one asset",
    apply: () =>
      (horizon.healthy.pools[1] = makePool(2, {
        reserves: [
          { asset: "native", amount: "1.0000000" },
          { asset: "native", amount: "2.0000000" },
        ],
      })),
    undo: restorePools,
    expectWhileHostile: secondPoolLeftOut,
  },
  {
    name: "an account listing a balance twice",
    apply: accountWith((raw) => balancesOf(raw).push(structuredClone(balancesOf(raw)[1]!))),
    undo: restoreAccount,
    expectWhileHostile: accountLeftOut,
  },
  {
    name: "an account listing a signer twice",
    apply: accountWith((raw) => signersOf(raw).push({ ...signersOf(raw)[1]!, weight: 7 })),
    undo: restoreAccount,
    expectWhileHostile: accountLeftOut,
  },
];

const LONG_STRINGS: HostileCase[] = [
  {
    name: "a pool asset code of 200 000 characters",
    apply: () =>
      (horizon.healthy.pools[1] = makePool(2, {
        reserves: [
          { asset: "native", amount: "1.0000000" },
          { asset: `${LONG_TEXT}:${ACCOUNT_ID}`, amount: "1.0000000" },
        ],
      })),
    undo: restorePools,
    expectWhileHostile: secondPoolLeftOut,
  },
  {
    name: "a pool type of 200 000 characters",
    apply: () => (horizon.healthy.pools[1] = makePool(2, { type: LONG_TEXT.toLowerCase() })),
    undo: restorePools,
    expectWhileHostile: secondPoolLeftOut,
  },
  {
    name: "an account's home_domain of 200 000 characters is cut to 32 with the marker",
    apply: accountWith((raw) => (raw.home_domain = `example.com${LONG_TEXT}`)),
    undo: restoreAccount,
    expectWhileHostile: (values) => {
      const labels = account({ account_id: ACCOUNT_ID, home_domain: `example.com${"A".repeat(20)}…`, cold: "false" });
      expect(valueOf(values, "stellar_horizon_account_info", labels)).toBe(1);
    },
  },
  {
    name: "an account's asset issuer that is no account id",
    apply: accountWith((raw) => (balancesOf(raw)[1]!.asset_issuer = LONG_TEXT)),
    undo: restoreAccount,
    expectWhileHostile: accountLeftOut,
  },
  {
    name: "Horizon's version of 200 000 characters is cut to 128 with the marker",
    apply: () => (horizon.healthy.root = { ...originalRoot, horizon_version: LONG_TEXT }),
    undo: () => (horizon.healthy.root = structuredClone(originalRoot)),
    expectWhileHostile: (_values, text) => {
      expect(text).toContain(`horizon_version="${"A".repeat(127)}…"`);
    },
  },
  {
    name: "Stellar RPC's version of 200 000 characters is cut to 128 with the marker",
    apply: () =>
      rpc.answers.set("getVersionInfo", {
        result: { ...rpcResult("getVersionInfo-result-stellar-docs.json"), version: LONG_TEXT },
      }),
    undo: () => rpc.answers.set("getVersionInfo", { result: rpcResult("getVersionInfo-result-stellar-docs.json") }),
    expectWhileHostile: (_values, text) => {
      expect(text).toContain(`version="${"A".repeat(127)}…"`);
    },
  },
];

const CONTROL_CHARACTERS: HostileCase[] = [
  {
    name: "NUL, ESC, U+2028 and a bidi override in home_domain become U+FFFD",
    apply: accountWith((raw) => (raw.home_domain = "ev\u0000il\u001b[31m\u2028x\u202e")),
    undo: restoreAccount,
    expectWhileHostile: (values) => {
      const labels = account({
        account_id: ACCOUNT_ID,
        home_domain: "ev\uFFFDil\uFFFD[31m\uFFFDx\uFFFD",
        cold: "false",
      });
      expect(valueOf(values, "stellar_horizon_account_info", labels)).toBe(1);
    },
  },
  {
    name: "a newline and a NUL in stellar-core's version become U+FFFD",
    apply: () => (horizon.healthy.root = { ...originalRoot, core_version: "stellar-core\n21\u0000" }),
    undo: () => (horizon.healthy.root = structuredClone(originalRoot)),
    expectWhileHostile: (_values, text) => expect(text).toContain('core_version="stellar-core\uFFFD21\uFFFD"'),
  },
];

async function hostileThenGood({ apply, undo, expectWhileHostile }: HostileCase): Promise<void> {
  expectAllFresh(await scrape());
  apply();
  await exporter.pollAll();
  const text = await scrapeText();
  expect(text.length).toBeLessThan(256 * 1024);
  expectWhileHostile(await scrape(), text);
  undo();
  await exporter.pollAll();
  expectAllFresh(await scrape());
}

describe("3. a value outside its field's range is an invalid record, never ±Inf", () => {
  it.each(INFINITE_VALUES.map((hostile) => [hostile.name, hostile] as const))("%s", (_name, hostile) =>
    hostileThenGood(hostile),
  );
});

describe("4. a record naming an asset, a balance or a signer twice is invalid: no duplicate series", () => {
  it.each(DUPLICATES.map((hostile) => [hostile.name, hostile] as const))("%s", (_name, hostile) =>
    hostileThenGood(hostile),
  );
});

describe("6. label values have real bounds", () => {
  it.each(LONG_STRINGS.map((hostile) => [hostile.name, hostile] as const))("%s", (_name, hostile) =>
    hostileThenGood(hostile),
  );
});

describe("7. control characters in label values are replaced", () => {
  it.each(CONTROL_CHARACTERS.map((hostile) => [hostile.name, hostile] as const))("%s", (_name, hostile) =>
    hostileThenGood(hostile),
  );
});
