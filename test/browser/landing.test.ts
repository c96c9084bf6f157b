import { existsSync, mkdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, chromium, startLandingDemo, type LandingDemo } from "../../scripts/landing-demo.js";
import { DEMO_RPC_WATCHED_ACCOUNTS } from "../../src/simulator/index.js";
import type { StatusReport } from "../../src/status/model.js";
import { parseExposition } from "../support/exposition.js";
import { wellFormedProblems } from "../support/well-formed.js";

const OUTPUT_DIR = fileURLToPath(new URL("../output/", import.meta.url));

/** Attribute text as the DOM serialiser writes it. */
function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Every figure the page shows: the series it names, its exact value and the text a reader sees. */
function figuresIn(dom: string): Array<{ series: string; value: number; text: string }> {
  return [...dom.matchAll(/<span class="figure" data-series="([^"]+)" data-value="([^"]+)">([^<]*)<\/span>/g)].map(
    ([, series, value, text]) => ({
      series: decode(series!),
      value: Number(value),
      text: decode(text!),
    }),
  );
}

// Chromium is part of the test environment (.ci/run installs it); the test runs whenever it is there.
describe.skipIf(!existsSync(CHROMIUM))("the landing page in headless Chromium", () => {
  let demo: LandingDemo;

  beforeAll(async () => {
    // Ten simulated minutes of the demo's 10 s polls, with a fee spike in the middle.
    demo = await startLandingDemo({
      minutes: 10,
      scenarios: [
        [3, "fee_spike"],
        [6, "healthy"],
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await demo?.close();
  });

  it("shows the figures /metrics serves, with sparklines, and saves a screenshot", async () => {
    // No poll runs between these reads: the demo's clock and polls move only when told.
    const metrics = parseExposition(await (await fetch(`${demo.exporter.url}/metrics`)).text());
    const status = (await (await fetch(`${demo.exporter.url}/status.json`)).json()) as StatusReport;
    const dom = await chromium(["--dump-dom", `${demo.exporter.url}/`]);

    expect(dom).toContain("<title>Stellar Horizon Exporter</title>");
    expect(dom).toContain('<span class="badge up">UP</span>');

    const target = status.targets[0]!;
    const figures = figuresIn(dom);
    const shown = new Map(figures.map((figure) => [figure.series, figure]));
    const key = (name: string, labels = "") => `${name}{horizon="simulator"${labels}}`;
    for (const series of [
      key("stellar_horizon_ingest_latest_ledger"),
      key("stellar_horizon_ingest_lag_ledgers"),
      key("stellar_horizon_current_protocol_version"),
      key("stellar_horizon_fee_stats_base_fee_stroops"),
      key("stellar_horizon_fee_charged_stroops", ',stat="p50"'),
      key("stellar_horizon_fee_charged_stroops", ',stat="p90"'),
      key("stellar_horizon_ledger_capacity_usage_ratio"),
      key("stellar_horizon_transactions_total", ',result="failed"'),
      key("stellar_horizon_liquidity_pools"),
    ]) {
      expect(shown.get(series)?.value, series).toBe(metrics.get(series));
    }
    // The watched accounts' section, published by the accounts collector.
    const hotNative = 'stellar_horizon_account_balance{account="hot",asset="native",horizon="simulator"}';
    expect(metrics.get(hotNative)).toBeGreaterThan(0);
    expect(shown.get(hotNative)?.value).toBe(metrics.get(hotNative));
    // The transaction probe's section, published by the probe.
    const submissions = metrics.get(key("stellar_horizon_tx_probe_submissions_total"))!;
    const probeFailures = [...metrics]
      .filter(([series]) => series.startsWith("stellar_horizon_tx_probe_failures_total{"))
      .reduce((sum, [, value]) => sum + value, 0);
    expect(submissions).toBeGreaterThan(50);
    expect(shown.get(key("stellar_horizon_tx_probe_submissions_total"))?.value).toBe(submissions);
    expect(target.txProbe!.successRatio).toBe((submissions - probeFailures) / submissions);
    expect(dom).toContain(
      `<dt>Probe success ratio</dt><dd>${(((submissions - probeFailures) / submissions) * 100).toFixed(1)} %</dd>`,
    );
    expect(target.txProbe!.lastDurationSeconds).toBeGreaterThan(0);
    // Every figure on the page, not only the key ones, is a series of /metrics with its value.
    for (const figure of figures) expect(figure.value, figure.series).toBe(metrics.get(figure.series));
    expect(shown.get(key("stellar_horizon_ledger_capacity_usage_ratio"))!.text).toBe(
      `${(metrics.get(key("stellar_horizon_ledger_capacity_usage_ratio"))! * 100).toFixed(1)} %`,
    );
    expect(shown.get(key("stellar_horizon_ingest_latest_ledger"))!.text).toBe(
      String(metrics.get(key("stellar_horizon_ingest_latest_ledger"))),
    );

    // The derived figures come from the same series.
    const failed = metrics.get(key("stellar_horizon_transactions_total", ',result="failed"'))!;
    const successful = metrics.get(key("stellar_horizon_transactions_total", ',result="successful"'))!;
    expect(dom).toContain(`${((failed / (failed + successful)) * 100).toFixed(1)} %`);
    expect(target.transactions!.failedShare).toBe(failed / (failed + successful));
    expect(target.latestLedger!.value).toBe(metrics.get(key("stellar_horizon_ingest_latest_ledger")));
    expect(target.feeChargedP90Stroops!.value).toBe(
      metrics.get(key("stellar_horizon_fee_charged_stroops", ',stat="p90"')),
    );

    // Sixty polls of history: each gauge sparkline has a point per poll and a line through them.
    expect(target.history.fee_p90).toHaveLength(61);
    expect(Math.max(...target.history.fee_p90!.map(([, value]) => value))).toBeGreaterThan(
      target.feeChargedP90Stroops!.value,
    );
    const svgs = [...dom.matchAll(/<svg\b[^>]*>[\s\S]*?<\/svg>/g)].map(([svg]) => svg);
    // Five for the Horizon, four for the Stellar RPC of the same name, on a card of its own.
    expect(svgs).toHaveLength(9);
    const rpc = status.targets[1]!;
    expect(rpc).toMatchObject({ kind: "rpc", name: "simulator", state: "up" });
    expect(rpc.latestLedger!.value).toBe(metrics.get('stellar_rpc_latest_ledger{rpc="simulator"}'));
    expect(shown.get('stellar_rpc_ledger_retention_window_ledgers{rpc="simulator"}')?.value).toBe(
      metrics.get('stellar_rpc_ledger_retention_window_ledgers{rpc="simulator"}'),
    );
    expect(shown.get('stellar_rpc_healthy{rpc="simulator"}')?.text).toBe("healthy");
    expect(rpc.history.rpc_soroban_fee_p90).toHaveLength(61);
    for (const svg of svgs) {
      expect(svg).toMatch(/role="img"/);
      expect(svg).toMatch(/aria-label="[^"]+, last 30 min: latest /);
      expect(svg).toContain("<polyline");
    }

    // The watched contracts' section: the demo's wasm contract (instance, code, storage key) and USDC's asset contract.
    const contracts = rpc.contracts!;
    expect(contracts.map(({ contract, entry }) => `${contract}/${entry}`).sort()).toEqual([
      "counter/code",
      "counter/counter",
      "counter/instance",
      "usdc/instance",
    ]);
    const nowSeconds = Date.parse(status.generatedAt) / 1000;
    for (const entry of contracts) {
      const labels = `contract="${entry.contract}",durability="persistent",entry="${entry.entry}",rpc="simulator"`;
      const expiry = metrics.get(`stellar_rpc_contract_entry_expiry_timestamp_seconds{${labels}}`)!;
      expect(entry.ttlLedgers!.value).toBe(metrics.get(`stellar_rpc_contract_entry_ttl_ledgers{${labels}}`));
      expect(entry.daysLeft).toBe((expiry - nowSeconds) / 86_400);
      // Ten simulated minutes take little of their TTLs: 20 days or more each (DEMO_TTLS).
      expect(entry.state).toBe("live");
      expect(shown.get(`stellar_rpc_contract_entry_ttl_ledgers{${labels}}`)?.value).toBe(entry.ttlLedgers!.value);
    }
    expect(contracts.map(({ daysLeft }) => daysLeft)).toEqual(
      contracts.map(({ daysLeft }) => daysLeft).sort((a, b) => a! - b!),
    );
    expect(dom).toContain('<caption>Watched contracts <span class="note">(soonest archival first)</span></caption>');
    expect(dom).toContain(`<td class="num">${contracts[0]!.daysLeft!.toFixed(1)}</td>`);
    expect(dom.match(/<span class="badge live" title="[^"]+">live<\/span>/g)).toHaveLength(4);

    // The same wallets watched over the Stellar RPC, on its card, from the stellar_rpc_account families.
    const rpcHotNative = 'stellar_rpc_account_balance{account="hot",asset="native",rpc="simulator"}';
    expect(metrics.get(rpcHotNative)).toBeGreaterThan(0);
    expect(shown.get(rpcHotNative)?.value).toBe(metrics.get(rpcHotNative));
    expect(
      rpc.accounts!.find(({ account }) => account === "hot")!.balances.find(({ asset }) => asset === "native")!.balance
        .value,
    ).toBe(metrics.get(rpcHotNative));
    expect(rpc.accounts!.map(({ account }) => account).sort()).toEqual(
      DEMO_RPC_WATCHED_ACCOUNTS.map(({ name }) => name).sort(),
    );
    const rpcCard = dom.slice(dom.indexOf('aria-labelledby="target-1"'));
    expect(rpcCard).toContain("<caption>Watched accounts</caption>");

    // The hot wallet's pool shares, named by the pair the pools poll reads for the pool.
    const poolShares = target
      .accounts!.find(({ account }) => account === "hot")!
      .balances.find(({ pool }) => pool !== undefined)!;
    const [assetA, assetB] = poolShares.pool!.assets!;
    const info = [...metrics.keys()].find(
      (series) =>
        series.startsWith("stellar_horizon_liquidity_pool_info{") &&
        series.includes(`pool_id="${poolShares.pool!.poolId}"`),
    )!;
    expect(info).toContain(`asset_a="${assetA}",asset_b="${assetB}"`);
    const code = (asset: string) => (asset === "native" ? "XLM" : asset.split(":")[0]);
    expect(dom).toContain(`>${code(assetA)}/${code(assetB)} pool shares</span>`);

    expect(wellFormedProblems(await (await fetch(`${demo.exporter.url}/`)).text())).toEqual([]);

    mkdirSync(OUTPUT_DIR, { recursive: true });
    const screenshot = `${OUTPUT_DIR}landing-page.png`;
    await chromium(["--window-size=1200,820", `--screenshot=${screenshot}`, `${demo.exporter.url}/`]);
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  }, 120_000);
});
