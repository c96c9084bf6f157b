import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { Asset, getLiquidityPoolId, xdr } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { fixture, fixtureText, getJson, simulatorAt, typeSignature } from "./helpers.js";

const TESTNET = "Test SDF Network ; September 2015";

/** Re-encodes JSON exactly as Go's json.MarshalIndent(v, "", "  ") does. */
function goMarshalIndent(text: string): string {
  return JSON.stringify(JSON.parse(text), null, 2).replace(
    /[<>&]/g,
    (char) => `\\u00${char.charCodeAt(0).toString(16)}`,
  );
}

function toAsset(canonical: string): Asset {
  if (canonical === "native") return Asset.native();
  const [code = "", issuer = ""] = canonical.split(":");
  return new Asset(code, issuer);
}

describe("simulated responses have the type signature of real Horizon captures", () => {
  it.each([
    ["/", "root-java-sdk.json"],
    ["/fee_stats", "fee_stats-java-sdk.json"],
    ["/ledgers?limit=3", "ledgers-java-sdk.json"],
    ["/ledgers?order=desc&limit=3", "ledgers-desc-java-sdk.json"],
    ["/liquidity_pools?limit=3", "liquidity_pools-java-sdk.json"],
  ])("GET %s matches %s, key order included", async (path, capture) => {
    const { simulator } = simulatorAt();
    const { status, body } = await getJson(simulator, path);
    expect(status).toBe(200);
    expect(typeSignature(body)).toEqual(typeSignature(fixture(capture)));
  });

  it("a single ledger matches ledger-java-sdk.json", async () => {
    const { simulator } = simulatorAt();
    const latest = simulator.state().historyLatestLedger;
    const { body } = await getJson(simulator, `/ledgers/${latest}`);
    expect(typeSignature(body)).toEqual(typeSignature(fixture("ledger-java-sdk.json")));
  });

  it("a single liquidity pool matches liquidity_pool-java-sdk.json", async () => {
    const { simulator } = simulatorAt();
    const id = simulator.pools.pools[7]?.id;
    const { body } = await getJson(simulator, `/liquidity_pools/${id}`);
    expect(typeSignature(body)).toEqual(typeSignature(fixture("liquidity_pool-java-sdk.json")));
  });

  it("old_horizon's root matches Horizon 2.11's (root-ruby-vcr-2021.json), with the API spec's service_version", async () => {
    const { simulator } = simulatorAt({ scenario: "old_horizon", networkPassphrase: TESTNET });
    const { body } = await getJson(simulator, "/");
    // The capture says horizon_version; the API specification, which this shape follows, says service_version.
    const capture = Object.fromEntries(
      Object.entries(fixture("root-ruby-vcr-2021.json") as Record<string, unknown>).map(([key, value]) => [
        key === "horizon_version" ? "service_version" : key,
        value,
      ]),
    );
    expect(typeSignature(body)).toEqual(typeSignature(capture));
    expect(body).not.toHaveProperty("supported_protocol_version");
    expect(body._links.ledger.href).toMatch(/\/ledger\/\{sequence\}$/);
    expect(body.service_version).toMatch(/^2\.11\.0-/);
  });

  it("old_horizon's ledger has the pre-2020 keys of ledger-go-sdk.json, with a NULL failed count", async () => {
    const { simulator } = simulatorAt({ scenario: "old_horizon" });
    const latest = simulator.state().historyLatestLedger;
    const { body } = await getJson(simulator, `/ledgers/${latest}`);
    const capture = fixture("ledger-go-sdk.json") as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(Object.keys(capture));
    expect(body).not.toHaveProperty("tx_set_operation_count");
    expect(body.failed_transaction_count).toBeNull();
    expect(typeSignature({ ...body, failed_transaction_count: 0 })).toEqual(typeSignature(capture));
  });

  it("old_horizon's pools have no last_modified_time", async () => {
    const { simulator } = simulatorAt({ scenario: "old_horizon" });
    const { body } = await getJson(simulator, "/liquidity_pools?limit=5");
    const records = body._embedded.records as Record<string, unknown>[];
    expect(records).toHaveLength(5);
    for (const record of records) expect(record.last_modified_time).toBeNull();
    expect(typeSignature({ ...records[0], last_modified_time: "" })).toEqual(
      typeSignature(fixture("liquidity_pool-java-sdk.json")),
    );
  });
});

