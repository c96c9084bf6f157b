/**
 * The kinds' job tables as the runtime reads them (the shard rule, the reload keys), and what a
 * runner and a runtime take from their injected clock and configuration.
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Holds, maxHoldMsOf } from "../src/client/http.js";
import type { ExporterConfig } from "../src/config/config.js";
import { inShard } from "../src/config/shard.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { ExporterMetrics } from "../src/exposition/self-metrics.js";
import { MetricStore } from "../src/exposition/store.js";
import type { Job } from "../src/job/job.js";
import { HORIZON, HORIZON_JOBS } from "../src/runtime/horizon.js";
import { RPC_JOBS } from "../src/runtime/rpc.js";
import { jobsOf, TargetRuntime } from "../src/runtime/runtime.js";
import { deterministicAccountId } from "../src/simulator/accounts.js";
import { configFrom } from "./support/exporter-harness.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { runnerFor } from "./support/job-harness.js";
import { ManualClock } from "./support/manual-clock.js";

const sources = (entries: ReturnType<typeof jobsOf>) => entries.map(({ entry }) => entry.source);

describe("a kind's job table", () => {
  it("runs network-level jobs on shard 0 alone, and a target's own watch on every shard", async () => {
    // One account on each shard.
    const accounts = [0, 1].map(
      (index) =>
        Array.from({ length: 16 }, (_, n) => deterministicAccountId(`table ${n}`)).find((id) =>
          inShard({ index, total: 2 }, id),
        )!,
    );
    const flags = ["--horizon.url=h=http://127.0.0.1:9", ...accounts.map((id, n) => `--account=a${n}=${id}`)];
    const zero = await configFrom([...flags, "--shard=0/2"]);
    const one = await configFrom([...flags, "--shard=1/2"]);
    expect(sources(jobsOf(HORIZON_JOBS, zero.targets[0]!, zero))).toEqual([
      "root",
      "fee_stats",
      "ledgers",
      "liquidity_pools",
      "accounts",
    ]);
    expect(sources(jobsOf(HORIZON_JOBS, one.targets[0]!, one))).toEqual(["accounts"]);
    const rpc = await configFrom(["--rpc.url=r=http://127.0.0.1:9"]);
    expect(sources(jobsOf(RPC_JOBS, rpc.rpcTargets[0]!, rpc))).toEqual(["status", "versions"]);
  });

  it("keys a job by the global settings it reads: a new pools.max changes the pools key alone", async () => {
    const before = await configFrom(["--horizon.url=h=http://127.0.0.1:9", "--pools.max=7"]);
    const after = { ...before, liquidityPools: { ...before.liquidityPools, max: 8 } };
    const keys = (config: ExporterConfig) =>
      Object.fromEntries(jobsOf(HORIZON_JOBS, config.targets[0]!, config).map(({ entry, key }) => [entry.source, key]));
    const [was, is] = [keys(before), keys(after)];
    const changed = Object.keys(is).filter((source) => was[source] !== is[source]);
    expect(changed).toEqual(["liquidity_pools"]);
  });
});

describe("a target runtime", () => {
  it("restarts with its client when freshness.stale_after_intervals changes, whose rate-limit hold cap follows it", async () => {
    const config = await configFrom(["--horizon.url=h=http://127.0.0.1:9", "--poll.interval=1h"]);
    const longer = { ...config, staleAfterIntervals: config.staleAfterIntervals + 2 };
    const target = config.targets[0]!;
    // The client's hold cap is built from the freshness: a client kept across this reload would keep the old cap.
    expect(maxHoldMsOf({ schedules: target.schedules, staleAfterIntervals: longer.staleAfterIntervals })).not.toBe(
      maxHoldMsOf({ schedules: target.schedules, staleAfterIntervals: config.staleAfterIntervals }),
    );
    const services = {
      store: new MetricStore(),
      metrics: new ExporterMetrics("test"),
      logger: pino({ level: "silent" }),
      clock: new ManualClock(),
      holds: new Holds(),
      plansWarned: new Map(),
    };
    const key = (of: ExporterConfig) => new TargetRuntime(HORIZON, target, of, services).key;
    expect(key(config)).toBe(key({ ...config }));
    expect(key(longer)).not.toBe(key(config));
  });
});

describe("a job runner", () => {
  it("stamps a poll's last success with its clock's time, not the wall clock", async () => {
    const clock = new ManualClock(1_500_000_000_000);
    const job: Job = {
      role: "poll",
      source: "root",
      schedule: parseSchedule("15s") as Schedule,
      requestsPerRun: 1,
      run: async () => undefined,
      samples: () => ({ live: [], persistent: [] }),
    };
    const { runner, metrics } = runnerFor(job, { clock });
    await runner.run();
    const own = parseExposition((await metrics.render("identity")).toString());
    expect(
      valueOf(own, "stellar_horizon_exporter_last_success_timestamp_seconds", { horizon: "h", endpoint: "root" }),
    ).toBe(1_500_000_000);
  });
});
