import { Asset, Horizon } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { listen } from "../../src/server/listen.js";
import {
  DEMO_CORRIDORS,
  DEMO_EURC,
  DEMO_NGNT,
  LIQUIDITY_GONE_MS,
  USDC,
  type Simulator,
} from "../../src/simulator/index.js";
import { fixture, getJson, simulatorAt, typeSignature } from "./helpers.js";

const USDC_ISSUER = USDC.split(":")[1] ?? "";
const USDC_QUERY = `source_asset_type=credit_alphanum4&source_asset_code=USDC&source_asset_issuer=${USDC_ISSUER}`;

function sendUsdc(simulator: Simulator, amount: string, destinations: string) {
  return getJson<any>(
    simulator,
    `/paths/strict-send?${USDC_QUERY}&source_amount=${amount}&destination_assets=${destinations}`,
  );
}

describe("the simulator's path finding", () => {
  it("answers strict-send in Horizon's wire format: no _links, path [] for a direct market", async () => {
    const { simulator } = simulatorAt();
    const { status, headers, body } = await sendUsdc(simulator, "100", "native");
    expect(status).toBe(200);
    expect(headers.get("Content-Type")).toBe("application/hal+json; charset=utf-8");
    expect(Object.keys(body)).toEqual(["_embedded"]);
    const records = body._embedded.records as any[];
    expect(records.length).toBeGreaterThan(0);
    const direct = records.find((record) => record.path.length === 0);
    // The captured BRL -> XLM record: a credit source, a native destination, no path.
    const captured = (fixture("paths_strict_send-stellar-docs.json") as any)._embedded.records.at(-1);
    expect(typeSignature(direct)).toEqual(typeSignature(captured));
    expect(direct.source_amount).toBe("100.0000000");
    // 100 USDC at 10 lumens each, less the maker's spread, plus the hot wallet's cheaper asks.
    expect(Number(direct.destination_amount)).toBeGreaterThan(1000);
    expect(Number(direct.destination_amount)).toBeLessThan(1020);
    // Best first within a destination.
    const amounts = records.map((record) => Number(record.destination_amount));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });

  it("finds paths of up to 3 intermediate assets, never more", async () => {
    const { simulator } = simulatorAt();
    const [code, issuer] = DEMO_NGNT.split(":");
    const { body } = await getJson<any>(
      simulator,
      `/paths/strict-send?source_asset_type=credit_alphanum4&source_asset_code=${code}&source_asset_issuer=${issuer}` +
        `&source_amount=10000&destination_assets=${DEMO_EURC}`,
    );
    const hops = (body._embedded.records as any[]).map((record) => record.path.length);
    // NGNT -> BRL -> XLM -> EURC and NGNT -> BRL -> XLM -> USDC -> EURC.
    expect(hops).toContain(2);
    expect(hops).toContain(3);
    expect(Math.max(...hops)).toBe(3);
  });

  it("answers strict-receive with the least spent first", async () => {
    const { simulator } = simulatorAt();
    const { body } = await getJson<any>(
      simulator,
      `/paths/strict-receive?destination_asset_type=native&destination_amount=500&source_assets=${USDC}`,
    );
    const records = body._embedded.records as any[];
    expect(records.every((record) => record.destination_amount === "500.0000000")).toBe(true);
    const spent = records.map((record) => Number(record.source_amount));
    expect(spent).toEqual([...spent].sort((a, b) => a - b));
    // 500 lumens at a tenth of a dollar, less what the book's spread and the EURC route change.
    expect(spent[0]).toBeGreaterThan(47);
    expect(spent[0]).toBeLessThan(51);
  });

  it("refuses bad requests with Horizon's exact problems", async () => {
    const { simulator } = simulatorAt();
    const both = await sendUsdc(simulator, "1", `native&destination_account=${USDC_ISSUER}`);
    expect(both.status).toBe(400);
    expect(both.body).toEqual(fixture("error-bad_request-destination_assets_or_account-horizon-src.json"));
    const neither = await getJson(
      simulator,
      "/paths/strict-receive?destination_asset_type=native&destination_amount=1",
    );
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual(fixture("error-bad_request-source_assets_or_account-horizon-src.json"));
    const sixteen = Array.from({ length: 16 }, () => "native").join(",");
    const tooMany = await sendUsdc(simulator, "1", sixteen);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual(fixture("error-bad_request-destination_assets_over_max-horizon-src.json"));
    const tooManySources = await getJson<any>(
      simulator,
      `/paths/strict-receive?destination_asset_type=native&destination_amount=1&source_assets=${sixteen}`,
    );
    expect(tooManySources.body.extras).toEqual({
      invalid_field: "source_assets",
      reason: "list of assets exceeds maximum length of 15",
    });
  });

  it("answers 404 on both routes when path finding is disabled", async () => {
    const { simulator } = simulatorAt({ disablePathFinding: true });
    for (const path of ["/paths/strict-send", "/paths/strict-receive"]) {
      const { status, body } = await getJson(simulator, `${path}?destination_asset_type=native`);
      expect(status).toBe(404);
      expect(body).toEqual(fixture("error-not_found-horizon-src.json"));
    }
  });

  it("corridor_drain: the USDC corridor finds no path, then a worse rate", async () => {
    const { simulator, clock } = simulatorAt();
    const best = async () => {
      const { body } = await sendUsdc(simulator, "100", "native");
      const amounts = (body._embedded.records as any[]).map((record) => Number(record.destination_amount));
      return amounts.length === 0 ? undefined : Math.max(...amounts);
    };
    const before = await best();
    simulator.setScenario("corridor_drain");
    expect(await best()).toBeUndefined();
    // The book changes as ledgers close: thin liquidity returns with the first ledger after the two minutes.
    clock.tick(LIQUIDITY_GONE_MS + 5_000);
    const after = await best();
    expect(after).toBeGreaterThan(0);
    // The maker quotes 30 % dearer; the hot wallet's few cheaper asks soften the rate a little.
    expect(after).toBeLessThan((before ?? 0) * 0.85);
    expect((after ?? 0) / 100).toBeLessThan(DEMO_CORRIDORS[0]!.minRate!);
  });

  it("reads the book /offers serves: the direct path crosses its asks, and goes when they do", async () => {
    const { simulator, clock } = simulatorAt();
    const asks = async () => {
      const { body } = await getJson<any>(simulator, `/offers?selling=native&buying=${USDC}&limit=200`);
      const records = body._embedded.records as any[];
      return records
        .map((record) => ({ price: Number(record.price), amount: Number(record.amount) }))
        .sort((a, b) => a.price - b.price);
    };
    const direct = async () => {
      const { body } = await sendUsdc(simulator, "100", "native");
      const records = body._embedded.records as any[];
      return { direct: records.find((record) => record.path.length === 0), hops: records.map((r) => r.path.length) };
    };
    // 100 USDC crossing the served asks, cheapest first, buys what the direct path says.
    let left = 100;
    let bought = 0;
    for (const ask of await asks()) {
      const taken = Math.min(ask.amount, left / ask.price);
      bought += taken;
      left -= taken * ask.price;
      if (left <= 1e-9) break;
    }
    const before = await direct();
    expect(Number(before.direct.destination_amount)).toBeCloseTo(bought, 5);
    // The maker withdraws its asks at the next ledger: /offers and the direct path lose them together
    // (the hot wallet's asks left cannot fill 100 USDC), while the route through EURC stays.
    simulator.setScenario("maker_stops_quoting");
    clock.tick(5_000);
    const remaining = await asks();
    expect(remaining.length).toBeGreaterThan(0);
    expect(remaining.reduce((sum, ask) => sum + ask.price * ask.amount, 0)).toBeLessThan(100);
    const after = await direct();
    expect(after.direct).toBeUndefined();
    expect(after.hops).toContain(1);
  });

  it("@stellar/stellar-sdk: strictSendPaths and strictReceivePaths read the served records", async () => {
    const { simulator } = simulatorAt();
    const server = await listen(simulator.app, "127.0.0.1", 0);
    try {
      const sdk = new Horizon.Server(server.url, { allowHttp: true });
      const usdc = new Asset("USDC", USDC_ISSUER);
      const sent = await sdk.strictSendPaths(usdc, "100", [Asset.native()]).call();
      const raw = await sendUsdc(simulator, "100", "native");
      expect(sent.records.map(({ destination_amount, path }) => ({ destination_amount, path }))).toEqual(
        raw.body._embedded.records.map(({ destination_amount, path }: any) => ({ destination_amount, path })),
      );
      const received = await sdk.strictReceivePaths([usdc], Asset.native(), "500").call();
      expect(received.records.length).toBeGreaterThan(0);
      expect(received.records[0]?.source_asset_code).toBe("USDC");
      expect(received.records[0]?.destination_amount).toBe("500.0000000");
    } finally {
      await server.close();
    }
  });
});
