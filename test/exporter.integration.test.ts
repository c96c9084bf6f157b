import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ALL_METRICS, ENDPOINTS, targetLabelOf } from "../src/catalog/metrics.js";
import { fnv1a32 } from "../src/config/shard.js";
import { namesIn, parseExposition, valueOf } from "./support/exposition.js";
import { configFrom, startHarness, type Harness } from "./support/exporter-harness.js";
import { FakeHorizon, makeLedger, makePool } from "./support/fake-horizon.js";
import { fixtureJson, fixtureText } from "./support/fixtures.js";
import { HostileHorizon } from "./support/hostile-horizon.js";
import { until } from "./support/wait.js";

const H = { horizon: "test" };
let horizon: FakeHorizon;
let harness: Harness | undefined;

async function start(extraArgs: string[] = [], configYaml?: string): Promise<Harness> {
  const url = await horizon.start();
  const args = [`--horizon.url=test=${url}`, "--poll.interval=1h", ...extraArgs];
  if (configYaml !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), "she-config-"));
    writeFileSync(join(dir, "config.yml"), configYaml);
    args.push(`--config.file=${join(dir, "config.yml")}`);
  }
  harness = await startHarness(await configFrom(args));
  return harness;
}

afterEach(async () => {
  await harness?.exporter.close();
  harness = undefined;
  await horizon.stop();
});