describe("bytes and headers are Horizon's", () => {
  it("bodies are Go's MarshalIndent output: two-space indent, & escaped, no trailing newline", async () => {
    const { simulator } = simulatorAt();
    for (const path of ["/", "/fee_stats", "/ledgers?limit=2", "/liquidity_pools?limit=2", "/nope"]) {
      const { text } = await getJson(simulator, path);
      expect(text).toBe(goMarshalIndent(text));
      expect(text.endsWith("}")).toBe(true);
    }
    const { text: root } = await getJson(simulator, "/");
    expect(root).toContain("trade_aggregations?base_asset_type={base_asset_type}\\u0026base_asset_code=");
  });

  it("200s carry the headers of the captured responses", async () => {
    const { simulator } = simulatorAt();
    const captured =
      (fixture("http-headers-ruby-vcr.json") as { headers: Record<string, string[]> }[])[1]?.headers ?? {};
    const { headers } = await getJson(simulator, "/liquidity_pools?limit=1");
    for (const name of ["Content-Type", "Cache-Control", "Content-Disposition", "Vary"]) {
      expect(headers.get(name)).toBe(captured[name]?.[0]);
    }
    expect(headers.get("X-Ratelimit-Limit")).toBe("101");
    expect(headers.get("X-Ratelimit-Remaining")).toBe("100");
    expect(headers.get("X-Ratelimit-Reset")).toBe("1");
    expect(headers.get("Latest-Ledger")).toBe(String(simulator.state().ingestLatestLedger));
  });

  it("HAL bodies are gzip-compressed for clients that accept it, as Horizon's chi Compress middleware does", async () => {
    const { simulator } = simulatorAt();
    const path = "/liquidity_pools?limit=20";
    const plain = await simulator.app.request(path);
    const compressed = await simulator.app.request(path, { headers: { "Accept-Encoding": "gzip, deflate" } });
    expect(plain.headers.has("Content-Encoding")).toBe(false);
    expect(plain.headers.get("Vary")).toBe("Origin");
    expect(compressed.headers.get("Content-Encoding")).toBe("gzip");
    expect(compressed.headers.get("Vary")).toBe("Origin, Accept-Encoding");
    expect(compressed.headers.get("Latest-Ledger")).toBe(plain.headers.get("Latest-Ledger"));
    expect(compressed.headers.get("X-Ratelimit-Remaining")).toBe("99");
    const bytes = Buffer.from(await compressed.arrayBuffer());
    const text = await plain.text();
    expect(gunzipSync(bytes).toString()).toBe(text);
    expect(bytes.length).toBeLessThan(text.length / 4);
  });

  it("problems are never compressed: chi compresses only application/hal+json", async () => {
    const { simulator } = simulatorAt();
    const response = await simulator.app.request("/nope", { headers: { "Accept-Encoding": "gzip" } });
    expect(response.status).toBe(404);
    expect(response.headers.has("Content-Encoding")).toBe(false);
    expect(await response.text()).toBe(fixtureText("error-not_found-horizon-src.json"));
  });

  it("the root is sent without Latest-Ledger, like Horizon's root handler", async () => {
    const { simulator } = simulatorAt();
    const { headers } = await getJson(simulator, "/");
    expect(headers.get("Content-Type")).toBe("application/hal+json; charset=utf-8");
    expect(headers.has("Latest-Ledger")).toBe(false);
  });

  it.each([
    ["/nope", 404, "error-not_found-horizon-src.json"],
    ["/ledgers?limit=abc", 400, "error-bad_request-limit_unparseable-horizon-src.json"],
    ["/ledgers?limit=201", 400, "error-bad_request-limit_over_max-horizon-src.json"],
    ["/ledgers?order=sideways", 400, "error-bad_request-order_invalid-horizon-src.json"],
    ["/ledgers?cursor=abc", 400, "error-bad_request-cursor_invalid-horizon-src.json"],
    ["/liquidity_pools?reserves=XLM", 400, "error-bad_request-reserves_invalid-horizon-src.json"],
    ["/ledgers/2", 410, "error-before_history-horizon-src.json"],
  ])("GET %s answers %i with Horizon's exact problem body (%s)", async (path, status, capture) => {
    const { simulator } = simulatorAt();
    const response = await getJson(simulator, path);
    expect(response.status).toBe(status);
    expect(response.headers.get("Content-Type")).toBe("application/problem+json; charset=utf-8");
    expect(response.text).toBe(fixtureText(capture));
  });
});

