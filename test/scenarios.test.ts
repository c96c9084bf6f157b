import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ENDPOINTS } from "../src/catalog/metrics.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { HOT_WALLET, startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";

/** The exporter against the simulator, one test per scenario; simulated time moves only when told. */
const LEDGER_MS = 5_000;
const H = { horizon: "sim" };
let simulator: RunningSimulator;
let exporter: RunningExporter;

async function start(scenario = "healthy", flags: string[] = []): Promise<void> {
  // A frozen clock: simulated time moves only through advance().
  const clock = Date.UTC(2026, 0, 1);
  simulator = await startSimulator({ scenario, ledgerIntervalMs: LEDGER_MS, pools: 10, seed: 3, now: () => clock });
  const config = await configFrom([
    `--horizon.url=sim=${simulator.url}`,
    "--poll.interval=1h",
    "--pools.max=10",
    ...flags,
  ]);
  exporter = await startExporter(
    { ...config, retries: 0, targets: config.targets.map((target) => ({ ...target, timeoutMs: 1_000 })) },
    { logger: pino({ level: "silent" }) },
  );
  await exporter.firstPolls;
}

async function ledgersPass(count: number): Promise<Map<string, number>> {
  simulator.simulator.advance(count * LEDGER_MS);
  await exporter.pollAll();
  return parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
}

const get = (values: Map<string, number>, name: string, labels: Record<string, string> = {}) =>
  valueOf(values, name, { ...H, ...labels });

function sumOverEndpoints(values: Map<string, number>, name: string, labels: Record<string, string>): number {
  return ENDPOINTS.reduce((sum, endpoint) => sum + (get(values, name, { endpoint, ...labels }) ?? 0), 0);
}

afterEach(async () => {
  await exporter.close();
  await simulator.close();
});