describe("ledgers", () => {
  it("starts at the latest ledger, then reads every new ledger across pages exactly once", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(10, {
      successful_transaction_count: 7,
      failed_transaction_count: 3,
      operation_count: 20,
      tx_set_operation_count: 25,
    });
    const { exporter, scrape } = await start();

    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(10);
    expect(valueOf(values, "stellar_horizon_transactions_total", { ...H, result: "successful" })).toBe(7);

    // 450 new ledgers: three pages of 200, 200 and 50, each ledger with distinct counts.
    for (let sequence = 11; sequence <= 460; sequence += 1) {
      horizon.ledgers.push(
        makeLedger(sequence, {
          successful_transaction_count: sequence % 5,
          failed_transaction_count: sequence % 3,
          operation_count: sequence % 11,
          tx_set_operation_count: (sequence % 11) + 2,
          max_tx_set_size: 100,
        }),
      );
    }
    const before = horizon.requestsTo("/ledgers").length;
    await exporter.pollAll();
    const pageRequests = horizon.requestsTo("/ledgers").slice(before);
    expect(pageRequests.map((url) => url.searchParams.get("order"))).toEqual(["asc", "asc", "asc"]);
    expect(pageRequests.every((url) => url.searchParams.get("limit") === "200")).toBe(true);

    const sum = (f: (sequence: number) => number) => {
      let total = 0;
      for (let sequence = 11; sequence <= 460; sequence += 1) total += f(sequence);
      return total;
    };
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(451);
    expect(valueOf(values, "stellar_horizon_transactions_total", { ...H, result: "successful" })).toBe(
      7 + sum((s) => s % 5),
    );
    expect(valueOf(values, "stellar_horizon_transactions_total", { ...H, result: "failed" })).toBe(
      3 + sum((s) => s % 3),
    );
    expect(valueOf(values, "stellar_horizon_operations_total", H)).toBe(20 + sum((s) => s % 11));
    expect(valueOf(values, "stellar_horizon_tx_set_operations_total", H)).toBe(25 + sum((s) => (s % 11) + 2));
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(0);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(460);
    // Consecutive ledgers close 5 s apart in the fake: 450 intervals, all in the le="5" bucket.
    expect(valueOf(values, "stellar_horizon_ledger_close_interval_seconds_count", H)).toBe(450);
    expect(valueOf(values, "stellar_horizon_ledger_close_interval_seconds_sum", H)).toBe(2250);
    expect(valueOf(values, "stellar_horizon_ledger_close_interval_seconds_bucket", { ...H, le: "4" })).toBe(0);
    expect(valueOf(values, "stellar_horizon_ledger_close_interval_seconds_bucket", { ...H, le: "5" })).toBe(450);
    expect(valueOf(values, "stellar_horizon_ledger_tx_set_capacity_ratio_count", H)).toBe(451);

    // Nothing new: counters stay put.
    await exporter.pollAll();
    expect(valueOf(await scrape(), "stellar_horizon_ledgers_total", H)).toBe(451);
  });

  it("skips ahead and counts the gap when catch-up hits its page cap", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(1);
    const { exporter, scrape } = await start([], "ledgers:\n  max_pages_per_poll: 2\n");
    horizon.addLedgers(1000);
    await exporter.pollAll();
    const values = await scrape();
    // Pages read ledgers 2..401; the skip lands on 1001 and passes over 402..1000.
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(1 + 400 + 1);
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(599);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(1001);
  });

  it("resynchronises when the sequence goes backwards, as on a testnet reset", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(500);
    const { exporter, scrape } = await start();
    horizon.ledgers = [];
    for (let sequence = 1; sequence <= 5; sequence += 1) horizon.ledgers.push(makeLedger(sequence, {}, 1));
    await exporter.pollAll();
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledger_resyncs_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(5);
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(2);

    horizon.ledgers.push(makeLedger(6, {}, 1), makeLedger(7, {}, 1));
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(4);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(7);
  });

  /** A native payment to the fixture's account, by its place in the chain: a reset starts places again from low ones. */
  const [nativePayment] = fixtureJson<{ _embedded: { records: Record<string, unknown>[] } }>(
    "account_payments-stellar-docs.json",
  )._embedded.records.filter((record) => record.type === "payment" && record.asset_type === "native");
  const payee = nativePayment!.to as string;
  // A shard other than 0 runs no ledgers poll: its accounts poll reads the latest ledger instead.
  const otherShard = [2, 3, 5, 7].map((total) => ({ index: fnv1a32(payee) % total, total })).find(({ index }) => index);
  it.each([
    ["a whole exporter", []],
    [`shard ${otherShard!.index} of ${otherShard!.total}`, [`--shard=${otherShard!.index}/${otherShard!.total}`]],
  ])(
    "%s: after a testnet reset, a watched account's payments count again, from the new chain's newest",
    async (_, flags) => {
      const paid = (place: number) => ({ ...nativePayment, id: String(place), paging_token: String(place) });
      const payments = () => horizon.accountStreams.get(`${payee}/payments`)!;
      horizon = new FakeHorizon();
      horizon.addLedgers(500);
      horizon.accountStreams.set(`${payee}/payments`, [paid(5_000_000), paid(5_000_001)]);
      const { exporter, scrape } = await start([`--account=payee=${payee}`, "--account.activity", ...flags]);
      const received = { ...H, account: "payee", direction: "received", asset: "native" };
      payments().push(paid(5_000_002));
      await exporter.pollAll();
      expect(valueOf(await scrape(), "stellar_horizon_account_payments_total", received)).toBe(1);
      // A Horizon a ledger behind (as one behind a load balancer may be) is no new chain: the cursor is kept.
      const newest = horizon.ledgers.pop()!;
      await exporter.pollAll();
      horizon.ledgers.push(newest);
      payments().push(paid(5_000_003));
      await exporter.pollAll();
      expect(valueOf(await scrape(), "stellar_horizon_account_payments_total", received)).toBe(2);

      horizon.ledgers = [1, 2, 3].map((sequence) => makeLedger(sequence, {}, 1));
      horizon.accountStreams.set(`${payee}/payments`, [paid(100), paid(101)]);
      await exporter.pollAll();
      await exporter.pollAll();
      payments().push(paid(102), paid(103));
      await exporter.pollAll();
      // 100 and 101 came before the exporter started over; 102 and 103 after.
      expect(valueOf(await scrape(), "stellar_horizon_account_payments_total", received)).toBe(4);
    },
  );

  it("counts a ledger that violates the schema as invalid and skipped, and carries on", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const { exporter, scrape } = await start();
    horizon.addLedgers(3);
    horizon.ledgers[4] = { ...horizon.ledgers[4], total_coins: 12 };
    await exporter.pollAll();
    const values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(3);
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "ledgers" })).toBe(1);
  });
});

