import { afterEach, expect, it } from "vitest";
import type { StatusReport } from "../../src/status/model.js";
import { startHarness, configFrom, type Harness } from "../support/exporter-harness.js";
import { FakeHorizon, makePool } from "../support/fake-horizon.js";
import { until } from "../support/wait.js";

let horizon: FakeHorizon;
let harness: Harness;

afterEach(async () => {
  await harness.exporter.close();
  await horizon.stop();
});

async function status(): Promise<StatusReport> {
  const response = await fetch(`${harness.exporter.url}/status.json`);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as StatusReport;
}

it("/status.json reports the values /metrics serves, follows their freshness, shows running polls, and redacts the URL", async () => {
  horizon = new FakeHorizon();
  horizon.addLedgers(4);
  horizon.pools.push(makePool(1), makePool(2), makePool(3));
  const url = new URL(await horizon.start());
  harness = await startHarness(
    await configFrom([`--horizon.url=fake=http://ops:url-s3cret@${url.host}/`, "--poll.interval=1h"]),
  );
  const metrics = await harness.scrape();
  const [target] = (await status()).targets;
  const onMetrics = (name: string, labels = "") => metrics.get(`${name}{horizon="fake"${labels}}`);

  expect(target!.url).toBe(`http://${url.host}/`);
  expect(target!.state).toBe("up");
  expect(target!.network).toBe("pubnet");
  expect(target!.latestLedger!.value).toBe(onMetrics("stellar_horizon_ingest_latest_ledger"));
  expect(target!.ingestLagLedgers!.value).toBe(onMetrics("stellar_horizon_ingest_lag_ledgers"));
  expect(target!.protocolVersion!.value).toBe(onMetrics("stellar_horizon_current_protocol_version"));
  expect(target!.baseFeeStroops!.value).toBe(onMetrics("stellar_horizon_fee_stats_base_fee_stroops"));
  expect(target!.feeChargedP50Stroops!.value).toBe(onMetrics("stellar_horizon_fee_charged_stroops", ',stat="p50"'));
  expect(target!.feeChargedP90Stroops!.value).toBe(onMetrics("stellar_horizon_fee_charged_stroops", ',stat="p90"'));
  expect(target!.ledgerCapacityUsageRatio!.value).toBe(onMetrics("stellar_horizon_ledger_capacity_usage_ratio"));
  expect(target!.transactions!.failed.value).toBe(onMetrics("stellar_horizon_transactions_total", ',result="failed"'));
  expect(target!.liquidityPools!.value).toBe(3);
  expect(target!.endpoints.map((endpoint) => [endpoint.endpoint, endpoint.state])).toEqual([
    ["root", "ok"],
    ["fee_stats", "ok"],
    ["ledgers", "ok"],
    ["liquidity_pools", "ok"],
  ]);

  // A failed root poll takes the root gauges off /metrics, and off the status with them.
  horizon.faults.set("/", { status: 503, body: "Server capacity exceeded." });
  await harness.exporter.pollAll();
  const after = await harness.scrape();
  const [failing] = (await status()).targets;
  expect(after.get('stellar_horizon_ingest_latest_ledger{horizon="fake"}')).toBeUndefined();
  expect(failing!.latestLedger).toBeUndefined();
  expect(failing!.state).toBe("down");
  expect(failing!.endpoints[0]).toMatchObject({
    endpoint: "root",
    state: "failing",
    lastError: { reason: "http_5xx" },
  });
  expect(failing!.feeChargedP90Stroops!.value).toBe(onMetrics("stellar_horizon_fee_charged_stroops", ',stat="p90"'));

  // While a poll is in flight its endpoint says so, on the page in words.
  horizon.faults.clear();
  horizon.responseDelayMs = 1_500;
  const polling = harness.exporter.pollAll();
  const running = await until("a poll in flight", async () => {
    const [target] = (await status()).targets;
    return target!.endpoints[0]!.state === "running" ? target! : undefined;
  });
  expect(running.endpoints[0]!.runningForSeconds).toBeGreaterThanOrEqual(0);
  expect(await (await fetch(`${harness.exporter.url}/`)).text()).toMatch(
    /<span class="badge running">running for \d+ s<\/span>/,
  );
  await polling;
  expect((await status()).targets[0]!.endpoints.map((endpoint) => endpoint.state)).toEqual(["ok", "ok", "ok", "ok"]);

  const text = await (await fetch(`${harness.exporter.url}/status.json`)).text();
  expect(text).not.toContain("url-s3cret");
  expect(text).not.toContain("ops:");
});

it("/status.json says down, not waiting, for a Horizon whose every poll has failed since the start", async () => {
  horizon = new FakeHorizon();
  for (const path of ["/", "/fee_stats", "/ledgers", "/liquidity_pools"]) {
    horizon.faults.set(path, {
      status: 503,
      body: JSON.stringify({ type: "https://stellar.org/horizon-errors/service_unavailable", status: 503 }),
    });
  }
  const url = new URL(await horizon.start());
  harness = await startHarness(await configFrom([`--horizon.url=fake=http://${url.host}/`]));
  await until("the first root poll", async () =>
    (await status()).targets[0]!.endpoints[0]!.polls > 0 ? true : undefined,
  );
  const [target] = (await status()).targets;
  expect(target!.endpoints[0]).toMatchObject({ endpoint: "root", state: "failing" });
  expect(target!.state).toBe("down");
  expect((await harness.scrape()).get('stellar_horizon_up{horizon="fake"}')).toBe(0);
});
