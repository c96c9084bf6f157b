import { describe, expect, it, vi } from "vitest";
import { LedgerFactory } from "../../src/simulator/ledgers.js";
import { drawFault } from "../../src/simulator/http-faults.js";
import { SCENARIOS, type Simulator } from "../../src/simulator/index.js";
import { createRng } from "../../src/simulator/rng.js";
import { fixtureText, getJson, simulatorAt } from "./helpers.js";

const INTERVAL_MS = 5000;

function lag(simulator: Simulator): number {
  const { coreLatestLedger, ingestLatestLedger } = simulator.state();
  return coreLatestLedger - ingestLatestLedger;
}

/** Advances one ledger close at a time, recording the ingestion lag after each. */
function lagsOver(simulator: Simulator, closes: number): number[] {
  return Array.from({ length: closes }, () => {
    simulator.advance(INTERVAL_MS);
    return lag(simulator);
  });
}

describe("time", () => {
  it("moves only with the clock: an injected clock or advance()", async () => {
    const { simulator, clock } = simulatorAt();
    const start = simulator.state();
    expect((await getJson(simulator, "/")).body.core_latest_ledger).toBe(start.coreLatestLedger);
    clock.tick(INTERVAL_MS * 3);
    expect((await getJson(simulator, "/")).body.core_latest_ledger).toBe(start.coreLatestLedger + 3);
    simulator.advance(INTERVAL_MS * 2);
    const root = (await getJson(simulator, "/")).body;
    expect(root.core_latest_ledger).toBe(start.coreLatestLedger + 5);
    expect(root.history_latest_ledger).toBe(start.coreLatestLedger + 5);
    expect(root.ingest_latest_ledger).toBe(start.coreLatestLedger + 5);
    expect(Date.parse(root.history_latest_ledger_closed_at)).toBeLessThanOrEqual(simulator.now());
  });

  it("closes ledgers every 5 to 7 s by default", async () => {
    const { simulator } = simulatorAt({ ledgerIntervalMs: undefined });
    const { body } = await getJson(simulator, "/ledgers?order=desc&limit=200");
    const times = (body._embedded.records as { closed_at: string }[]).map((record) => Date.parse(record.closed_at));
    const gaps = times.slice(1).map((time, index) => (times[index] ?? 0) - time);
    // Close times have second precision, so a 5.0-7.0 s interval shows as 4 to 8 s.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(4000);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(8000);
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    expect(mean).toBeGreaterThan(5400);
    expect(mean).toBeLessThan(6600);
    expect(simulator.state().ledgerIntervalMs).toEqual({ min: 5000, max: 7000 });
  });

  it("keeps a bounded ring of ledgers under millisecond ledgers, the oldest retained ledger moving up", async () => {
    const { simulator } = simulatorAt({ ledgerIntervalMs: 1 });
    const before = simulator.state();
    simulator.advance(25_000);
    const after = simulator.state();
    expect(after.historyLatestLedger).toBe(before.historyLatestLedger + 25_000);
    expect(after.historyLatestLedger - after.historyElderLedger + 1).toBe(20_000);
    expect((await getJson(simulator, `/ledgers/${after.historyElderLedger - 1}`)).status).toBe(410);
    const oldest = await getJson(simulator, "/ledgers?limit=2");
    expect(oldest.body._embedded.records.map((record: { sequence: number }) => record.sequence)).toEqual([
      after.historyElderLedger,
      after.historyElderLedger + 1,
    ]);
  });

  it("jumps hours of millisecond ledgers without materialising the ones it would forget", async () => {
    const { simulator } = simulatorAt({ ledgerIntervalMs: 1 });
    const before = simulator.state();
    const close = vi.spyOn(LedgerFactory.prototype, "close");
    simulator.advance(60 * 60 * 1000);
    // Only the retained window is closed one by one; the rest of the 3 600 000 ledgers are skipped.
    expect(close.mock.calls.length).toBeLessThanOrEqual(20_000);
    close.mockRestore();
    const after = simulator.state();
    expect(after.historyLatestLedger).toBe(before.historyLatestLedger + 3_600_000);
    expect(after.historyLatestLedger - after.historyElderLedger + 1).toBe(20_000);
    const { body } = await getJson(simulator, "/ledgers?order=desc&limit=3");
    const [newest, middle] = body._embedded.records as { hash: string; prev_hash: string }[];
    expect(newest?.prev_hash).toBe(middle?.hash);
  });
});

