import { expect, it } from "vitest";
import { spawnCli } from "./support/cli-process.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { until } from "./support/wait.js";
import { DEMO_MAKER, USDC } from "../src/simulator/index.js";

it("the demo serves live, moving metrics within 15 s", async () => {
  const { child, output, errors, exited } = spawnCli(["demo", "--web.listen-address=127.0.0.1:0"], {
    DEMO_SIMULATOR_PORT: "0",
  });
  let exitCode: number | null | undefined;
  try {
    // Its start (two simulators with their history) shares the cores with other test files.
    const metricsUrl = await until(
      () => `the demo's URLs (exit code ${child.exitCode}, stderr: ${JSON.stringify(errors().slice(-2000))})`,
      () => {
        if (child.exitCode !== null) throw new Error(`the demo exited ${child.exitCode}`);
        return /metrics:\s+(\S+)/.exec(output())?.[1];
      },
      { timeoutMs: 45_000 },
    );
    expect(output()).toMatch(/simulator:\s+http:\/\/127\.0\.0\.1:\d+\//);
    // A shipped example starts clean: no warning (such as the request budget's) in its log.
    expect(output()).not.toMatch(/"level":40/);
    const started = Date.now();
    const scrape = async () => parseExposition(await (await fetch(metricsUrl)).text());
    const first = await until("the first ledger", async () =>
      valueOf(await scrape(), "stellar_horizon_ledger_sequence", { horizon: "simulator" }),
    );
    const later = await until("a newer ledger", async () => {
      const sequence = valueOf(await scrape(), "stellar_horizon_ledger_sequence", { horizon: "simulator" });
      return sequence !== undefined && sequence > first ? sequence : undefined;
    });
    expect(later).toBeGreaterThan(first);
    expect(Date.now() - started).toBeLessThan(15_000);
    const values = await scrape();
    expect(valueOf(values, "stellar_horizon_up", { horizon: "simulator" })).toBe(1);
    // The two simulated wallets are watched out of the box, with their low-water marks.
    expect(valueOf(values, "stellar_horizon_account_exists", { horizon: "simulator", account: "hot" })).toBe(1);
    expect(
      valueOf(values, "stellar_horizon_account_balance_low_watermark", {
        horizon: "simulator",
        account: "cold",
        asset: "native",
      }),
    ).toBe(100_000);
    expect(output()).toMatch(/stellar rpc:\s+http:\/\/127\.0\.0\.1:\d+\/rpc/);
    expect(valueOf(values, "stellar_rpc_up", { rpc: "simulator" })).toBe(1);
    expect(valueOf(values, "stellar_rpc_healthy", { rpc: "simulator" })).toBe(1);
    // The same wallets over the simulator's Stellar RPC, with their USDC trustlines read.
    const rpcAccounts = await until("the accounts over Stellar RPC", async () => {
      const now = await scrape();
      return valueOf(now, "stellar_rpc_account_exists", { rpc: "simulator", account: "hot" }) === 1 ? now : undefined;
    });
    expect(
      valueOf(rpcAccounts, "stellar_rpc_account_balance_low_watermark", {
        rpc: "simulator",
        account: "cold",
        asset: "native",
      }),
    ).toBe(100_000);
    expect(
      valueOf(rpcAccounts, "stellar_rpc_account_trustline_exists", { rpc: "simulator", account: "hot", asset: USDC }),
    ).toBe(1);
    // The demo contracts are watched out of the box: the wasm contract's instance, code and storage entry, the asset contract's instance.
    for (const [contract, entry] of [
      ["counter", "instance"],
      ["counter", "code"],
      ["counter", "counter"],
      ["usdc", "instance"],
    ]) {
      expect(
        valueOf(values, "stellar_rpc_contract_entry_ttl_ledgers", {
          rpc: "simulator",
          contract: contract!,
          entry: entry!,
          durability: "persistent",
        }),
      ).toBeGreaterThan(0);
    }
    expect(output()).toMatch(/\/_sim\/scenario\/contract_expiring/);
    // Their events are counted out of the box: the asset contract's transfers and mints, the counter's.
    const eventsOf = (series: Map<string, number>, contract: string) =>
      [...series]
        .filter(
          ([key]) => key.startsWith("stellar_rpc_contract_events_total{") && key.includes(`contract="${contract}"`),
        )
        .reduce((sum, [, value]) => sum + value, 0);
    await until("the demo contracts' events", async () => {
      const series = await scrape();
      return eventsOf(series, "usdc") > 0 && eventsOf(series, "counter") > 0 ? series : undefined;
    });
    expect(
      valueOf(await scrape(), "stellar_rpc_contract_events_expected_within_seconds", {
        rpc: "simulator",
        contract: "counter",
      }),
    ).toBe(60);
    // The simulated markets are watched out of the box: USDX against its peg, with the maker quoting both sides.
    const markets = { horizon: "simulator", market: "usdx-usdc" };
    expect(valueOf(values, "stellar_horizon_market_reference_price", markets)).toBe(1);
    expect(valueOf(values, "stellar_horizon_market_maker_offers", { ...markets, maker: DEMO_MAKER, side: "ask" })).toBe(
      3,
    );
    expect(output()).toMatch(/\/_sim\/scenario\/stablecoin_depeg/);
    // The demo's probe submits from a generated key every 15 s; the simulator includes it in a ledger.
    const probeSuccess = await until(
      "a successful probe",
      async () =>
        valueOf(await scrape(), "stellar_horizon_tx_probe_last_success_timestamp_seconds", { horizon: "simulator" }),
      { timeoutMs: 30_000 },
    );
    expect(probeSuccess).toBeGreaterThan(started / 1000 - 1);
    expect(
      valueOf(await scrape(), "stellar_horizon_tx_probe_submissions_total", { horizon: "simulator" }),
    ).toBeGreaterThanOrEqual(1);
    // A second simulator of the same testnet, which forks later: three targets, compared with each other.
    expect(output()).toMatch(
      /fork:\s+http:\/\/127\.0\.0\.1:\d+\/ +\(the same network, other hashes from ledger \d+ on/,
    );
    const compared = await until("the fork compared with the others", async () => {
      const series = await scrape();
      const comparisons = valueOf(series, "stellar_network_ledger_hash_comparisons_total", {
        network: "testnet",
        kind: "horizon",
        target: "fork",
      });
      return comparisons !== undefined && comparisons > 0 ? series : undefined;
    });
    expect(valueOf(compared, "stellar_network_targets", { network: "testnet" })).toBe(3);
    // Two payment corridors find paths; corridor_drain takes usdc-to-xlm's away.
    const corridor = (series: Map<string, number>, name: string, metric = "stellar_horizon_corridor_paths") =>
      valueOf(series, metric, { horizon: "simulator", corridor: name });
    const found = await scrape();
    expect(corridor(found, "usdc-to-xlm")).toBeGreaterThan(0);
    expect(corridor(found, "xlm-for-eurc")).toBeGreaterThan(0);
    expect(output()).toMatch(/\/_sim\/scenario\/corridor_drain/);
    const simulatorUrl = /simulator:\s+(http:\/\/\S+?)\/\s/.exec(output())?.[1];
    await fetch(`${simulatorUrl}/_sim/scenario/corridor_drain`, { method: "POST" });
    const drained = await until(
      "usdc-to-xlm losing its path",
      async () => {
        const series = await scrape();
        return corridor(series, "usdc-to-xlm") === 0 ? series : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(corridor(drained, "usdc-to-xlm", "stellar_horizon_corridor_best_rate")).toBeUndefined();
    expect(corridor(drained, "xlm-for-eurc")).toBeGreaterThan(0);
  } finally {
    child.kill("SIGTERM");
    // Awaited here, asserted after: a failure above is reported as itself, not as the exit code.
    exitCode = await exited;
  }
  expect(exitCode).toBe(0);
}, 120_000);
