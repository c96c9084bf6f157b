import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, USDC, USDX, type RunningSimulator } from "../src/simulator/index.js";
import { valueOf } from "./support/exposition.js";
import { configFrom, startHarness, type Harness } from "./support/exporter-harness.js";

describe("the exporter watching markets on the simulator", () => {
  let running: RunningSimulator;
  const harnesses: Harness[] = [];
  const start = async (...flags: string[]) => {
    const harness = await startHarness(
      await configFrom([
        `--horizon.url=sim=${running.url}`,
        "--poll.interval=1h",
        `--market=usdx=${USDX}/${USDC}`,
        ...flags,
      ]),
    );
    harnesses.push(harness);
    return harness;
  };

  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 1_000 });
  });
  afterAll(async () => {
    for (const harness of harnesses) await harness.exporter.close();
    await running.close();
  });

  it("polls them as the `markets` endpoint on shard 0, each request counted, no poll error", async () => {
    const harness = await start();
    await harness.exporter.pollAll();
    const values = await harness.scrape();
    expect(valueOf(values, "stellar_horizon_market_traded", { horizon: "sim", market: "usdx" })).toBeDefined();
    expect(
      valueOf(values, "stellar_horizon_market_trades_total", {
        horizon: "sim",
        market: "usdx",
        trade_type: "orderbook",
      }),
    ).toBeGreaterThanOrEqual(0);
    // Each poll: a bucket and a page of trades (the newest one, on the first); no maker is watched from the command line.
    const polls = valueOf(values, "stellar_horizon_exporter_poll_duration_seconds_count", {
      horizon: "sim",
      endpoint: "markets",
    });
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(values, "stellar_horizon_exporter_requests_total", { horizon: "sim", endpoint: "markets", code: "200" }),
    ).toBe(2 * polls!);
    expect(
      [...values].filter(([key, value]) => key.startsWith("stellar_horizon_exporter_poll_errors_total") && value > 0),
    ).toEqual([]);
  });

  it("another shard reads no markets", async () => {
    const harness = await start("--shard=1/2");
    await harness.exporter.pollAll();
    const values = await harness.scrape();
    expect([...values.keys()].filter((key) => key.startsWith("stellar_horizon_market_"))).toEqual([]);
  });
});