describe("liquidity pools", () => {
  it("pages through pools up to the cap, and drops pools that disappear", async () => {
    horizon = new FakeHorizon();
    for (let index = 1; index <= 450; index += 1) horizon.pools.push(makePool(index));
    const { exporter, scrape } = await start(["--pools.max=420"]);
    const requests = horizon.requestsTo("/liquidity_pools");
    expect(requests.map((url) => url.searchParams.get("limit"))).toEqual(["200", "200", "20"]);
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBe(420);
    const pool7 = makePool(7).id as string;
    expect(valueOf(values, "stellar_horizon_liquidity_pool_reserve", { ...H, pool_id: pool7, asset: "native" })).toBe(
      70,
    );
    expect(valueOf(values, "stellar_horizon_liquidity_pool_shares", { ...H, pool_id: pool7 })).toBe(1007.5);
    expect(valueOf(values, "stellar_horizon_liquidity_pool_trustlines", { ...H, pool_id: pool7 })).toBe(8);

    horizon.pools = horizon.pools.filter((pool) => pool.id !== pool7);
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_liquidity_pool_shares", { ...H, pool_id: pool7 })).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBe(420);
  });

  it("filters by reserves and by explicit ids", async () => {
    horizon = new FakeHorizon();
    for (let index = 1; index <= 5; index += 1) horizon.pools.push(makePool(index));
    const asset = "TOK3:GDEUQ2MX3YXMITFOTC3CO3GW5V3XE3IVG7JKLZZAOZ7WFYIN256INDUS";
    const { scrape } = await start([], `liquidity_pools:\n  reserves: [native, "${asset}"]\n`);
    expect(horizon.requestsTo("/liquidity_pools")[0]?.searchParams.get("reserves")).toBe(`native,${asset}`);
    expect(valueOf(await scrape(), "stellar_horizon_liquidity_pools", H)).toBe(1);
  });

  it("tracks explicit ids, and forgets one Horizon no longer knows", async () => {
    horizon = new FakeHorizon();
    for (let index = 1; index <= 5; index += 1) horizon.pools.push(makePool(index));
    const ids = [makePool(2).id, makePool(4).id, makePool(99).id] as string[];
    const { scrape } = await start([], `liquidity_pools:\n  ids: [${ids.map((id) => `"${id}"`).join(", ")}]\n`);
    const values = await scrape();
    expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBe(2);
    expect(valueOf(values, "stellar_horizon_liquidity_pool_shares", { ...H, pool_id: ids[1]! })).toBe(1004.5);
  });

  it("fails the poll with reason paging when the cursor does not advance", async () => {
    horizon = new FakeHorizon();
    for (let index = 1; index <= 200; index += 1) horizon.pools.push(makePool(index));
    const records = horizon.pools;
    const stuckPage = JSON.stringify({ _links: {}, _embedded: { records } });
    horizon.faults.set("/liquidity_pools", {
      status: 200,
      body: stuckPage,
      headers: { "Content-Type": "application/hal+json" },
    });
    const { scrape } = await start(["--pools.max=1000"]);
    const values = await scrape();
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", {
        ...H,
        endpoint: "liquidity_pools",
        reason: "paging",
      }),
    ).toBe(1);
    expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBeUndefined();
    expect(horizon.requestsTo("/liquidity_pools")).toHaveLength(2);
  });
});

