import { describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { fixtureText, getJson, simulatorAt } from "./helpers.js";

interface Page {
  _links: { self: { href: string }; next: { href: string }; prev: { href: string } };
  _embedded: { records: Record<string, any>[] };
}

async function page(simulator: Simulator, path: string): Promise<Page> {
  const response = await getJson<Page>(simulator, path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The path and query of a link, to follow it with `app.request`. */
function pathOf(href: string): string {
  const url = new URL(href);
  return url.pathname + url.search;
}

function sequences(body: Page): number[] {
  return body._embedded.records.map((record) => record.sequence as number);
}

const token = (sequence: number): string => (BigInt(sequence) << 32n).toString();

describe("/ledgers paging", () => {
  it("starts at the oldest retained ledger, 10 per page, with Horizon's links", async () => {
    const { simulator } = simulatorAt();
    const { historyElderLedger } = simulator.state();
    const body = await page(simulator, "/ledgers");
    expect(sequences(body)).toEqual(Array.from({ length: 10 }, (_, i) => historyElderLedger + i));
    expect(body._links.self.href).toBe("http://localhost/ledgers?cursor=&limit=10&order=asc");
    expect(body._links.next.href).toBe(
      `http://localhost/ledgers?cursor=${token(historyElderLedger + 9)}&limit=10&order=asc`,
    );
    expect(body._links.prev.href).toBe(
      `http://localhost/ledgers?cursor=${token(historyElderLedger)}&limit=10&order=desc`,
    );
  });

  it("asc returns ledgers strictly after the cursor, desc strictly before", async () => {
    const { simulator } = simulatorAt();
    const middle = simulator.state().historyLatestLedger - 100;
    expect(sequences(await page(simulator, `/ledgers?cursor=${token(middle)}&limit=3`))).toEqual([
      middle + 1,
      middle + 2,
      middle + 3,
    ]);
    expect(sequences(await page(simulator, `/ledgers?cursor=${token(middle)}&limit=3&order=desc`))).toEqual([
      middle - 1,
      middle - 2,
      middle - 3,
    ]);
    // A token inside a ledger (an operation's id) pages from the next ledger up, or that ledger down.
    const inside = (BigInt(middle) << 32n) + 5n;
    expect(sequences(await page(simulator, `/ledgers?cursor=${inside}&limit=1`))).toEqual([middle + 1]);
    expect(sequences(await page(simulator, `/ledgers?cursor=${inside}&limit=1&order=desc`))).toEqual([middle]);
  });

  it("following next links visits consecutive ledgers up to the latest, then an empty page that keeps the cursor", async () => {
    const { simulator } = simulatorAt();
    const { historyLatestLedger } = simulator.state();
    let body = await page(simulator, `/ledgers?cursor=${token(historyLatestLedger - 450)}&limit=200`);
    const seen: number[] = [];
    while (body._embedded.records.length > 0) {
      seen.push(...sequences(body));
      body = await page(simulator, pathOf(body._links.next.href));
    }
    expect(seen).toEqual(Array.from({ length: 450 }, (_, i) => historyLatestLedger - 449 + i));
    expect(body._links.next.href).toBe(body._links.self.href);
    expect(body._links.prev.href).toBe(body._links.self.href.replace("order=asc", "order=desc"));
  });

  it("desc paging by next links walks down to the oldest ledger; past it Horizon answers 410", async () => {
    const { simulator } = simulatorAt();
    const { historyElderLedger, historyLatestLedger } = simulator.state();
    let path = "/ledgers?order=desc&limit=200";
    let expected = historyLatestLedger;
    while (expected >= historyElderLedger) {
      const body = await page(simulator, path);
      for (const sequence of sequences(body)) expect(sequence).toBe(expected--);
      path = pathOf(body._links.next.href);
    }
    expect(expected).toBe(historyElderLedger - 1);
    expect((await getJson(simulator, path)).status).toBe(410);
  });

  it("cursor=now: asc waits for the next ledger, desc starts at the latest", async () => {
    const { simulator, clock } = simulatorAt();
    const { historyLatestLedger } = simulator.state();
    const nowToken = ((BigInt(historyLatestLedger) << 32n) + 0xffffffffn).toString();
    const empty = await page(simulator, "/ledgers?cursor=now");
    expect(empty._embedded.records).toEqual([]);
    expect(empty._links.next.href).toBe(`http://localhost/ledgers?cursor=${nowToken}&limit=10&order=asc`);
    expect(sequences(await page(simulator, "/ledgers?cursor=now&order=desc&limit=2"))).toEqual([
      historyLatestLedger,
      historyLatestLedger - 1,
    ]);
    clock.tick(5000);
    expect(sequences(await page(simulator, `/ledgers?cursor=${nowToken}`))).toEqual([historyLatestLedger + 1]);
  });

  it("a desc cursor at or before the oldest retained ledger is 410 before_history; asc starts at the oldest", async () => {
    const { simulator } = simulatorAt();
    const { historyElderLedger } = simulator.state();
    const response = await getJson(simulator, `/ledgers?order=desc&cursor=${token(historyElderLedger)}`);
    expect(response.status).toBe(410);
    expect(response.text).toBe(fixtureText("error-before_history-horizon-src.json"));
    expect(sequences(await page(simulator, "/ledgers?cursor=8589934592&limit=1"))).toEqual([historyElderLedger]);
  });

  it("accepts limits 1 to 200 and rejects the rest with Horizon's reasons, in Horizon's order", async () => {
    const { simulator } = simulatorAt();
    expect(sequences(await page(simulator, "/ledgers?limit=200"))).toHaveLength(200);
    expect(sequences(await page(simulator, "/ledgers?limit=1"))).toHaveLength(1);
    const reason = async (query: string): Promise<unknown> => {
      const response = await getJson(simulator, `/ledgers?${query}`);
      expect(response.status).toBe(400);
      return response.body.extras;
    };
    expect(await reason("limit=0")).toEqual({
      invalid_field: "limit",
      reason: "invalid limit: non-positive value provided",
    });
    expect(await reason("limit=-3")).toEqual({
      invalid_field: "limit",
      reason: "invalid limit: non-positive value provided",
    });
    expect(await reason("limit=99999999999999999999")).toEqual({ invalid_field: "limit", reason: "unparseable value" });
    expect(await reason("cursor=-5")).toEqual({
      invalid_field: "cursor",
      reason: "the cursor -5 is a negative number: ",
    });
    expect(await reason("cursor=99999999999999999999")).toEqual({
      invalid_field: "cursor",
      reason: "cursor: invalid value",
    });
    // Horizon reads the limit before validating order and cursor.
    expect(await reason("limit=abc&order=up&cursor=x")).toEqual({
      invalid_field: "limit",
      reason: "unparseable value",
    });
    expect(await reason("order=up&cursor=x")).toEqual({ invalid_field: "order", reason: "order: invalid value" });
  });

  it("single ledgers: by sequence, under /ledger too, 400 for a bad id, 410 before history, 404 after", async () => {
    const { simulator } = simulatorAt();
    const { historyLatestLedger, historyElderLedger } = simulator.state();
    expect((await getJson(simulator, `/ledgers/${historyLatestLedger}`)).body.sequence).toBe(historyLatestLedger);
    expect((await getJson(simulator, `/ledger/${historyElderLedger}`)).body.sequence).toBe(historyElderLedger);
    expect((await getJson(simulator, `/ledgers/${historyLatestLedger}/`)).status).toBe(200);
    const bad = await getJson(simulator, "/ledgers/abc");
    expect(bad.status).toBe(400);
    expect(bad.body.extras).toEqual({
      invalid_field: "ledger_id",
      reason: "Ledger ID must be an integer higher than 0",
    });
    expect((await getJson(simulator, `/ledgers/${historyElderLedger - 1}`)).status).toBe(410);
    expect((await getJson(simulator, `/ledgers/${historyLatestLedger + 1}`)).text).toBe(
      fixtureText("error-not_found-horizon-src.json"),
    );
  });
});

describe("/liquidity_pools paging and filters", () => {
  async function allPools(simulator: Simulator, firstPath: string): Promise<string[]> {
    const ids: string[] = [];
    let body = await page(simulator, firstPath);
    while (body._embedded.records.length > 0) {
      ids.push(...body._embedded.records.map((record) => record.id as string));
      body = await page(simulator, pathOf(body._links.next.href));
    }
    return ids;
  }

  it("cursor paging visits every pool exactly once, in id order, both ways", async () => {
    const { simulator } = simulatorAt({ pools: 437 });
    const ascending = await allPools(simulator, "/liquidity_pools?limit=50");
    expect(ascending).toHaveLength(437);
    expect(new Set(ascending).size).toBe(437);
    expect(ascending).toEqual([...ascending].sort());
    expect(await allPools(simulator, "/liquidity_pools?limit=33&order=desc")).toEqual([...ascending].reverse());
  });

  it("10 000 pools page through at 200 per page", async () => {
    const { simulator } = simulatorAt({ pools: 10_000 });
    const started = performance.now();
    const ids = await allPools(simulator, "/liquidity_pools?limit=200");
    const elapsedMs = performance.now() - started;
    expect(ids).toHaveLength(10_000);
    expect(new Set(ids).size).toBe(10_000);
    // Generous bound for a shared 2-core machine; the work per page is O(page).
    expect(elapsedMs).toBeLessThan(10_000);
  });

  it("filters by reserves: every pool holding all listed assets, nothing else", async () => {
    const { simulator } = simulatorAt({ pools: 300 });
    const everything = simulator.pools.pools;
    const withNative = await allPools(simulator, "/liquidity_pools?reserves=native&limit=200");
    expect(withNative).toEqual(everything.filter((pool) => pool.assets.includes("native")).map((pool) => pool.id));
    expect(withNative.length).toBeGreaterThan(0);

    const target = everything.find((pool) => pool.assets[0] !== "native") ?? everything[0];
    const [assetA = "", assetB = ""] = target?.assets ?? [];
    const both = await page(simulator, `/liquidity_pools?reserves=${assetA},${assetB}`);
    expect(both._embedded.records.map((record) => record.id)).toEqual([target?.id]);
    expect(both._links.self.href).toBe(
      `http://localhost/liquidity_pools?cursor=&limit=10&order=asc&reserves=${encodeURIComponent(`${assetA},${assetB}`)}`,
    );
    const single = await allPools(simulator, `/liquidity_pools?reserves=${assetB},${assetB}&limit=7`);
    expect(single).toEqual(everything.filter((pool) => pool.assets.includes(assetB)).map((pool) => pool.id));

    const third = everything.flatMap((pool) => pool.assets).find((asset) => asset !== assetA && asset !== assetB);
    expect((await page(simulator, `/liquidity_pools?reserves=${assetA},${assetB},${third}`))._embedded.records).toEqual(
      [],
    );
  });

  it.each([
    "XLM",
    "USDC",
    "USDC:GABC",
    "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVM",
    "TOOLONGASSETCODE:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN",
  ])("reserves=%s is rejected with Horizon's reserves_invalid body", async (reserves) => {
    const { simulator } = simulatorAt();
    const response = await getJson(simulator, `/liquidity_pools?reserves=${reserves}`);
    expect(response.status).toBe(400);
    expect(response.text).toBe(fixtureText("error-bad_request-reserves_invalid-horizon-src.json"));
  });

  it("a real issuer is accepted even when no pool holds it", async () => {
    const { simulator } = simulatorAt();
    const body = await page(
      simulator,
      "/liquidity_pools?reserves=USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN",
    );
    expect(body._embedded.records).toEqual([]);
  });

  it("single pools: by id, 404 for unknown ids, 400 for ids that are not SHA-256 hex", async () => {
    const { simulator } = simulatorAt();
    const listed = (await page(simulator, "/liquidity_pools?limit=1"))._embedded.records[0];
    const single = await getJson(simulator, `/liquidity_pools/${listed?.id}`);
    expect(single.body).toEqual(listed);
    expect(single.headers.get("Latest-Ledger")).toBe(String(simulator.state().ingestLatestLedger));
    expect((await getJson(simulator, `/liquidity_pools/${"0".repeat(64)}`)).status).toBe(404);
    const bad = await getJson(simulator, "/liquidity_pools/xyz");
    expect(bad.status).toBe(400);
    expect(bad.body.extras).toEqual({ invalid_field: "liquidity_pool_id", reason: "xyz does not validate as sha256" });
  });
});