describe("scenarios", () => {
  it("exports every scenario name and rejects unknown ones", () => {
    const { simulator } = simulatorAt();
    expect(SCENARIOS).toContain("healthy");
    expect(SCENARIOS).toHaveLength(29);
    for (const name of SCENARIOS) {
      simulator.setScenario(name);
      expect(simulator.scenario).toBe(name);
    }
    expect(() => simulator.setScenario("meltdown")).toThrow(/unknown scenario "meltdown"/);
  });

  it("ingest_lag: the lag grows steadily to about 50 ledgers and holds; back to healthy it shrinks by 4 per close", () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("ingest_lag");
    const growing = lagsOver(simulator, 80);
    growing.slice(1).forEach((value, index) => expect(value).toBeGreaterThanOrEqual(growing[index] ?? 0));
    expect(growing[9]).toBeGreaterThanOrEqual(7);
    expect(Math.max(...growing)).toBe(50);
    expect(lagsOver(simulator, 20)).toEqual(Array(20).fill(50));
    // History and ingestion fall behind together; core keeps going.
    const state = simulator.state();
    expect(state.historyLatestLedger).toBe(state.ingestLatestLedger);

    simulator.setScenario("healthy");
    const recovering = lagsOver(simulator, 14);
    expect(recovering.slice(0, 4)).toEqual([46, 42, 38, 34]);
    expect(recovering.at(-1)).toBe(0);
  });

  it("ingestion_stalled: core advances, ingestion and history do not", async () => {
    const { simulator } = simulatorAt();
    const before = simulator.state();
    simulator.setScenario("ingestion_stalled");
    simulator.advance(INTERVAL_MS * 30);
    const root = (await getJson(simulator, "/")).body;
    expect(root.core_latest_ledger).toBe(before.coreLatestLedger + 30);
    expect(root.ingest_latest_ledger).toBe(before.ingestLatestLedger);
    expect(root.history_latest_ledger).toBe(before.historyLatestLedger);
    const latest = await getJson(simulator, "/ledgers?order=desc&limit=1");
    expect(latest.body._embedded.records[0].sequence).toBe(before.historyLatestLedger);
  });

  it("ingestion_stalled longer than the retained window, then recovery: history stays consecutive and chained", async () => {
    const { simulator } = simulatorAt({ ledgerIntervalMs: 1 });
    simulator.setScenario("ingestion_stalled");
    simulator.advance(30_000);
    expect(lag(simulator)).toBe(30_000);
    simulator.setScenario("healthy");
    simulator.advance(5_000);
    expect(lag(simulator)).toBe(30_000 + 5_000 - 5_000 * 5);
    // The oldest retained ledgers closed while core was further ahead than the pending window.
    let path = "/ledgers?limit=200";
    let previous: { sequence: number; closed_at: string; hash: string } | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const { body } = await getJson(simulator, path);
      for (const record of body._embedded.records as {
        sequence: number;
        closed_at: string;
        prev_hash: string;
        hash: string;
      }[]) {
        if (previous !== undefined) {
          expect(record.sequence).toBe(previous.sequence + 1);
          expect(record.prev_hash).toBe(previous.hash);
          expect(Date.parse(record.closed_at)).toBeGreaterThanOrEqual(Date.parse(previous.closed_at));
        }
        previous = record;
      }
      path = new URL(body._links.next.href).pathname + new URL(body._links.next.href).search;
    }
    expect(previous?.sequence).toBe(simulator.state().historyLatestLedger);
  });

  it("network_halt: nothing advances; on resume the next ledger closes one interval later", () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("network_halt");
    const halted = simulator.state();
    simulator.advance(10 * 60 * 1000);
    expect(simulator.state()).toMatchObject({
      coreLatestLedger: halted.coreLatestLedger,
      ingestLatestLedger: halted.ingestLatestLedger,
      historyLatestLedger: halted.historyLatestLedger,
    });
    simulator.setScenario("healthy");
    simulator.advance(INTERVAL_MS - 1);
    expect(simulator.state().coreLatestLedger).toBe(halted.coreLatestLedger);
    simulator.advance(1);
    expect(simulator.state().coreLatestLedger).toBe(halted.coreLatestLedger + 1);
  });

  it("fee_spike: capacity near 1 and fees 50 times higher once the 5-ledger window is all surge", async () => {
    const { simulator } = simulatorAt();
    const calm = (await getJson(simulator, "/fee_stats")).body;
    expect(Number(calm.ledger_capacity_usage)).toBeLessThan(0.95);
    simulator.setScenario("fee_spike");
    simulator.advance(INTERVAL_MS * 5);
    const surge = (await getJson(simulator, "/fee_stats")).body;
    expect(Number(surge.ledger_capacity_usage)).toBeGreaterThanOrEqual(0.98);
    expect(surge.last_ledger).toBe(String(simulator.state().historyLatestLedger));
    expect(surge.last_ledger_base_fee).toBe("100");
    expect(calm.fee_charged.p50).toBe("100");
    expect(Number(surge.fee_charged.p50)).toBe(50 * Number(calm.fee_charged.p50));
    expect(Number(surge.fee_charged.min)).toBe(50 * Number(calm.fee_charged.min));
    expect(Number(surge.max_fee.min)).toBe(50 * Number(calm.max_fee.min));
    for (const key of Object.keys(surge.max_fee)) expect(Number(surge.max_fee[key])).toBeGreaterThanOrEqual(5000);
  });

  it("protocol_upgrade_pending: core and Horizon support the next protocol before the network votes", async () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("protocol_upgrade_pending");
    const root = (await getJson(simulator, "/")).body;
    expect(root.current_protocol_version).toBe(28);
    expect(root.core_supported_protocol_version).toBe(29);
    expect(root.supported_protocol_version).toBe(29);
    expect(root.core_version).toMatch(/^stellar-core 29\./);
  });

  it("unsupported_protocol: the network runs a protocol above what Horizon supports", async () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("unsupported_protocol");
    simulator.advance(INTERVAL_MS);
    const root = (await getJson(simulator, "/")).body;
    expect(root.current_protocol_version).toBeGreaterThan(root.supported_protocol_version);
    expect(root.current_protocol_version).toBe(29);
    const ledger = (await getJson(simulator, `/ledgers/${root.history_latest_ledger}`)).body;
    expect(ledger.protocol_version).toBe(29);
  });

  it("rate_limited: every request gets 429 with Retry-After and an empty quota; control endpoints still work", async () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("rate_limited");
    for (const path of ["/", "/fee_stats", "/ledgers", "/liquidity_pools", "/nope"]) {
      const response = await getJson(simulator, path);
      expect(response.status).toBe(429);
      expect(response.text).toBe(fixtureText("error-rate_limit_exceeded-horizon-src.json"));
      // START_MS is 24 s into a minute: the quota comes back in 36 s.
      expect(response.headers.get("Retry-After")).toBe("36");
      expect(response.headers.get("X-Ratelimit-Reset")).toBe("36");
      expect(response.headers.get("X-Ratelimit-Remaining")).toBe("0");
      expect(response.headers.get("X-Ratelimit-Limit")).toBe("101");
    }
    expect((await getJson(simulator, "/_sim/state")).body.scenario).toBe("rate_limited");
    simulator.setScenario("healthy");
    expect((await getJson(simulator, "/")).status).toBe(200);
  });

  it("flapping: about half the requests fail, each failure kind drawn for this seed", () => {
    const rng = createRng(3);
    const draws = Array.from({ length: 1000 }, () => drawFault(rng));
    const failures = draws.filter((fault) => fault !== undefined);
    expect(failures.length).toBeGreaterThan(430);
    expect(failures.length).toBeLessThan(570);
    expect(new Set(failures)).toEqual(new Set(["server_error", "timeout", "over_capacity", "hang"]));
  });

  it("old_horizon: older shapes for root, ledgers and pools", async () => {
    const { simulator } = simulatorAt();
    simulator.setScenario("old_horizon");
    const root = (await getJson(simulator, "/")).body;
    expect(root).toHaveProperty("service_version");
    expect(root).not.toHaveProperty("horizon_version");
    expect(root).not.toHaveProperty("supported_protocol_version");
    const ledger = (await getJson(simulator, "/ledgers?order=desc&limit=1")).body._embedded.records[0];
    expect(ledger.failed_transaction_count).toBeNull();
    expect(ledger).not.toHaveProperty("tx_set_operation_count");
    expect(
      (await getJson(simulator, "/liquidity_pools?limit=1")).body._embedded.records[0].last_modified_time,
    ).toBeNull();
    simulator.setScenario("healthy");
    expect((await getJson(simulator, "/")).body).toHaveProperty("supported_protocol_version");
  });

  it("network_reset: sequences restart near genesis with new hashes and tokens, then advance normally", async () => {
    const { simulator } = simulatorAt();
    const oldLatest = (await getJson(simulator, "/ledgers?order=desc&limit=1")).body._embedded.records[0];
    simulator.setScenario("network_reset");
    const root = (await getJson(simulator, "/")).body;
    expect(root).toMatchObject({
      core_latest_ledger: 4,
      history_latest_ledger: 4,
      ingest_latest_ledger: 4,
      history_elder_ledger: 2,
    });
    const first = (await getJson(simulator, "/ledgers?limit=1")).body._embedded.records[0];
    expect(first).toMatchObject({ sequence: 2, paging_token: "8589934592", total_coins: "100000000000.0000000" });
    expect(first.hash).not.toBe(oldLatest.hash);
    simulator.advance(INTERVAL_MS * 3);
    const ledgers = (await getJson(simulator, "/ledgers")).body._embedded.records as {
      sequence: number;
      hash: string;
      prev_hash: string;
    }[];
    expect(ledgers.map((ledger) => ledger.sequence)).toEqual([2, 3, 4, 5, 6, 7]);
    ledgers.slice(1).forEach((ledger, index) => expect(ledger.prev_hash).toBe(ledgers[index]?.hash));
    expect(simulator.scenario).toBe("network_reset");
    expect((await getJson(simulator, `/ledgers/${oldLatest.sequence}`)).status).toBe(404);
  });

  it("pool_drain: the first pool loses 90% of its reserves and shares, and stays drained", async () => {
    const { simulator } = simulatorAt({ seed: 11 });
    const twin = simulatorAt({ seed: 11 }).simulator;
    const firstId = simulator.pools.pools[0]?.id;
    const before = (await getJson(simulator, `/liquidity_pools/${firstId}`)).body;
    simulator.setScenario("pool_drain");
    const drained = (await getJson(simulator, `/liquidity_pools/${firstId}`)).body;
    const tenth = (amount: string): bigint => (BigInt(amount.replace(".", "")) + 5n) / 10n;
    const stroops = (amount: string): bigint => BigInt(amount.replace(".", ""));
    expect(stroops(drained.reserves[0].amount)).toBe(tenth(before.reserves[0].amount));
    expect(stroops(drained.reserves[1].amount)).toBe(tenth(before.reserves[1].amount));
    expect(stroops(drained.total_shares)).toBe(tenth(before.total_shares));
    expect(simulator.state().drainedPoolId).toBe(firstId);

    simulator.setScenario("healthy");
    simulator.advance(INTERVAL_MS * 200);
    twin.advance(INTERVAL_MS * 200);
    const later = (await getJson(simulator, `/liquidity_pools/${firstId}`)).body;
    const undrained = (await getJson(twin, `/liquidity_pools/${firstId}`)).body;
    expect(stroops(later.reserves[0].amount)).toBe(tenth(undrained.reserves[0].amount));
    const secondId = simulator.pools.pools[1]?.id;
    expect((await getJson(simulator, `/liquidity_pools/${secondId}`)).body).toEqual(
      (await getJson(twin, `/liquidity_pools/${secondId}`)).body,
    );
  });

  it("pools random-walk lazily as ledgers close: reserves and last_modified_ledger change over an hour", async () => {
    const { simulator } = simulatorAt();
    const before = (await getJson(simulator, "/liquidity_pools?limit=50")).body._embedded.records as Record<
      string,
      any
    >[];
    simulator.advance(60 * 60 * 1000);
    const after = (await getJson(simulator, "/liquidity_pools?limit=50")).body._embedded.records as Record<
      string,
      any
    >[];
    const changed = after.filter((pool, index) => pool.reserves[0].amount !== before[index]?.reserves[0].amount);
    expect(changed.length).toBeGreaterThan(25);
    for (const [index, pool] of after.entries()) {
      expect(pool.last_modified_ledger).toBeGreaterThanOrEqual(before[index]?.last_modified_ledger);
    }
  });

  it("scenario changes over HTTP take effect for the next request; unknown names are 404 problems", async () => {
    const { simulator } = simulatorAt();
    const switched = await getJson(simulator, "/_sim/scenario/ingestion_stalled", { method: "POST" });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({
      scenario: "ingestion_stalled",
      pools: 50,
      ledgerIntervalMs: { min: 5000, max: 5000 },
    });
    const unknown = await getJson(simulator, "/_sim/scenario/meltdown", { method: "POST" });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("Content-Type")).toBe("application/problem+json; charset=utf-8");
    expect(unknown.body).toMatchObject({ type: "https://stellar.org/horizon-errors/not_found", status: 404 });
    expect(unknown.body.detail).toContain("meltdown");
    const state = (await getJson(simulator, "/_sim/state")).body;
    expect(state).toMatchObject({
      scenario: "ingestion_stalled",
      seed: 1,
      networkPassphrase: "Public Global Stellar Network ; September 2015",
      currentProtocolVersion: 28,
      supportedProtocolVersion: 28,
      coreSupportedProtocolVersion: 28,
      hangingRequests: 0,
      heldSubmissions: 0,
      drainedPoolId: null,
    });
  });
});