describe("freshness, readiness and self-metrics", () => {
  it("removes an endpoint's gauges when its poll fails, keeps counters, and restores them on success", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const { exporter, scrape } = await start();
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_up", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_core_latest_ledger", H)).toBe(52426478);

    horizon.faults.set("/", {
      status: 503,
      body: "Server capacity exceeded.",
      headers: { "Content-Type": "text/plain" },
    });
    horizon.faults.set("/ledgers", {
      status: 502,
      body: "<html><head><title>502 Bad Gateway</title></head></html>",
      headers: { "Content-Type": "text/html" },
    });
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_up", H)).toBe(0);
    expect(valueOf(values, "stellar_horizon_core_latest_ledger", H)).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_fee_charged_stroops", { ...H, stat: "max" })).toBe(500);
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "root", reason: "http_5xx" }),
    ).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "ledgers", reason: "http_5xx" }),
    ).toBe(1);
    // Two retries per failed request: three attempts each.
    expect(valueOf(values, "stellar_horizon_exporter_requests_total", { ...H, endpoint: "root", code: "503" })).toBe(3);

    const landing = await (await fetch(`${exporter.url}/`)).text();
    expect(landing).toContain("http_5xx: HTTP 503: Server capacity exceeded.");
    expect(landing).toContain("HTTP 502: 502 Bad Gateway");

    horizon.faults.clear();
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_up", H)).toBe(1);
    expect(valueOf(values, "stellar_horizon_core_latest_ledger", H)).toBe(52426478);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(3);
  });

  it("counts schema violations and invalid JSON under their reasons", async () => {
    horizon = new FakeHorizon();
    horizon.feeStats = { ...horizon.feeStats, last_ledger: 12 };
    horizon.faults.set("/", {
      status: 200,
      body: '{"horizon_version": "2.',
      headers: { "Content-Type": "application/hal+json" },
    });
    const { scrape } = await start();
    const values = await scrape();
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "fee_stats", reason: "schema" }),
    ).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "root", reason: "invalid_json" }),
    ).toBe(1);
    expect(valueOf(values, "stellar_horizon_fee_stats_last_ledger", H)).toBeUndefined();
  });

  it("exports rate-limit headers and self-metrics", async () => {
    horizon = new FakeHorizon();
    horizon.rateLimitHeaders = {
      "X-RateLimit-Limit": "3600",
      "x-ratelimit-remaining": "3000",
      "X-Ratelimit-Reset": "42",
    };
    const { scrape } = await start();
    const values = await scrape();
    expect(valueOf(values, "stellar_horizon_rate_limit_limit", H)).toBe(3600);
    expect(valueOf(values, "stellar_horizon_rate_limit_remaining", H)).toBe(3000);
    expect(valueOf(values, "stellar_horizon_rate_limit_reset_seconds", H)).toBe(42);
    expect(
      valueOf(values, "stellar_horizon_exporter_requests_total", { ...H, endpoint: "fee_stats", code: "200" }),
    ).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_exporter_request_duration_seconds_count", { ...H, endpoint: "fee_stats" }),
    ).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_exporter_last_success_timestamp_seconds", { ...H, endpoint: "root" }),
    ).toBeGreaterThan(Date.now() / 1000 - 60);
    const buildInfo = [...values.keys()].find((key) => key.startsWith("stellar_horizon_exporter_build_info"));
    expect(buildInfo).toContain(`node_version="${process.version}"`);
  });

  it("is ready only once every endpoint of every target was polled, and shows no target before its first poll ends", async () => {
    horizon = new FakeHorizon();
    const slow = new HostileHorizon();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    slow.misbehaviour = (request, response) => {
      held += 1;
      void gate.then(() => slow.answerHealthily(request, response));
    };
    const { startExporter } = await import("../src/exporter.js");
    const { pino } = await import("pino");
    const config = await configFrom([
      `--horizon.url=a=${await horizon.start()}`,
      `--horizon.url=b=${await slow.start()}`,
      "--poll.interval=1h",
    ]);
    const exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
    try {
      // Accounts, assets, markets and corridors are polled only where some are watched: b has none.
      const polled = ENDPOINTS.filter(
        (endpoint) => !["accounts", "activity", "assets", "markets", "corridors"].includes(endpoint),
      );
      await until("every first request of b to be held", () => (held >= polled.length ? true : undefined));
      await until("a's first polls", async () =>
        (await fetch(`${exporter.url}/metrics`))
          .text()
          .then((text) => text.includes('stellar_horizon_up{horizon="a"} 1') || undefined),
      );
      expect((await fetch(`${exporter.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${exporter.url}/readyz`)).status).toBe(503);
      // A target whose first poll has not ended publishes nothing, not `up 0`.
      const early = await (await fetch(`${exporter.url}/metrics`)).text();
      const horizonSeries = early
        .split("\n")
        .filter((line) => line.includes('horizon="b"') && !line.startsWith("stellar_horizon_exporter_"));
      expect(horizonSeries).toEqual([]);
      release();
      await exporter.firstPolls;
      expect((await fetch(`${exporter.url}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${exporter.url}/metrics`)).text()).toContain('stellar_horizon_up{horizon="b"} 1');
    } finally {
      await exporter.close();
      await slow.stop();
    }
  });

  it("serves output that promtool check metrics accepts, with every catalog family", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(5);
    horizon.pools.push(makePool(1), makePool(2));
    horizon.rateLimitHeaders = {
      "X-Ratelimit-Limit": "3600",
      "X-Ratelimit-Remaining": "3599",
      "X-Ratelimit-Reset": "10",
    };
    const account = fixtureJson<Record<string, unknown>>("account-java-sdk.json");
    const accountId = account.account_id as string;
    horizon.accounts.set(accountId, account);
    horizon.offers.set(
      accountId,
      fixtureJson<{ _embedded: { records: Record<string, unknown>[] } }>("account_offers-go-sdk.json")._embedded
        .records,
    );
    const claimable = fixtureJson<{ _embedded: { records: Record<string, any>[] } }>("claimable_balances-java-sdk.json")
      ._embedded.records;
    horizon.claimableBalances = claimable.map((balance) => ({
      ...balance,
      claimants: [{ destination: accountId, predicate: { unconditional: true } }],
    }));
    // The account's flow: its newest payment, transaction and operation, as the first activity poll reads them.
    for (const stream of ["payments", "transactions", "operations"]) {
      const page = fixtureJson<{ _embedded: { records: Record<string, unknown>[] } }>(
        `account_${stream}-stellar-docs.json`,
      );
      // Payments to the captured account are this account's.
      const records = page._embedded.records.map((record) =>
        record.to === undefined ? record : { ...record, to: accountId },
      );
      horizon.accountStreams.set(`${accountId}/${stream}`, records);
    }
    const asset = fixtureJson<{ _embedded: { records: Record<string, unknown>[] } }>(
      "assets-usdc-pubnet-stellar-docs.json",
    )._embedded.records[0]!;
    const usdc = `${asset.asset_code}:${asset.asset_issuer}`;
    horizon.assets.set(usdc, asset);
    const url = await horizon.start();
    const dir = mkdtempSync(join(tmpdir(), "she-config-"));
    const flow = "activity: true, operations: true, expect_payment_within: 1h, max_outflow_per_hour: { native: 10 }";
    writeFileSync(
      join(dir, "config.yml"),
      `targets:\n  - name: test\n    url: ${url}\n    assets: ["${usdc}"]\n    accounts:\n      - { name: t, id: ${accountId}, low_balance: { native: 1 }, offers: true, claimable_balances: true, ${flow} }\n`,
    );
    harness = await startHarness(await configFrom([`--config.file=${join(dir, "config.yml")}`, "--poll.interval=1h"]));
    const { exporter, scrapeText } = harness;
    const response = await fetch(`${exporter.url}/metrics`);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await scrapeText();
    const promtool = execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(promtool.trim()).toBe("");
    const series = parseExposition(text);
    expect(series.get("nodejs_heap_size_used_bytes{}")).toBeGreaterThan(1_000_000);
    // Standard Node.js dashboards read these; only the `_total` gauges promtool rejects are left out.
    expect(series.get("nodejs_heap_size_total_bytes{}")).toBeGreaterThan(1_000_000);
    expect([...series.keys()].some((key) => key.startsWith("nodejs_heap_space_size_total_bytes{"))).toBe(true);
    expect(namesIn(series).has("nodejs_active_handles_total")).toBe(false);
    const names = namesIn(series);
    // The transaction probe's families need a tx_probe target (test/probers covers them); this
    // exporter polls no Stellar RPC (test/rpc-exporter.test.ts checks the rpc-labelled families)
    // and watches no market nor corridor (test/markets.test.ts, test/corridors-exporter.test.ts check theirs).
    // A failure code is known only once a failed transaction comes after the first poll
    // (test/account-activity.test.ts covers it).
    for (const metric of ALL_METRICS.filter(
      (candidate) =>
        candidate.source !== "tx_probe" &&
        candidate.source !== "markets" &&
        candidate.source !== "corridors" &&
        targetLabelOf(candidate) === "horizon" &&
        candidate.name !== "stellar_horizon_account_transaction_failures_total",
    )) {
      const exposed = metric.type === "histogram" ? `${metric.name}_count` : metric.name;
      expect(names.has(exposed), metric.name).toBe(true);
    }
  });

  it("renders a landing page that escapes target names", async () => {
    horizon = new FakeHorizon();
    const url = await horizon.start();
    const dir = mkdtempSync(join(tmpdir(), "she-config-"));
    writeFileSync(join(dir, "config.yml"), `targets:\n  - name: "<script>alert(1)</script>"\n    url: ${url}\n`);
    harness = await startHarness(await configFrom([`--config.file=${join(dir, "config.yml")}`, "--poll.interval=1h"]));
    const page = await (await fetch(`${harness.exporter.url}/`)).text();
    expect(page).not.toContain("<script>");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).toContain('href="metrics"');
  });
});

it("fixture text helper reads real captures", () => {
  expect(fixtureText("root-java-sdk.json")).toContain("horizon_version");
});