describe("ledgers are internally consistent like real ones", () => {
  it("header_xdr is a real LedgerHeader whose SHA-256 is the ledger hash, chained by prev_hash", async () => {
    const { simulator } = simulatorAt();
    const { body } = await getJson(simulator, "/ledgers?order=desc&limit=20");
    const records = body._embedded.records as Record<string, any>[];
    const captured = fixture("ledger-java-sdk.json") as { header_xdr: string };
    records.forEach((record, index) => {
      const header = xdr.LedgerHeader.fromXdr(record.header_xdr, "base64");
      expect(record.header_xdr).toHaveLength(captured.header_xdr.length);
      expect(createHash("sha256").update(Buffer.from(record.header_xdr, "base64")).digest("hex")).toBe(record.hash);
      expect(record.id).toBe(record.hash);
      expect(header.ledgerSeq).toBe(record.sequence);
      expect(Buffer.from(header.previousLedgerHash.value).toString("hex")).toBe(record.prev_hash);
      expect(header.ledgerVersion).toBe(record.protocol_version);
      expect(new Date(Number(header.scpValue.closeTime) * 1000).toISOString().replace(".000Z", "Z")).toBe(
        record.closed_at,
      );
      expect(header.totalCoins.toString()).toBe(record.total_coins.replace(".", ""));
      expect(header.feePool.toString()).toBe(record.fee_pool.replace(".", "").replace(/^0+/, ""));
      expect(record.paging_token).toBe((BigInt(record.sequence) << 32n).toString());
      const older = records[index + 1];
      if (older !== undefined) expect(record.prev_hash).toBe(older.hash);
    });
  });

  it("counts, amounts and times have mainnet magnitudes and formats", async () => {
    const { simulator } = simulatorAt();
    const { body } = await getJson(simulator, "/ledgers?order=desc&limit=50");
    for (const record of body._embedded.records as Record<string, any>[]) {
      expect(record.total_coins).toBe("105443902087.3472865");
      expect(record.fee_pool).toMatch(/^\d+\.\d{7}$/);
      expect(record.closed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(record.max_tx_set_size).toBe(1000);
      expect(record.base_fee_in_stroops).toBe(100);
      expect(record.base_reserve_in_stroops).toBe(5000000);
      expect(record.tx_set_operation_count).toBeLessThanOrEqual(1000);
      expect(record.operation_count).toBeGreaterThanOrEqual(record.successful_transaction_count);
      expect(record.tx_set_operation_count).toBeGreaterThanOrEqual(record.operation_count);
      expect(record.hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("the fee pool grows with the fees of each ledger", async () => {
    const { simulator } = simulatorAt();
    const { body } = await getJson(simulator, "/ledgers?limit=30");
    const feePools = (body._embedded.records as { fee_pool: string }[]).map((record) =>
      BigInt(record.fee_pool.replace(".", "")),
    );
    feePools.slice(1).forEach((feePool, index) => expect(feePool).toBeGreaterThan(feePools[index] ?? 0n));
  });
});

describe("liquidity pools are real-looking", () => {
  it("ids are the protocol's pool ids for their assets, and amounts have seven decimals", async () => {
    const { simulator } = simulatorAt();
    const { body } = await getJson(simulator, "/liquidity_pools?limit=50");
    const records = body._embedded.records as Record<string, any>[];
    expect(records).toHaveLength(50);
    for (const record of records) {
      const [assetA, assetB] = (record.reserves as { asset: string }[]).map((reserve) => toAsset(reserve.asset));
      const id = Buffer.from(
        getLiquidityPoolId("constant_product", { assetA: assetA as Asset, assetB: assetB as Asset, fee: 30 }),
      ).toString("hex");
      expect(record.id).toBe(id);
      expect(record.paging_token).toBe(id);
      expect(record.total_shares).toMatch(/^\d+\.\d{7}$/);
      for (const reserve of record.reserves as { amount: string }[]) expect(reserve.amount).toMatch(/^\d+\.\d{7}$/);
      expect(record.total_trustlines).toMatch(/^[1-9]\d*$/);
      expect(record.last_modified_ledger).toBeLessThanOrEqual(simulator.state().historyLatestLedger);
      expect(record.last_modified_time).toMatch(/Z$/);
    }
  });

  it("the same seed builds the same pools and ledgers; another seed does not", async () => {
    const first = simulatorAt({ seed: 7 }).simulator;
    const second = simulatorAt({ seed: 7 }).simulator;
    const other = simulatorAt({ seed: 8 }).simulator;
    for (const path of ["/", "/fee_stats", "/ledgers?order=desc&limit=5", "/liquidity_pools?limit=5"]) {
      expect((await getJson(first, path)).text).toBe((await getJson(second, path)).text);
    }
    expect((await getJson(other, "/ledgers?order=desc&limit=1")).text).not.toBe(
      (await getJson(first, "/ledgers?order=desc&limit=1")).text,
    );
  });
});
