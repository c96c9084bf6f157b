import { afterEach, describe, expect, it } from "vitest";
import { valueOf } from "./support/exposition.js";
import { configFrom, startHarness, type Harness } from "./support/exporter-harness.js";
import { FakeHorizon, makeLedger, makePool } from "./support/fake-horizon.js";

const H = { horizon: "test" };
const MALFORMED = { total_coins: 12 };
let horizon: FakeHorizon;
let harness: Harness | undefined;

async function start(extraArgs: string[] = []): Promise<Harness> {
  const url = await horizon.start();
  harness = await startHarness(await configFrom([`--horizon.url=test=${url}`, "--poll.interval=1h", ...extraArgs]));
  return harness;
}

afterEach(async () => {
  await harness?.exporter.close();
  harness = undefined;
  await horizon.stop();
});

/** Appends ledgers up to `last`; every seventh one violates the schema. */
function addLedgersUpTo(last: number): void {
  const first = ((horizon.ledgers.at(-1)?.sequence as number | undefined) ?? 0) + 1;
  for (let sequence = first; sequence <= last; sequence += 1) {
    horizon.ledgers.push(makeLedger(sequence, sequence % 7 === 0 ? MALFORMED : {}));
  }
}

/** Ascending page requests per cursor: each cursor must be asked for once, or the same records were read twice. */
function cursorsAskedTwice(): string[] {
  const counts = new Map<string, number>();
  for (const url of horizon.requestsTo("/ledgers")) {
    if (url.searchParams.get("order") !== "asc") continue;
    const cursor = url.searchParams.get("cursor")!;
    counts.set(cursor, (counts.get(cursor) ?? 0) + 1);
  }
  // The cursor of the last page is asked for again by the next poll only when that page was empty.
  return [...counts].filter(([, count]) => count > 1).map(([cursor]) => cursor);
}

describe("ledger paging accounts for every ledger exactly once", () => {
  it("with one malformed ledger in seven, at page ends and across pages", async () => {
    horizon = new FakeHorizon();
    addLedgersUpTo(10);
    const { exporter, scrape } = await start();
    // Page ends land on good and bad ledgers alike: 14 and 21 are malformed, 440 crosses two full pages.
    for (const last of [14, 20, 21, 22, 440, 441, 448, 455]) {
      addLedgersUpTo(last);
      await exporter.pollAll();
      const values = await scrape();
      const read = last - 10;
      const bad = Math.floor(last / 7) - 1;
      expect(valueOf(values, "stellar_horizon_ledgers_total", H), `up to ${last}`).toBe(1 + read - bad);
      expect(
        valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "ledgers" }),
        `up to ${last}`,
      ).toBe(bad);
      expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H), `up to ${last}`).toBe(bad);
      const lastGood = last % 7 === 0 ? last - 1 : last;
      expect(valueOf(values, "stellar_horizon_ledger_sequence", H), `up to ${last}`).toBe(lastGood);
    }
    expect(cursorsAskedTwice()).toEqual([]);
  });

  it("moves past whole pages of invalid ledgers without fetching them again", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const { exporter, scrape } = await start();
    horizon.addLedgers(450, MALFORMED);
    await exporter.pollAll();
    await exporter.pollAll();
    let values = await scrape();
    expect(valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "ledgers" })).toBe(450);
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(450);
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(1);

    horizon.addLedgers(2);
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(455);
    expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(3);
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(450);
    expect(valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "ledgers" })).toBe(450);
    // The only cursor asked twice is the one after the invalid pages, whose next page was empty.
    expect(cursorsAskedTwice()).toEqual([makeLedger(453).paging_token]);
  });

  it("counts each ledger once when every page starts again with the ledger at the cursor, across two polls", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(10);
    const { exporter, scrape } = await start();
    horizon.repeatCursorLedger = true;
    // Each ledger of the capture: 140 successful and 276 failed transactions, 553 operations.
    const counted = async () => {
      const values = await scrape();
      return {
        ledgers: valueOf(values, "stellar_horizon_ledgers_total", H),
        successful: valueOf(values, "stellar_horizon_transactions_total", { ...H, result: "successful" }),
        failed: valueOf(values, "stellar_horizon_transactions_total", { ...H, result: "failed" }),
        operations: valueOf(values, "stellar_horizon_operations_total", H),
        skipped: valueOf(values, "stellar_horizon_ledgers_skipped_total", H),
        sequence: valueOf(values, "stellar_horizon_ledger_sequence", H),
      };
    };
    /** What `ledgers` ledgers of the capture count, the newest being `sequence`, none skipped. */
    const totals = (ledgers: number, sequence: number) => ({
      ledgers,
      successful: ledgers * 140,
      failed: ledgers * 276,
      operations: ledgers * 553,
      skipped: 0,
      sequence,
    });
    // The first poll read ledger 10 alone.
    expect(await counted()).toEqual(totals(1, 10));

    // 250 new ledgers: a full page of the repeated 10 and 11..209, then 209 again and 210..260.
    horizon.addLedgers(250);
    await exporter.pollAll();
    expect(await counted()).toEqual(totals(251, 260));
    const ascending = horizon.requestsTo("/ledgers").filter((url) => url.searchParams.get("order") === "asc");
    expect(ascending.map((url) => url.searchParams.get("cursor"))).toEqual([
      makeLedger(10).paging_token,
      makeLedger(209).paging_token,
    ]);

    // Three more: 260 again, then 261..263.
    horizon.addLedgers(3);
    await exporter.pollAll();
    expect(await counted()).toEqual(totals(254, 263));
    expect(
      valueOf(await scrape(), "stellar_horizon_exporter_poll_errors_total", {
        ...H,
        endpoint: "ledgers",
        reason: "paging",
      }),
    ).toBe(0);
  });

  it("fails the poll with reason paging when a full page does not move the cursor", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const { exporter, scrape } = await start();
    const stuck = Array.from({ length: 200 }, () => makeLedger(3, MALFORMED));
    horizon.faults.set("/ledgers", {
      status: 200,
      body: JSON.stringify({ _links: {}, _embedded: { records: stuck } }),
      headers: { "Content-Type": "application/hal+json" },
    });
    await exporter.pollAll();
    const values = await scrape();
    expect(
      valueOf(values, "stellar_horizon_exporter_poll_errors_total", { ...H, endpoint: "ledgers", reason: "paging" }),
    ).toBe(1);
    expect(valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "ledgers" })).toBe(0);
    expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBeUndefined();
  });
});

