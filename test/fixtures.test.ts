import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEE_STATS } from "../src/catalog/metrics.js";
import { PollError } from "../src/client/errors.js";
import { HorizonClient } from "../src/client/horizon-client.js";
import { pathRecordSchema } from "../src/client/path-schemas.js";
import { parseRateLimitHeaders } from "../src/client/rate-limit.js";
import {
  feeStatsSchema,
  ledgerSchema,
  liquidityPoolSchema,
  pageSchema,
  problemSchema,
  rootSchema,
  transactionResponseSchema,
} from "../src/client/schemas.js";
import { assetRecordSchema } from "../src/client/asset-schemas.js";
import { feeStatsSamples } from "../src/collectors/fee-stats.js";
import { LedgerTotals, ledgerSamples } from "../src/collectors/ledgers.js";
import { liquidityPoolSamples } from "../src/collectors/liquidity-pools.js";
import { rootSamples } from "../src/collectors/root.js";
import type { CollectorSamples } from "../src/exposition/samples.js";
import { renderSamples } from "./support/render-samples.js";
import { isNearestFloat } from "./support/exact-decimal.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { fixtureJson, fixtureNames, fixtureText } from "./support/fixtures.js";

async function series(samples: CollectorSamples) {
  return parseExposition(await renderSamples("h", [...samples.persistent, ...samples.live]));
}

