import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../src/simulator/rng.js";
import { spawnCli, startedUrl, type CliProcess } from "./support/cli-process.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeHorizon, makePool } from "./support/fake-horizon.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { fixtureJson } from "./support/fixtures.js";
import { FuzzedUpstream } from "./support/fuzzed-upstream.js";
import { duplicateSeries, nonFiniteSamples } from "./support/scrape-checks.js";
import { until } from "./support/wait.js";

/**
 * Issue 31's fuzz: two Horizons (each watching an account) and two Stellar RPCs answer real
 * captures mutated at random across the hostile classes, while an exporter process polls them.
 * Every scrape must answer 200 within 2 s, with no ±Inf or NaN and no series twice, and the
 * exporter's RSS must stay under 300 MiB; once the answers are clean again, every target must be
 * up with fresh values within 30 s (issue 31's check), and the time it took is reported against
 * one poll period (item 5's aim: an endpoint that failed alone with a non-transient reason still
 * backs off beyond it).
 *
 * FUZZ_SECONDS sets the hostile phase's length (default 25 s, the CI run); FUZZ_SEED a seed to
 * repeat. The seed fixes every choice of mutation; the timing of requests may still differ. A
 * seed that failed becomes an entry of REGRESSION_SEEDS.
 */

const FUZZ_SECONDS = Number(process.env.FUZZ_SECONDS ?? 25);
const REGRESSION_SEEDS: readonly number[] = [];
const SEED = process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
/** The chance that an answer is mutated during the hostile phase. */
const MUTATION_RATE = 0.3;
const POLL_PERIOD_MS = 2_000;
/** From clean answers to every target fresh: issue 31's check. */
const RECOVERY_MS = 30_000;
const SCRAPE_EVERY_MS = 250;
const SCRAPE_LIMIT_MS = 2_000;
const RSS_LIMIT_BYTES = 300 * 1024 * 1024;
const ACCOUNT_ID = "GDA2KZG7UB3C3KU4RYRGCQI6JPV2I2FYBWT434MQHPE36FH7CWGVR5X3";
const HORIZONS = ["h1", "h2"];
const RPCS = ["r1", "r2"];
const HORIZON_ENDPOINTS = ["root", "fee_stats", "ledgers", "liquidity_pools", "accounts"];