describe("the ledgers job's cursor follows the rules of the activity and markets jobs", () => {
  const counted = async ({ scrape }: Harness) => {
    const values = await scrape();
    return {
      ledgers: valueOf(values, "stellar_horizon_ledgers_total", H),
      invalid: valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "ledgers" }),
      skipped: valueOf(values, "stellar_horizon_ledgers_skipped_total", H),
      sequence: valueOf(values, "stellar_horizon_ledger_sequence", H),
      paging: valueOf(values, "stellar_horizon_exporter_poll_errors_total", {
        ...H,
        endpoint: "ledgers",
        reason: "paging",
      }),
    };
  };
  const ascendingCursors = () =>
    horizon
      .requestsTo("/ledgers")
      .filter((url) => url.searchParams.get("order") === "asc")
      .map((url) => url.searchParams.get("cursor"));

  it("takes a page holding only the ledger at the cursor as nothing newer, poll after poll", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(10);
    const started = await start();
    horizon.repeatCursorLedger = true;
    await started.exporter.pollAll();
    await started.exporter.pollAll();
    expect(await counted(started)).toEqual({ ledgers: 1, invalid: 0, skipped: 0, sequence: 10, paging: 0 });
    horizon.addLedgers(2);
    await started.exporter.pollAll();
    expect(await counted(started)).toEqual({ ledgers: 3, invalid: 0, skipped: 0, sequence: 12, paging: 0 });
    expect(ascendingCursors()).toEqual([10, 10, 10].map((sequence) => makeLedger(sequence).paging_token));
  });

  it("counts a ledger whose token cannot be the cursor once, and moves past it with a later ledger", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(10);
    const started = await start();
    // Ledger 12's token is its sequence's, but its sequence is no number: it cannot be the cursor.
    horizon.ledgers.push(makeLedger(11), makeLedger(12, { sequence: "12" }));
    await started.exporter.pollAll();
    expect(await counted(started)).toEqual({ ledgers: 2, invalid: 1, skipped: 1, sequence: 11, paging: 0 });
    await started.exporter.pollAll();
    await started.exporter.pollAll();
    expect(await counted(started)).toEqual({ ledgers: 2, invalid: 1, skipped: 1, sequence: 11, paging: 0 });
    horizon.ledgers.push(makeLedger(13));
    await started.exporter.pollAll();
    await started.exporter.pollAll();
    expect(await counted(started)).toEqual({ ledgers: 3, invalid: 1, skipped: 1, sequence: 13, paging: 0 });
    const tokens = [10, 11, 11, 11, 13].map((sequence) => makeLedger(sequence).paging_token);
    expect(ascendingCursors()).toEqual(tokens);
  });
});

describe("pool paging", () => {
  it("follows pages past invalid pools at page ends and whole invalid pages, counting each once", async () => {
    horizon = new FakeHorizon();
    // 1..600: pools 200 and 400 end a page and are invalid; 201..400 are all invalid.
    for (let index = 1; index <= 600; index += 1) {
      const invalid = index === 200 || (index > 200 && index <= 400);
      horizon.pools.push(makePool(index, invalid ? { total_shares: 5 } : {}));
    }
    const { scrape } = await start(["--pools.max=1000"]);
    const values = await scrape();
    expect(valueOf(values, "stellar_horizon_liquidity_pools", H)).toBe(399);
    expect(
      valueOf(values, "stellar_horizon_exporter_invalid_records_total", { ...H, endpoint: "liquidity_pools" }),
    ).toBe(201);
    expect(
      valueOf(values, "stellar_horizon_liquidity_pool_shares", { ...H, pool_id: makePool(600).id as string }),
    ).toBe(1600.5);
    const cursors = horizon.requestsTo("/liquidity_pools").map((url) => url.searchParams.get("cursor"));
    expect(cursors).toEqual([null, makePool(200).id, makePool(400).id, makePool(600).id]);
  });
});