describe("every fixture in test/fixtures/horizon parses", () => {
  const names = fixtureNames();

  it("finds the fixtures", () => {
    expect(names.length).toBeGreaterThanOrEqual(50);
  });

  it.each(names)("%s", (name) => {
    const body = fixtureJson<Record<string, unknown>>(name);
    const kind = name.replace(/-.*$/, "");
    switch (kind) {
      case "root":
        expect(rootSchema.parse(body).network_passphrase).toMatch(/Network/);
        break;
      case "fee_stats":
        expect(feeStatsSchema.parse(body).fee_charged.p99).toBeGreaterThan(0);
        break;
      case "ledger":
        expect(ledgerSchema.parse(body).sequence).toBeGreaterThan(0);
        break;
      case "liquidity_pool":
        expect(liquidityPoolSchema.parse(body).reserves).toHaveLength(2);
        break;
      case "ledgers":
      case "liquidity_pools": {
        const records = pageSchema.parse(body)._embedded.records;
        const schema = kind === "ledgers" ? ledgerSchema : liquidityPoolSchema;
        expect(records.length).toBeGreaterThan(0);
        for (const record of records) expect(schema.safeParse(record).success).toBe(true);
        break;
      }
      case "assets": {
        const records = pageSchema.parse(body)._embedded.records;
        expect(records.length).toBeGreaterThan(0);
        for (const record of records) expect(assetRecordSchema.safeParse(record).success).toBe(true);
        break;
      }
      case "error":
        expect(problemSchema.parse(body).status).toBeGreaterThanOrEqual(400);
        break;
      case "tx_submit_success":
      case "transaction":
      case "transaction_fee_bump":
        expect(transactionResponseSchema.parse(body).ledger).toBeGreaterThan(0);
        break;
      case "tx_async":
        // Answers of POST /transactions_async, which the probe does not use: status and hash only.
        expect(body).toMatchObject({ tx_status: expect.any(String), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
        break;
      case "paths_strict_send":
      case "paths_strict_receive": {
        // Path finding answers a page without links, each record a path of the corridors' schema.
        expect(body._links).toBeUndefined();
        const records = pageSchema.parse(body)._embedded.records;
        expect(records.length).toBeGreaterThan(0);
        for (const record of records) expect(pathRecordSchema.safeParse(record).success).toBe(true);
        break;
      }
      case "http":
        for (const entry of body as unknown as { headers: Record<string, string[]> }[]) {
          const headers = new Headers(Object.entries(entry.headers).map(([key, values]) => [key, values.join(", ")]));
          const parsed = parseRateLimitHeaders(headers);
          if (headers.has("x-ratelimit-limit")) expect(parsed.limit).toBeGreaterThan(0);
        }
        break;
      default: {
        // Resources the exporter does not read (offers, operations, ...): still valid HAL.
        expect(body._links).toBeTypeOf("object");
        if ("_embedded" in body) expect(pageSchema.parse(body)._embedded.records.length).toBeGreaterThan(0);
      }
    }
  });
});

describe("fixtures yield exact metric values", () => {
  it("root of a mainnet Horizon 2.31", async () => {
    const values = await series(rootSamples(rootSchema.parse(fixtureJson("root-java-sdk.json")), true));
    expect(valueOf(values, "stellar_horizon_up", { horizon: "h" })).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_info", {
        horizon: "h",
        horizon_version: "2.31.0-d1d911f6ed7396fd705d8f2068f70f468012102e",
        core_version: "stellar-core 21.1.0 (b3aeb14cc798f6d11deb2be913041be916f3b0cc)",
        network: "pubnet",
        network_passphrase: "Public Global Stellar Network ; September 2015",
      }),
    ).toBe(1);
    expect(valueOf(values, "stellar_horizon_ingest_latest_ledger", { horizon: "h" })).toBe(52426477);
    expect(valueOf(values, "stellar_horizon_history_latest_ledger", { horizon: "h" })).toBe(52426477);
    expect(valueOf(values, "stellar_horizon_history_elder_ledger", { horizon: "h" })).toBe(2);
    expect(valueOf(values, "stellar_horizon_core_latest_ledger", { horizon: "h" })).toBe(52426478);
    expect(valueOf(values, "stellar_horizon_ingest_lag_ledgers", { horizon: "h" })).toBe(1);
    expect(valueOf(values, "stellar_horizon_history_latest_ledger_closed_timestamp_seconds", { horizon: "h" })).toBe(
      1720143821,
    );
    expect(valueOf(values, "stellar_horizon_current_protocol_version", { horizon: "h" })).toBe(21);
    expect(valueOf(values, "stellar_horizon_supported_protocol_version", { horizon: "h" })).toBe(21);
    expect(valueOf(values, "stellar_horizon_core_supported_protocol_version", { horizon: "h" })).toBe(21);
  });

  it("root of a Horizon whose core is not known yet (core_latest_ledger 0): no ingest lag", async () => {
    const root = rootSchema.parse({
      ...fixtureJson<Record<string, unknown>>("root-java-sdk.json"),
      core_latest_ledger: 0,
    });
    const values = await series(rootSamples(root, true));
    expect(valueOf(values, "stellar_horizon_core_latest_ledger", { horizon: "h" })).toBe(0);
    expect(valueOf(values, "stellar_horizon_ingest_lag_ledgers", { horizon: "h" })).toBeUndefined();
  });

  it("refuses fee statistics with a negative fee", () => {
    const body = fixtureJson<{ fee_charged: Record<string, string> }>("fee_stats-stellar-docs.json");
    expect(feeStatsSchema.safeParse({ ...body, last_ledger_base_fee: "-100" }).success).toBe(false);
    expect(feeStatsSchema.safeParse({ ...body, fee_charged: { ...body.fee_charged, p90: "-1" } }).success).toBe(false);
    expect(feeStatsSchema.safeParse(body).success).toBe(true);
  });

  it("root of a 2021 testnet Horizon without supported_protocol_version", async () => {
    const values = await series(rootSamples(rootSchema.parse(fixtureJson("root-ruby-vcr-2021.json")), true));
    expect(valueOf(values, "stellar_horizon_supported_protocol_version", { horizon: "h" })).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_core_supported_protocol_version", { horizon: "h" })).toBe(18);
    expect([...values.keys()].find((key) => key.startsWith("stellar_horizon_info"))).toContain('network="testnet"');
  });

  it("root variants: service_version, fresh node, empty core version", async () => {
    const root = fixtureJson("root-js-sdk.json");
    const { horizon_version, ...withoutVersion } = root;
    const parsed = rootSchema.parse({
      ...withoutVersion,
      service_version: horizon_version,
      core_version: "",
      history_latest_ledger_closed_at: "0001-01-01T00:00:00Z",
      network_passphrase: "Standalone Network ; February 2017",
      brand_new_field: { x: 1 },
    });
    const values = await series(rootSamples(parsed, true));
    expect(parsed.horizon_version).toBe("22.0.1-dd8a9b473a303cfcdd383d1db45dace93ea0861c");
    expect(
      valueOf(values, "stellar_horizon_history_latest_ledger_closed_timestamp_seconds", { horizon: "h" }),
    ).toBeUndefined();
    expect(
      valueOf(values, "stellar_horizon_info", {
        horizon: "h",
        horizon_version: "22.0.1-dd8a9b473a303cfcdd383d1db45dace93ea0861c",
        core_version: "",
        network: "custom",
        network_passphrase: "Standalone Network ; February 2017",
      }),
    ).toBe(1);
  });

  it("fee stats, all 14 statistics of both distributions", async () => {
    const values = await series(feeStatsSamples(feeStatsSchema.parse(fixtureJson("fee_stats-stellar-docs.json"))));
    expect(valueOf(values, "stellar_horizon_fee_stats_last_ledger", { horizon: "h" })).toBe(43277313);
    expect(valueOf(values, "stellar_horizon_fee_stats_base_fee_stroops", { horizon: "h" })).toBe(100);
    expect(valueOf(values, "stellar_horizon_ledger_capacity_usage_ratio", { horizon: "h" })).toBe(1);
    const raw = fixtureJson<{ fee_charged: Record<string, string>; max_fee: Record<string, string> }>(
      "fee_stats-stellar-docs.json",
    );
    for (const stat of FEE_STATS) {
      expect(valueOf(values, "stellar_horizon_fee_charged_stroops", { horizon: "h", stat })).toBe(
        Number(raw.fee_charged[stat]),
      );
      expect(valueOf(values, "stellar_horizon_max_fee_stroops", { horizon: "h", stat })).toBe(
        Number(raw.max_fee[stat]),
      );
    }
    expect(valueOf(values, "stellar_horizon_max_fee_stroops", { horizon: "h", stat: "max" })).toBe(616065406);
  });

  it("latest-ledger gauges from a mainnet ledger", async () => {
    const values = await series(
      ledgerSamples(new LedgerTotals(), ledgerSchema.parse(fixtureJson("ledger-java-sdk.json"))),
    );
    expect(valueOf(values, "stellar_horizon_ledger_sequence", { horizon: "h" })).toBe(52425760);
    expect(valueOf(values, "stellar_horizon_ledger_closed_timestamp_seconds", { horizon: "h" })).toBe(1720139604);
    expect(valueOf(values, "stellar_horizon_ledger_base_fee_stroops", { horizon: "h" })).toBe(100);
    expect(valueOf(values, "stellar_horizon_ledger_base_reserve_stroops", { horizon: "h" })).toBe(5000000);
    expect(valueOf(values, "stellar_horizon_ledger_max_tx_set_size", { horizon: "h" })).toBe(1000);
    expect(valueOf(values, "stellar_horizon_ledger_protocol_version", { horizon: "h" })).toBe(21);
    // Compared with the capture's decimal strings exactly, not with a double literal of the same digits.
    const raw = fixtureJson<{ total_coins: string; fee_pool: string }>("ledger-java-sdk.json");
    expect(raw.total_coins).toBe("105443902087.3472865");
    expect(
      isNearestFloat(valueOf(values, "stellar_horizon_ledger_total_coins", { horizon: "h" })!, raw.total_coins),
    ).toBe(true);
    expect(isNearestFloat(valueOf(values, "stellar_horizon_ledger_fee_pool", { horizon: "h" })!, raw.fee_pool)).toBe(
      true,
    );
  });

  it("the exact-decimal check can fail: one ulp off is not the nearest double", () => {
    const nearest = 105443902087.3472865;
    expect(isNearestFloat(nearest, "105443902087.3472865")).toBe(true);
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, nearest);
    view.setBigUint64(0, view.getBigUint64(0) + 1n);
    expect(isNearestFloat(view.getFloat64(0), "105443902087.3472865")).toBe(false);
    // Lost digits, as float arithmetic on stroops would lose them.
    expect(isNearestFloat(Number("105443902087.34728"), "105443902087.3472865")).toBe(false);
  });

  it("an old ledger without tx_set_operation_count", async () => {
    const ledger = ledgerSchema.parse(fixtureJson("ledger-go-sdk.json"));
    expect(ledger.tx_set_operation_count).toBeUndefined();
    expect(
      ledgerSchema.parse({
        ...fixtureJson<Record<string, unknown>>("ledger-go-sdk.json"),
        failed_transaction_count: null,
        tx_set_operation_count: null,
      }).failed_transaction_count,
    ).toBeNull();
  });

  it("paging tokens stay exact beyond 2^53", async () => {
    const ledger = ledgerSchema.parse(fixtureJson("ledger-java-sdk.json"));
    expect(ledger.paging_token).toBe("225166924667944960");
    expect(BigInt(ledger.paging_token) >> 32n).toBe(52425760n);
  });

  it("liquidity pools", async () => {
    const records = pageSchema
      .parse(fixtureJson("liquidity_pools-java-sdk.json"))
      ._embedded.records.map((r) => liquidityPoolSchema.parse(r));
    const values = await series(liquidityPoolSamples(records));
    const id = "0000a8198b5e25994c1ca5b0556faeb27325ac746296944144e0a7406d501e8a";
    expect(valueOf(values, "stellar_horizon_liquidity_pools", { horizon: "h" })).toBe(3);
    expect(
      valueOf(values, "stellar_horizon_liquidity_pool_info", {
        horizon: "h",
        pool_id: id,
        type: "constant_product",
        fee_bp: "30",
        asset_a: "native",
        asset_b: "GOLDBANK001:GDEUQ2MX3YXMITFOTC3CO3GW5V3XE3IVG7JKLZZAOZ7WFYIN256INDUS",
      }),
    ).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_liquidity_pool_reserve", { horizon: "h", pool_id: id, asset: "native" }),
    ).toBe(2.649445);
    expect(
      valueOf(values, "stellar_horizon_liquidity_pool_reserve", {
        horizon: "h",
        pool_id: id,
        asset: "GOLDBANK001:GDEUQ2MX3YXMITFOTC3CO3GW5V3XE3IVG7JKLZZAOZ7WFYIN256INDUS",
      }),
    ).toBe(16342845.4610607);
    expect(valueOf(values, "stellar_horizon_liquidity_pool_shares", { horizon: "h", pool_id: id })).toBe(5494.2144063);
    expect(valueOf(values, "stellar_horizon_liquidity_pool_trustlines", { horizon: "h", pool_id: id })).toBe(1);
  });

  it("a pool with a null last_modified_time", async () => {
    expect(
      liquidityPoolSchema.safeParse({
        ...fixtureJson<Record<string, unknown>>("liquidity_pool-java-sdk.json"),
        last_modified_time: null,
      }).success,
    ).toBe(true);
  });
});

describe("error fixtures become typed errors", () => {
  const horizon = new FakeHorizon();
  let url: string;

  beforeAll(async () => {
    url = await horizon.start();
  });
  afterAll(() => horizon.stop());

  it.each(fixtureNames().filter((name) => name.startsWith("error-")))("%s", async (name) => {
    const problem = fixtureJson<{ status: number; title: string }>(name);
    horizon.faults.set("/fee_stats", {
      status: problem.status,
      body: fixtureText(name),
      headers: { "Content-Type": "application/problem+json; charset=utf-8" },
    });
    // A fresh client each time: after a 429 a client rightly holds back from that Horizon.
    const client = new HorizonClient({ url, timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
    const error = await client.feeStats().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PollError);
    const failure = error as PollError;
    const expectedReason = problem.status === 429 ? "rate_limited" : problem.status >= 500 ? "http_5xx" : "http_4xx";
    expect(failure.reason).toBe(expectedReason);
    expect(failure.details.status).toBe(problem.status);
    expect(failure.details.problem?.title).toBe(problem.title);
    expect(failure.message).toContain(problem.title);
  });
});