describe("the exporter follows every simulator scenario", () => {
  it("healthy: ledgers flow, nothing lags", async () => {
    await start();
    const before = await ledgersPass(0);
    const after = await ledgersPass(10);
    expect(get(after, "stellar_horizon_up")).toBe(1);
    expect(get(after, "stellar_horizon_ingest_lag_ledgers")).toBe(0);
    expect(get(after, "stellar_horizon_ledgers_total")! - get(before, "stellar_horizon_ledgers_total")!).toBe(10);
    expect(get(after, "stellar_horizon_ledger_sequence")! - get(before, "stellar_horizon_ledger_sequence")!).toBe(10);
    expect(
      get(after, "stellar_horizon_ledger_close_interval_seconds_sum")! /
        get(after, "stellar_horizon_ledger_close_interval_seconds_count")!,
    ).toBe(5);
    expect(get(after, "stellar_horizon_ledgers_skipped_total")).toBe(0);
  });

  it("ingest_lag: the lag grows to about 50 ledgers", async () => {
    await start();
    simulator.simulator.setScenario("ingest_lag");
    const values = await ledgersPass(100);
    expect(get(values, "stellar_horizon_ingest_lag_ledgers")).toBe(50);
    expect(
      get(values, "stellar_horizon_core_latest_ledger")! - get(values, "stellar_horizon_ingest_latest_ledger")!,
    ).toBe(50);
  });

  it("ingestion_stalled: core advances, ingestion and the ledger stream stop", async () => {
    await start();
    const before = await ledgersPass(0);
    simulator.simulator.setScenario("ingestion_stalled");
    const after = await ledgersPass(20);
    expect(get(after, "stellar_horizon_core_latest_ledger")! - get(before, "stellar_horizon_core_latest_ledger")!).toBe(
      20,
    );
    expect(get(after, "stellar_horizon_ingest_latest_ledger")).toBe(
      get(before, "stellar_horizon_ingest_latest_ledger"),
    );
    expect(get(after, "stellar_horizon_ledger_sequence")).toBe(get(before, "stellar_horizon_ledger_sequence"));
    expect(get(after, "stellar_horizon_ingest_lag_ledgers")).toBe(20);
  });

  it("network_halt: no ledger advances anywhere", async () => {
    await start();
    const before = await ledgersPass(0);
    simulator.simulator.setScenario("network_halt");
    const after = await ledgersPass(20);
    for (const name of [
      "stellar_horizon_core_latest_ledger",
      "stellar_horizon_ledger_sequence",
      "stellar_horizon_history_latest_ledger_closed_timestamp_seconds",
    ]) {
      expect(get(after, name), name).toBe(get(before, name));
    }
    expect(get(after, "stellar_horizon_ledgers_total")).toBe(get(before, "stellar_horizon_ledgers_total"));
  });

  it("fee_spike: capacity near 1 and fees fifty times higher", async () => {
    await start();
    const before = await ledgersPass(6);
    simulator.simulator.setScenario("fee_spike");
    const after = await ledgersPass(6);
    expect(get(after, "stellar_horizon_ledger_capacity_usage_ratio")).toBeGreaterThanOrEqual(0.99);
    expect(get(after, "stellar_horizon_fee_charged_stroops", { stat: "p50" })).toBe(
      50 * get(before, "stellar_horizon_fee_charged_stroops", { stat: "p50" })!,
    );
  });

  it("protocol_upgrade_pending: core supports the next protocol", async () => {
    await start("protocol_upgrade_pending");
    const values = await ledgersPass(1);
    expect(get(values, "stellar_horizon_core_supported_protocol_version")).toBe(
      get(values, "stellar_horizon_current_protocol_version")! + 1,
    );
  });

  it("unsupported_protocol: the network runs a protocol Horizon does not support", async () => {
    await start("unsupported_protocol");
    const values = await ledgersPass(1);
    expect(get(values, "stellar_horizon_current_protocol_version")).toBeGreaterThan(
      get(values, "stellar_horizon_supported_protocol_version")!,
    );
  });

  it("rate_limited: up goes 0, errors count as rate_limited, and the exporter holds back", async () => {
    await start();
    simulator.simulator.setScenario("rate_limited");
    const values = await ledgersPass(1);
    expect(get(values, "stellar_horizon_up")).toBe(0);
    expect(get(values, "stellar_horizon_core_latest_ledger")).toBeUndefined();
    expect(
      get(values, "stellar_horizon_exporter_poll_errors_total", { endpoint: "root", reason: "rate_limited" }),
    ).toBe(1);
    expect(get(values, "stellar_horizon_exporter_requests_total", { endpoint: "root", code: "429" })).toBe(1);
    const again = await ledgersPass(0);
    expect(get(again, "stellar_horizon_exporter_poll_errors_total", { endpoint: "root", reason: "rate_limited" })).toBe(
      2,
    );
    // One 429 per endpoint (their first polls run side by side); the second round was held back.
    const rateLimitedRequests = (series: Map<string, number>) =>
      sumOverEndpoints(series, "stellar_horizon_exporter_requests_total", { code: "429" });
    expect(rateLimitedRequests(values)).toBe(4);
    expect(rateLimitedRequests(again)).toBe(4);
    expect(get(again, "stellar_horizon_rate_limit_remaining")).toBe(0);
  });

  it("flapping: some polls fail with 5xx or timeouts, others succeed", async () => {
    await start();
    simulator.simulator.setScenario("flapping");
    let values = new Map<string, number>();
    for (let round = 0; round < 8; round += 1) values = await ledgersPass(1);
    const errors = (reason: string) =>
      sumOverEndpoints(values, "stellar_horizon_exporter_poll_errors_total", { reason });
    expect(errors("http_5xx")).toBeGreaterThan(0);
    expect(errors("timeout")).toBeGreaterThan(0);
    expect(get(values, "stellar_horizon_exporter_requests_total", { endpoint: "root", code: "200" })).toBeGreaterThan(
      1,
    );
  });

  it("old_horizon: older shapes parse, with the version from service_version", async () => {
    await start("old_horizon");
    const values = await ledgersPass(3);
    expect(get(values, "stellar_horizon_up")).toBe(1);
    expect(get(values, "stellar_horizon_supported_protocol_version")).toBeUndefined();
    expect([...values.keys()].find((key) => key.startsWith("stellar_horizon_info"))).toMatch(
      /horizon_version="2\.11\.0-/,
    );
    expect(get(values, "stellar_horizon_ledgers_total")).toBe(4);
    expect(get(values, "stellar_horizon_ledger_tx_set_capacity_ratio_count")).toBe(0);
    expect(get(values, "stellar_horizon_liquidity_pools")).toBe(10);
  });

  it("network_reset: the sequence restarts low and the exporter resynchronises", async () => {
    await start();
    const before = await ledgersPass(2);
    expect(get(before, "stellar_horizon_ledger_sequence")).toBeGreaterThan(1000);
    simulator.simulator.setScenario("network_reset");
    const after = await ledgersPass(1);
    expect(get(after, "stellar_horizon_ledger_resyncs_total")).toBe(1);
    expect(get(after, "stellar_horizon_ledger_sequence")).toBeLessThan(10);
    const later = await ledgersPass(3);
    expect(get(later, "stellar_horizon_ledger_sequence")).toBe(get(after, "stellar_horizon_ledger_sequence")! + 3);
    expect(get(later, "stellar_horizon_ledger_resyncs_total")).toBe(1);
  });

  it("network_reset: a watched account's deposits count on the new chain, each once, from its newest at the restart", async () => {
    await start("healthy", [`--account=hot=${HOT_WALLET}`, "--account.activity"]);
    const received = (values: Map<string, number>) =>
      get(values, "stellar_horizon_account_payments_total", { account: "hot", direction: "received", asset: USDC });
    const deposits = async () => {
      const page = (await (await fetch(`${simulator.url}/accounts/${HOT_WALLET}/payments?limit=200`)).json()) as {
        _embedded: { records: unknown[] };
      };
      return (page._embedded.records as { to: string; asset_code?: string }[]).filter(
        (record) => record.to === HOT_WALLET && record.asset_code === "USDC",
      ).length;
    };
    const first = await ledgersPass(48);
    expect(received(first)).toBeGreaterThan(0);
    simulator.simulator.setScenario("network_reset");
    // The ledgers poll sees the sequence go back; the activity poll after it starts over after the newest record.
    await ledgersPass(13);
    const restarted = await ledgersPass(0);
    const depositsAtRestart = await deposits();
    expect(depositsAtRestart).toBeGreaterThan(0);
    const later = await ledgersPass(48);
    expect(await deposits()).toBe(depositsAtRestart + 4);
    expect(received(later)! - received(restarted)!).toBe(4);
  });

  it("failed_transactions: almost every transaction fails", async () => {
    await start();
    const before = await ledgersPass(0);
    simulator.simulator.setScenario("failed_transactions");
    const after = await ledgersPass(20);
    const delta = (result: string) =>
      get(after, "stellar_horizon_transactions_total", { result })! -
      get(before, "stellar_horizon_transactions_total", { result })!;
    const failedShare = delta("failed") / (delta("failed") + delta("successful"));
    expect(failedShare).toBeGreaterThan(0.8);
    expect(failedShare).toBeLessThan(0.96);
  });

  it("pool_drain: the first pool keeps a tenth of its reserves", async () => {
    await start();
    const before = await ledgersPass(1);
    const firstPool = simulator.simulator.pools.pools[0]!.id;
    const reserves = (values: Map<string, number>) =>
      [...values]
        .filter(([key]) => key.startsWith("stellar_horizon_liquidity_pool_reserve{") && key.includes(firstPool))
        .map(([, value]) => value);
    simulator.simulator.setScenario("pool_drain");
    const after = await ledgersPass(1);
    const [a0, b0] = reserves(before);
    const [a1, b1] = reserves(after);
    expect(a1! / a0!).toBeCloseTo(0.1, 1);
    expect(b1! / b0!).toBeCloseTo(0.1, 1);
  });
});
