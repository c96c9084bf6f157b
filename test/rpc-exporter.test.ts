import { execFileSync } from "node:child_process";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ALL_METRICS, FEE_STATS, targetLabelOf } from "../src/catalog/metrics.js";
import { feeStatsSchema, jsonRpcResponseSchema } from "../src/client/rpc-schemas.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { COLD_WALLET, HOT_WALLET, startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { namesIn, parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { ManualClock } from "./support/manual-clock.js";
import { until } from "./support/wait.js";

/** The exporter polling the simulator's Horizon and its Stellar RPC, as a new user would; simulated time moves only when told. */
const LEDGER_MS = 5_000;
const RPC = { rpc: "sim-rpc" };
const HORIZON = { horizon: "sim" };
/** An asset no demo account trusts. */
const EURC = "EURC:GDBDEI3NV72XSORX7DNYMGRRNXAXF62RPTGGVEXM2RLXIUIUU5DNZWWH";
/** An account nobody created. */
const NOBODY = "GA2224DCGO3WHC4EALA2PR2BZEMAYZPBPTHS243ZYYWQMBWRPJSZH5A6";
let simulator: RunningSimulator | undefined;
let exporter: RunningExporter | undefined;
let fakeRpc: FakeRpc | undefined;

afterEach(async () => {
  await exporter?.close();
  await simulator?.close();
  await fakeRpc?.stop();
  exporter = simulator = fakeRpc = undefined;
});

async function start(
  scenario = "healthy",
  extraArgs: readonly string[] = [],
): Promise<{ simulator: RunningSimulator; exporter: RunningExporter }> {
  const clock = Date.UTC(2026, 0, 1);
  simulator = await startSimulator({ scenario, ledgerIntervalMs: LEDGER_MS, pools: 3, seed: 5, now: () => clock });
  const [counter, usdc] = simulator.simulator.contracts.demo;
  const config = await configFrom([
    `--horizon.url=sim=${simulator.url}`,
    `--rpc.url=sim-rpc=${simulator.url}/rpc`,
    `--contract=counter=${counter!.id}`,
    `--contract=usdc=${usdc!.id}`,
    "--contract.events",
    "--poll.interval=1h",
    "--pools.max=3",
    `--account=hot=${HOT_WALLET}`,
    `--account=cold=${COLD_WALLET}`,
    `--account=nobody=${NOBODY}`,
    `--account.asset=${USDC}`,
    `--account.asset=${EURC}`,
    ...extraArgs,
  ]);
  exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }) });
  await exporter.firstPolls;
  return { simulator, exporter };
}

async function scrapeText(running: RunningExporter): Promise<string> {
  return (await fetch(`${running.url}/metrics`)).text();
}

async function ledgersPass(count: number): Promise<Map<string, number>> {
  simulator!.simulator.advance(count * LEDGER_MS);
  await exporter!.pollAll();
  return parseExposition(await scrapeText(exporter!));
}

/** getFeeStats straight from the simulator, to compare the exporter's numbers with. */
async function directFeeStats(url: string) {
  const response = await fetch(`${url}/rpc`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getFeeStats" }),
  });
  return feeStatsSchema.parse(jsonRpcResponseSchema.parse(await response.json()).result);
}

const rpc = (values: Map<string, number>, name: string, labels: Record<string, string> = {}) =>
  valueOf(values, name, { ...RPC, ...labels });
const horizon = (values: Map<string, number>, name: string) => valueOf(values, name, HORIZON);

