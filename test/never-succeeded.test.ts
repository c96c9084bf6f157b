import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { configFrom, stopStarted } from "./support/exporter-harness.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { ManualClock } from "./support/manual-clock.js";

const dir = mkdtempSync(join(tmpdir(), "she-never-succeeded-"));
let horizon: FakeHorizon | undefined;
let exporter: RunningExporter | undefined;

afterEach(async () => {
  await stopStarted(exporter, horizon);
  exporter = undefined;
  horizon = undefined;
});

/** An exporter polling pools hourly, without retries, from a Horizon whose /liquidity_pools alone answers 503; the
 * returned advance moves the clock a second at a time, each second's polls done. */
async function brokenPools() {
  const fake = (horizon = new FakeHorizon());
  fake.addLedgers(3);
  fake.faults.set("/liquidity_pools", { status: 503, body: "unavailable" });
  const url = await fake.start();
  const clock = new ManualClock();
  const file = join(dir, "config.yml");
  writeFileSync(file, "http: { retries: 0 }\nschedules:\n  liquidity_pools: 1h\n");
  const running = (exporter = await startExporter(
    await configFrom([`--horizon.url=h=${url}`, `--config.file=${file}`]),
    { logger: pino({ level: "silent" }), clock },
  ));
  await running.firstPolls;
  const advance = async (seconds: number) => {
    for (let second = 0; second < seconds; second += 1) {
      await clock.advance(1_000);
      await running.idle();
    }
  };
  return { horizon: fake, advance, pools: () => fake.requestsTo("/liquidity_pools").length };
}

describe("a poll that has never succeeded", () => {
  it("is not re-sent on every peer success: an hourly pools poll failing with 503 keeps to (about) its schedule", async () => {
    const { advance, pools } = await brokenPools();
    expect(pools()).toBe(1);
    // Ten minutes: root, fee_stats and ledgers succeed every 15 s.
    await advance(600);
    // The schedule plans one pools request an hour (planned_requests_per_hour counts it so). Retries after peers'
    // successes are fair (it may have failed on a passing hiccup), each one waiting twice as long: at 15 s, 30 s, 1, 2,
    // 4 and 8 minutes, not every 15 s (40 in ten minutes).
    expect(pools() - 1).toBe(6);
  }, 60_000);

  it("is polled again once its endpoint answers after a minute of 503s, not only an hour later", async () => {
    const { horizon: fake, advance, pools } = await brokenPools();
    // One minute of 503s: a brief outage of /liquidity_pools alone (root, fee_stats and ledgers answer throughout).
    await advance(60);
    fake.faults.delete("/liquidity_pools");
    const beforeRecovery = pools();
    // Ten more minutes of peers succeeding every few seconds: the pools series come back within minutes.
    await advance(600);
    expect(pools() - beforeRecovery).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