interface ScrapeRecord {
  readonly ms: number;
  readonly rssBytes: number;
}

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? Number.NaN) * 1024;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs the fuzz with one seed; returns what each scrape took. */
async function fuzz(
  seed: number,
  hostileSeconds: number,
): Promise<{ scrapes: ScrapeRecord[]; applied: Map<string, number>; recoveryMs: number }> {
  const rng = createRng(seed);
  const horizons = HORIZONS.map(() => {
    const fake = new FakeHorizon();
    fake.addLedgers(5);
    fake.pools = [makePool(1), makePool(2), makePool(3)];
    fake.accounts.set(ACCOUNT_ID, fixtureJson("account-java-sdk.json"));
    return { fake, upstream: new FuzzedUpstream(fake, rng, "horizon") };
  });
  const rpcs = RPCS.map(() => new FuzzedUpstream(new FakeRpc(), rng, "rpc"));
  const upstreams = [...horizons.map(({ upstream }) => upstream), ...rpcs];
  const urls = await Promise.all(upstreams.map((upstream) => upstream.start()));
  // Ledgers keep closing, so the ledger stream has something to read and a cursor to keep.
  const ledgerTimer = setInterval(() => horizons.forEach(({ fake }) => fake.addLedgers(1)), 1_000);
  let exporter: CliProcess | undefined;
  const scrapes: ScrapeRecord[] = [];
  let recoveryMs = Number.NaN;
  try {
    exporter = spawnCli([
      ...HORIZONS.map((name, index) => `--horizon.url=${name}=${urls[index]}`),
      ...RPCS.map((name, index) => `--rpc.url=${name}=${urls[HORIZONS.length + index]}`),
      `--account=watched=${ACCOUNT_ID}`,
      `--poll.interval=${POLL_PERIOD_MS / 1000}s`,
      "--pools.max=10",
      "--web.listen-address=127.0.0.1:0",
      "--log.level=info",
    ]);
    const running = exporter;
    const base = await until("the exporter's start line", () => startedUrl(running.output()), { timeoutMs: 30_000 });
    const pid = running.child.pid!;

    const scrape = async (): Promise<Map<string, number>> => {
      const started = performance.now();
      const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) });
      const text = await response.text();
      const ms = performance.now() - started;
      const rssBytes = rssOf(pid);
      scrapes.push({ ms, rssBytes });
      expect(response.status, `seed ${seed}`).toBe(200);
      expect(ms, `seed ${seed}: scrape time`).toBeLessThan(SCRAPE_LIMIT_MS);
      expect(nonFiniteSamples(text), `seed ${seed}`).toEqual([]);
      expect(duplicateSeries(text), `seed ${seed}`).toEqual([]);
      expect(rssBytes, `seed ${seed}: RSS`).toBeLessThan(RSS_LIMIT_BYTES);
      return parseExposition(text);
    };
    const scrapeFor = async (ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        await scrape();
        await new Promise((done) => setTimeout(done, SCRAPE_EVERY_MS));
      }
    };

    await scrape();
    for (const upstream of upstreams) upstream.rate = MUTATION_RATE;
    await scrapeFor(hostileSeconds * 1000);
    for (const upstream of upstreams) upstream.rate = 0;
    const cleanSinceSeconds = Date.now() / 1000;

    // Fresh: every endpoint of every target polled successfully after the answers turned clean.
    // Stellar RPC's versions batch is polled every 10 minutes whatever the interval: its own period.
    const stale = (values: Map<string, number>): string[] => [
      ...HORIZONS.filter((horizon) => valueOf(values, "stellar_horizon_up", { horizon }) !== 1).map(
        (horizon) => `${horizon} not up`,
      ),
      ...RPCS.filter((rpc) => valueOf(values, "stellar_rpc_up", { rpc }) !== 1).map((rpc) => `${rpc} not up`),
      ...HORIZONS.flatMap((horizon) =>
        HORIZON_ENDPOINTS.filter(
          (endpoint) =>
            !(
              valueOf(values, "stellar_horizon_exporter_last_success_timestamp_seconds", { horizon, endpoint })! >=
              cleanSinceSeconds
            ),
        ).map((endpoint) => `${horizon} ${endpoint} not fresh`),
      ),
      ...RPCS.filter(
        (rpc) =>
          !(
            valueOf(values, "stellar_horizon_exporter_rpc_last_success_timestamp_seconds", {
              rpc,
              endpoint: "status",
            })! >= cleanSinceSeconds
          ),
      ).map((rpc) => `${rpc} status not fresh`),
      ...HORIZONS.filter(
        (horizon) =>
          valueOf(values, "stellar_horizon_account_balance", { horizon, account: "watched", asset: "native" }) !==
          10025.7670792,
      ).map((horizon) => `${horizon} account balance not exported`),
    ];
    let last: string[] = [];
    const deadline = Date.now() + RECOVERY_MS;
    while (Date.now() < deadline) {
      last = stale(await scrape());
      if (last.length === 0) break;
      await new Promise((done) => setTimeout(done, SCRAPE_EVERY_MS));
    }
    expect(last, `seed ${seed}: fresh within ${RECOVERY_MS} ms of clean answers`).toEqual([]);
    recoveryMs = Date.now() - cleanSinceSeconds * 1000;
    // Alive to the end.
    expect(running.child.exitCode, `seed ${seed}`).toBeNull();
  } finally {
    clearInterval(ledgerTimer);
    exporter?.child.kill("SIGTERM");
    await exporter?.exited;
    await Promise.all(upstreams.map((upstream) => upstream.stop()));
  }
  const applied = new Map<string, number>();
  for (const upstream of upstreams)
    for (const [name, count] of upstream.applied) applied.set(name, (applied.get(name) ?? 0) + count);
  return { scrapes, applied, recoveryMs };
}

function report(
  seed: number,
  seconds: number,
  { scrapes, applied, recoveryMs }: Awaited<ReturnType<typeof fuzz>>,
): void {
  const mib = Math.max(...scrapes.map((scrape) => scrape.rssBytes)) / 1024 / 1024;
  const times = scrapes.map((scrape) => scrape.ms);
  const p50 = percentile(times, 0.5);
  const p99 = percentile(times, 0.99);
  const classes = [...applied]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => `${name}=${count}`)
    .join(" ");
  console.log(
    `hostile fuzz: seed ${seed}, ${seconds} s hostile, ${scrapes.length} scrapes, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms, max RSS ${mib.toFixed(1)} MiB, fresh ${(recoveryMs / 1000).toFixed(1)} s after clean answers (poll period ${POLL_PERIOD_MS / 1000} s); mutations: ${classes}`,
  );
}

describe("hostile fuzz", () => {
  beforeAll(() => console.log(`hostile fuzz seed: ${SEED} (repeat with FUZZ_SEED=${SEED})`));

  it(`survives ${FUZZ_SECONDS} s of mutated answers and recovers once they are clean`, {
    timeout: (FUZZ_SECONDS + 120) * 1000,
  }, async () => {
    const result = await fuzz(SEED, FUZZ_SECONDS);
    report(SEED, FUZZ_SECONDS, result);
    expect(result.applied.size, "mutation classes exercised").toBeGreaterThan(10);
  });

  for (const seed of REGRESSION_SEEDS) {
    it(`regression seed ${seed}`, { timeout: 130_000 }, async () => {
      report(seed, 10, await fuzz(seed, 10));
    });
  }
});