describe("Stellar RPC targets against the simulator", () => {
  it("healthy: every value exact, in step with Horizon, every RPC family present, promtool clean", async () => {
    const { simulator: sim, exporter: running } = await start();
    const values = await ledgersPass(3);
    const state = sim.simulator.state();
    expect(rpc(values, "stellar_rpc_up")).toBe(1);
    expect(rpc(values, "stellar_rpc_healthy")).toBe(1);
    expect(rpc(values, "stellar_rpc_latest_ledger")).toBe(state.historyLatestLedger);
    expect(rpc(values, "stellar_rpc_latest_ledger")).toBe(horizon(values, "stellar_horizon_core_latest_ledger"));
    expect(rpc(values, "stellar_rpc_latest_ledger_closed_timestamp_seconds")).toBe(
      horizon(values, "stellar_horizon_history_latest_ledger_closed_timestamp_seconds"),
    );
    expect(rpc(values, "stellar_rpc_oldest_ledger")).toBe(state.historyElderLedger);
    expect(rpc(values, "stellar_rpc_ledger_retention_window_ledgers")).toBe(120960);
    expect(rpc(values, "stellar_rpc_protocol_version")).toBe(28);
    expect(
      rpc(values, "stellar_rpc_info", {
        version: "28.0.1-c3e7a1f5b9d2e6a0c4f8b2d6e0a4c8f2b6d0e4a8",
        captive_core_version: "stellar-core 28.0.0 (4f2a9c1e7b3d5a8f0e6c2b9d1a7f3e5c8b0d4a62)",
        network: "pubnet",
        network_passphrase: "Public Global Stellar Network ; September 2015",
      }),
    ).toBe(1);
    const fees = await directFeeStats(sim.url);
    for (const [kind, distribution] of [
      ["soroban", fees.sorobanInclusionFee],
      ["classic", fees.inclusionFee],
    ] as const) {
      for (const stat of FEE_STATS)
        expect(rpc(values, "stellar_rpc_inclusion_fee_stroops", { kind, stat }), `${kind} ${stat}`).toBe(
          distribution[stat],
        );
      expect(rpc(values, "stellar_rpc_fee_stats_transactions", { kind })).toBe(distribution.transactionCount);
      expect(rpc(values, "stellar_rpc_fee_stats_ledgers", { kind })).toBe(distribution.ledgerCount);
    }
    expect(fees.inclusionFee.ledgerCount).toBe(10);

    // The events poll counted every event of the demo contracts from the first poll's latest ledger on.
    let served = 0;
    for (let ledger = state.historyLatestLedger - 3; ledger <= state.historyLatestLedger; ledger += 1)
      served += sim.simulator.contracts.events.ledgerEvents(ledger).length;
    const counted = [...values]
      .filter(([key]) => key.startsWith("stellar_rpc_contract_events_total{"))
      .reduce((sum, [, value]) => sum + value, 0);
    expect(counted).toBe(served);
    expect(served).toBeGreaterThan(0);

    // Self-metrics: two polls of each endpoint (the first, then pollAll), one batch request each;
    // the first contracts poll reads the new wasm's code in a request of its own.
    for (const endpoint of ["status", "versions", "contracts"]) {
      expect(rpc(values, "stellar_horizon_exporter_rpc_requests_total", { endpoint, code: "200" })).toBe(
        endpoint === "contracts" ? 3 : 2,
      );
      expect(rpc(values, "stellar_horizon_exporter_rpc_poll_duration_seconds_count", { endpoint })).toBe(2);
      expect(rpc(values, "stellar_horizon_exporter_rpc_poll_errors_total", { endpoint, reason: "rpc_error" })).toBe(0);
      expect(rpc(values, "stellar_horizon_exporter_rpc_last_success_timestamp_seconds", { endpoint })).toBeGreaterThan(
        0,
      );
    }

    const text = await scrapeText(running);
    expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" }).trim()).toBe("");
    const names = namesIn(parseExposition(text));
    // Low-water marks and expect_events_within come from a config file's accounts and contracts; flags set none.
    for (const metric of ALL_METRICS.filter(
      (candidate) =>
        targetLabelOf(candidate) === "rpc" &&
        !candidate.name.endsWith("_low_watermark") &&
        candidate.name !== "stellar_rpc_contract_events_expected_within_seconds",
    )) {
      expect(names.has(metric.type === "histogram" ? `${metric.name}_count` : metric.name), metric.name).toBe(true);
    }
    const page = await (await fetch(`${running.url}/`)).text();
    expect(page).toContain("sim-rpc (Stellar RPC)");
    expect(page).toContain('<th class="num">Last event</th><th class="num">Events/min</th>');
    expect(page).toContain(
      `data-series="stellar_rpc_latest_ledger{rpc=&quot;sim-rpc&quot;}" data-value="${state.historyLatestLedger}"`,
    );

    // The RPC's own card: up, with the figures /metrics shows, none of a Horizon's.
    const status = (await (await fetch(`${running.url}/status.json`)).json()) as {
      targets: Array<Record<string, unknown>>;
    };
    const card = status.targets.find((target) => target.kind === "rpc")!;
    expect(card).toMatchObject({
      name: "sim-rpc",
      title: "sim-rpc (Stellar RPC)",
      state: "up",
      network: "pubnet",
      protocolVersion: { metric: "stellar_rpc_protocol_version", value: 28 },
      latestLedger: { metric: "stellar_rpc_latest_ledger", value: state.historyLatestLedger },
      rpc: {
        healthy: { value: 1 },
        retentionWindowLedgers: { value: 120960 },
        oldestLedger: { value: state.historyElderLedger },
        sorobanInclusionFeeP90Stroops: { value: fees.sorobanInclusionFee.p90 },
        classicInclusionFeeP50Stroops: { value: fees.inclusionFee.p50 },
      },
    });
    expect(card.latestLedgerAgeSeconds).toBeTypeOf("number");
    // The watched-contracts table's instance rows carry the last event's age and the event rate (two polls in).
    const usdcInstance = (card.contracts as Record<string, unknown>[]).find(
      (row) => row.contract === "usdc" && row.entry === "instance",
    );
    expect(usdcInstance?.lastEventAgeSeconds).toBeTypeOf("number");
    expect(usdcInstance?.eventsPerSecond).toBeGreaterThan(0);
    expect(card.horizonVersion).toBeUndefined();
    expect(card.endpoints).toEqual(
      ["status", "versions", "accounts", "contracts", "events"].map((endpoint) =>
        expect.objectContaining({ endpoint, state: "ok" }),
      ),
    );
    expect((card.history as Record<string, unknown[]>).rpc_soroban_fee_p90).toHaveLength(2);
  });

  it("a Horizon and a Stellar RPC of the same name keep their own cards", async () => {
    simulator = await startSimulator({ ledgerIntervalMs: LEDGER_MS, pools: 3, seed: 5 });
    const config = await configFrom([
      `--horizon.url=sdf=${simulator.url}`,
      `--rpc.url=sdf=${simulator.url}/rpc`,
      "--poll.interval=1h",
      "--pools.max=3",
    ]);
    exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
    await exporter.firstPolls;
    const status = (await (await fetch(`${exporter.url}/status.json`)).json()) as {
      targets: Array<Record<string, unknown>>;
    };
    expect(status.targets.map(({ kind, name, state }) => ({ kind, name, state }))).toEqual([
      { kind: "horizon", name: "sdf", state: "up" },
      { kind: "rpc", name: "sdf", state: "up" },
    ]);
    expect(status.targets[0]!.rpc).toBeUndefined();
    expect(status.targets[1]!.horizonVersion).toBeUndefined();
  });

  it("watched accounts: every family equals what the Horizon path computes, in one getLedgerEntries call and one header read a poll", async () => {
    await start();
    const values = await ledgersPass(2);
    let compared = 0;
    for (const [key, value] of values) {
      const name = key.slice(0, key.indexOf("{"));
      if (!name.startsWith("stellar_horizon_account_")) continue;
      const labels = Object.fromEntries(
        [...key.matchAll(/([a-z_]+)="([^"]*)"/g)].map(([, label, text]) => [label!, text!]),
      );
      // Over RPC only the configured trustlines are read; offers, claimable balances and data entries are Horizon's.
      if (labels.asset !== undefined && labels.asset !== "native" && labels.asset !== USDC) continue;
      if (/_(offers|claimable_balances|claimable_amount|data_entries)$/.test(name)) continue;
      const { horizon: _horizon, ...rest } = labels;
      const rpcName = name.replace("stellar_horizon_account_", "stellar_rpc_account_");
      expect(rpc(values, rpcName, rest), `${rpcName} ${JSON.stringify(rest)}`).toBe(value);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(40);
    expect(rpc(values, "stellar_rpc_account_exists", { account: "nobody" })).toBe(0);
    // An account that does not exist: exists 0 and its signer-change counter, nothing else, and no poll error.
    const nobody = [...values.keys()].filter(
      (key) => key.includes('account="nobody"') && key.includes('rpc="sim-rpc"'),
    );
    expect(nobody.map((key) => key.slice(0, key.indexOf("{"))).sort()).toEqual([
      "stellar_rpc_account_exists",
      "stellar_rpc_account_signer_changes_total",
    ]);
    expect(rpc(values, "stellar_rpc_account_trustline_exists", { account: "hot", asset: USDC })).toBe(1);
    expect(rpc(values, "stellar_rpc_account_trustline_exists", { account: "hot", asset: EURC })).toBe(0);
    expect(
      [...values.keys()].filter(
        (key) => key.includes(`asset="${EURC}"`) && !key.startsWith("stellar_rpc_account_trustline_exists"),
      ),
    ).toEqual([]);
    // Eight keys in one call a poll, and the header from getLatestLedger (v25+ sends it): no getLedgers.
    expect(rpc(values, "stellar_horizon_exporter_rpc_requests_total", { endpoint: "accounts", code: "200" })).toBe(
      2 + 2,
    );
    expect(
      rpc(values, "stellar_horizon_exporter_rpc_poll_errors_total", { endpoint: "accounts", reason: "rpc_error" }),
    ).toBe(0);
  });

  it("watched accounts: an entry that changed between polls is read anew, an unchanged one keeps its values", async () => {
    const { simulator: running } = await start();
    const before = await ledgersPass(1);
    const at = running.simulator.latestLedgerPoint();
    running.simulator.accounts.setBalance(HOT_WALLET, "native", 12_345_6789012n, at);
    running.simulator.accounts.setBalance(HOT_WALLET, USDC, 4_321_0000000n, at);
    const after = await ledgersPass(1);
    const balance = (values: Map<string, number>, account: string, asset: string) =>
      rpc(values, "stellar_rpc_account_balance", { account, asset });
    expect(balance(after, "hot", "native")).toBe(12345.6789012);
    expect(balance(after, "hot", USDC)).toBe(4321);
    expect(balance(after, "hot", "native")).toBe(
      valueOf(after, "stellar_horizon_account_balance", { ...HORIZON, account: "hot", asset: "native" }),
    );
    expect(balance(after, "cold", "native")).toBe(balance(before, "cold", "native"));
    expect(balance(after, "cold", "native")).toBe(
      valueOf(after, "stellar_horizon_account_balance", { ...HORIZON, account: "cold", asset: "native" }),
    );
  });

  it("watched accounts: an account watched under two names has every series under each, a change included", async () => {
    const { simulator: running } = await start("healthy", [`--account=hot-again=${HOT_WALLET}`]);
    await ledgersPass(1);
    running.simulator.accounts.setBalance(HOT_WALLET, USDC, 4_321_0000000n, running.simulator.latestLedgerPoint());
    const values = await ledgersPass(1);
    const seriesOf = (account: string) =>
      new Map(
        [...values]
          .filter(([key]) => key.startsWith("stellar_rpc_account_") && key.includes(`account="${account}"`))
          .map(([key, value]) => [key.replace(`account="${account}"`, "account=?"), value]),
      );
    expect(seriesOf("hot-again").size).toBeGreaterThan(20);
    expect(seriesOf("hot-again")).toEqual(seriesOf("hot"));
    expect(rpc(values, "stellar_rpc_account_balance", { account: "hot-again", asset: USDC })).toBe(4321);
  });

  it("rpc_unhealthy: stellar_rpc_healthy 0 while everything else keeps working", async () => {
    await start();
    simulator!.simulator.setScenario("rpc_unhealthy");
    const values = await ledgersPass(2);
    expect(rpc(values, "stellar_rpc_healthy")).toBe(0);
    expect(rpc(values, "stellar_rpc_up")).toBe(1);
    expect(rpc(values, "stellar_rpc_latest_ledger")).toBe(simulator!.simulator.state().historyLatestLedger);
    expect(rpc(values, "stellar_rpc_inclusion_fee_stroops", { kind: "classic", stat: "p50" })).toBe(100);
    // getHealth's error is data: no failed poll, and no getHealth-only series to go stale on.
    expect(
      rpc(values, "stellar_horizon_exporter_rpc_poll_errors_total", { endpoint: "status", reason: "rpc_error" }),
    ).toBe(0);
    expect(rpc(values, "stellar_rpc_oldest_ledger")).toBeUndefined();
    expect(horizon(values, "stellar_horizon_up")).toBe(1);
  });

  it("rpc_lagging: the RPC's latest ledger trails Horizon's by 20", async () => {
    await start();
    simulator!.simulator.setScenario("rpc_lagging");
    const values = await ledgersPass(25);
    expect(horizon(values, "stellar_horizon_core_latest_ledger")! - rpc(values, "stellar_rpc_latest_ledger")!).toBe(20);
    expect(rpc(values, "stellar_rpc_up")).toBe(1);
    expect(rpc(values, "stellar_rpc_healthy")).toBe(0);
  });

  it("a JSON-RPC error from another method is a failed poll with reason rpc_error", async () => {
    fakeRpc = new FakeRpc();
    fakeRpc.answers.set("getFeeStats", { error: { code: -32603, message: "boom" } });
    const config = await configFrom([`--rpc.url=fake=${await fakeRpc.start()}/soroban/rpc`, "--poll.interval=1h"]);
    exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }) });
    await exporter.firstPolls;
    const values = parseExposition(await scrapeText(exporter));
    const labels = { rpc: "fake" };
    expect(valueOf(values, "stellar_rpc_up", labels)).toBe(0);
    expect(
      valueOf(values, "stellar_horizon_exporter_rpc_poll_errors_total", {
        ...labels,
        endpoint: "status",
        reason: "rpc_error",
      }),
    ).toBe(1);
    expect(
      valueOf(values, "stellar_rpc_info", {
        ...labels,
        version: "27.1.1-7e712815319140618b9be8cf0846701a6f9a2cbe",
        captive_core_version: "stellar-core 27.1.0 (3589a696b0d4ef5a2cf2124e349c671d71886d9c)",
        network: "testnet",
        network_passphrase: "Test SDF Network ; September 2015",
      }),
    ).toBe(1);
    expect(fakeRpc.requests.every((request) => request.url.pathname === "/soroban/rpc")).toBe(true);
  });

  it("a versions poll whose first run failed runs again as soon as the RPC heals, not a period later", async () => {
    fakeRpc = new FakeRpc();
    fakeRpc.fault = { status: 503, body: "unavailable" };
    const clock = new ManualClock();
    const config = await configFrom([`--rpc.url=fake=${await fakeRpc.start()}`, "--poll.interval=5s"]);
    exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }), clock });
    await exporter.firstPolls;
    const versionCalls = () => fakeRpc!.methodsCalled().filter((method) => method === "getVersionInfo").length;
    expect(versionCalls()).toBe(1);
    fakeRpc.fault = undefined;
    // The status poll (every 5 s) succeeds after failing; versions (every 10 min) runs at once.
    await clock.advance(5_000);
    await until("versions polled again", async () => (versionCalls() === 2 ? true : undefined), { timeoutMs: 5_000 });
    await exporter.idle();
    const values = parseExposition(await scrapeText(exporter));
    expect([...values.keys()].filter((key) => key.startsWith("stellar_rpc_info{"))).toHaveLength(1);
  });

  it("a versions poll whose first run failed alone tries again after the next status poll", async () => {
    fakeRpc = new FakeRpc();
    fakeRpc.batchFaults.set("getVersionInfo", { status: 503, body: "unavailable" });
    const clock = new ManualClock();
    const config = await configFrom([`--rpc.url=fake=${await fakeRpc.start()}`, "--poll.interval=5s"]);
    exporter = await startExporter({ ...config, retries: 0 }, { logger: pino({ level: "silent" }), clock });
    await exporter.firstPolls;
    const calls = (method: string) => fakeRpc!.methodsCalled().filter((called) => called === method).length;
    expect([calls("getHealth"), calls("getVersionInfo")]).toEqual([1, 1]);
    fakeRpc.batchFaults.clear();
    await clock.advance(5_000);
    await until("versions polled again", async () => (calls("getVersionInfo") === 2 ? true : undefined), {
      timeoutMs: 5_000,
    });
    await exporter.idle();
    const values = parseExposition(await scrapeText(exporter));
    expect([...values.keys()].filter((key) => key.startsWith("stellar_rpc_info{"))).toHaveLength(1);
    // Once it has data, the versions poll keeps its 10-minute period: more status polls, no more versions.
    await clock.advance(5_000);
    await exporter.idle();
    expect(calls("getVersionInfo")).toBe(2);
  });

  it("reload: an RPC leaves and returns without touching the Horizon of the same name", async () => {
    fakeRpc = new FakeRpc();
    const horizonServer = new FakeHorizon();
    horizonServer.addLedgers(3);
    try {
      const both = await configFrom([
        `--horizon.url=sdf=${await horizonServer.start()}`,
        `--rpc.url=sdf=${await fakeRpc.start()}/rpc`,
        "--poll.interval=1h",
      ]);
      exporter = await startExporter(both, { logger: pino({ level: "silent" }) });
      await exporter.firstPolls;
      const scrape = async () => parseExposition(await scrapeText(exporter!));
      expect(valueOf(await scrape(), "stellar_rpc_up", { rpc: "sdf" })).toBe(1);

      await exporter.reload(async () => ({ ...both, rpcTargets: [] }));
      const without = await scrape();
      expect(valueOf(without, "stellar_rpc_up", { rpc: "sdf" })).toBeUndefined();
      expect(
        valueOf(without, "stellar_horizon_exporter_rpc_poll_errors_total", {
          rpc: "sdf",
          endpoint: "status",
          reason: "timeout",
        }),
      ).toBeUndefined();
      expect(valueOf(without, "stellar_horizon_up", { horizon: "sdf" })).toBe(1);

      await exporter.reload(async () => both);
      await exporter.pollAll();
      expect(valueOf(await scrape(), "stellar_rpc_up", { rpc: "sdf" })).toBe(1);
    } finally {
      await exporter?.close();
      exporter = undefined;
      await horizonServer.stop();
    }
  });
});
