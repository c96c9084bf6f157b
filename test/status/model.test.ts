import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/catalog/metrics.js";
import type { Sample } from "../../src/exposition/samples.js";
import { landingPage } from "../../src/server/landing.js";
import { createStatusBoard, statusReport, type TargetView } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";

const NOW_MS = Date.parse("2026-01-01T00:00:30Z");
const PUBNET = { label: "horizon", name: "pubnet <1>" } as const;

/** Families of the accounts and probe features, as their issues name them; not yet in every catalog. */
function endpoints(
  overrides: Partial<Record<string, Partial<TargetView["endpoints"][number]>>> = {},
): TargetView["endpoints"] {
  return (["root", "fee_stats", "ledgers", "liquidity_pools"] as const).map((endpoint) => ({
    target: "x",
    endpoint,
    schedule: "10s",
    polls: 3,
    lastSuccessMs: NOW_MS - 5_000,
    ...overrides[endpoint],
  }));
}

function publishedBoard(extraRoot: Sample[] = []) {
  const board = createStatusBoard(() => NOW_MS - 1_000);
  const fresh = NOW_MS + 60_000;
  board.published(
    PUBNET,
    "root",
    {
      live: [
        {
          metric: METRICS.info,
          labels: {
            horizon_version: "2.32.0",
            core_version: "stellar-core 22.1.0",
            network: "pubnet",
            network_passphrase: "Public Global Stellar Network ; September 2015",
          },
          value: 1,
        },
        { metric: METRICS.ingestLatestLedger, value: 59_000_123 },
        { metric: METRICS.historyLatestLedgerClosedTimestamp, value: NOW_MS / 1000 - 4 },
        { metric: METRICS.ingestLagLedgers, value: 2 },
        { metric: METRICS.currentProtocolVersion, value: 22 },
        ...extraRoot,
      ],
      persistent: [{ metric: METRICS.up, value: 1 }],
    },
    fresh,
  );
  board.published(
    PUBNET,
    "fee_stats",
    {
      live: [
        { metric: METRICS.feeStatsBaseFee, value: 100 },
        { metric: METRICS.ledgerCapacityUsage, value: 0.97 },
        { metric: METRICS.feeCharged, labels: { stat: "p50" }, value: 120 },
        { metric: METRICS.feeCharged, labels: { stat: "p90" }, value: 5000 },
      ],
      persistent: [],
    },
    fresh,
  );
  board.published(
    PUBNET,
    "ledgers",
    {
      live: [],
      persistent: [
        { metric: METRICS.transactionsTotal, labels: { result: "successful" }, value: 300 },
        { metric: METRICS.transactionsTotal, labels: { result: "failed" }, value: 100 },
      ],
    },
    fresh,
  );
  board.published(
    PUBNET,
    "liquidity_pools",
    { live: [{ metric: METRICS.liquidityPools, value: 42 }], persistent: [] },
    fresh,
  );
  return board;
}

describe("status report", () => {
  it("carries every figure with the series it comes from", () => {
    const report = statusReport(
      "1.2.3",
      [
        {
          label: "horizon",
          name: "pubnet <1>",
          title: "pubnet <1>",
          url: "https://horizon.example/",
          endpoints: endpoints(),
        },
      ],
      publishedBoard(),
      NOW_MS,
    );
    const [target] = report.targets;
    expect(report.generatedAt).toBe("2026-01-01T00:00:30.000Z");
    expect(report.historyWindowSeconds).toBe(1800);
    expect(target).toMatchObject({
      name: "pubnet <1>",
      state: "up",
      network: "pubnet",
      horizonVersion: "2.32.0",
      coreVersion: "stellar-core 22.1.0",
      protocolVersion: { metric: "stellar_horizon_current_protocol_version", value: 22 },
      latestLedger: { metric: "stellar_horizon_ingest_latest_ledger", value: 59_000_123 },
      latestLedgerAgeSeconds: 4,
      ingestLagLedgers: { value: 2 },
      baseFeeStroops: { value: 100 },
      feeChargedP50Stroops: { metric: "stellar_horizon_fee_charged_stroops", labels: { stat: "p50" }, value: 120 },
      feeChargedP90Stroops: { labels: { stat: "p90" }, value: 5000 },
      ledgerCapacityUsageRatio: { value: 0.97 },
      transactions: { successful: { value: 300 }, failed: { value: 100 }, failedShare: 0.25 },
      liquidityPools: { value: 42 },
    });
    expect(target!.accounts).toBeUndefined();
    expect(target!.txProbe).toBeUndefined();
    expect(target!.history.ingest_lag).toEqual([[NOW_MS - 1_000, 2]]);
    expect(target!.history.capacity).toEqual([[NOW_MS - 1_000, 0.97]]);
  });

  it("names each endpoint's poll state: ok, failing with its reason, running for N s, waiting", () => {
    const report = statusReport(
      "1",
      [
        {
          label: "horizon",
          name: "pubnet <1>",
          title: "pubnet <1>",
          url: "u",
          endpoints: endpoints({
            fee_stats: { lastError: { reason: "http_5xx", message: "HTTP 503", atMs: NOW_MS - 1_000 } },
            ledgers: { runningSinceMs: NOW_MS - 12_500 },
            liquidity_pools: { polls: 0, lastSuccessMs: undefined },
          }),
        },
      ],
      publishedBoard(),
      NOW_MS,
    );
    const [root, fees, ledgers, pools] = report.targets[0]!.endpoints;
    expect(root).toMatchObject({ state: "ok", lastSuccessAt: "2026-01-01T00:00:25.000Z" });
    expect(fees).toMatchObject({
      state: "failing",
      lastError: { reason: "http_5xx", message: "HTTP 503", at: "2026-01-01T00:00:29.000Z" },
    });
    expect(ledgers).toMatchObject({ state: "running", runningForSeconds: 12 });
    expect(pools).toMatchObject({ state: "waiting", polls: 0 });
    expect(report.targets[0]!.state).toBe("degraded");
  });

  it("shows watched accounts and the transaction probe once their series are published", () => {
    const balance = METRICS.accountBalance;
    const lowWatermark = METRICS.accountBalanceLowWatermark;
    const signerChanges = METRICS.accountSignerChangesTotal;
    const submissions = METRICS.txProbeSubmissions;
    const failures = METRICS.txProbeFailures;
    const board = publishedBoard([
      { metric: balance, labels: { account: "hot", asset: "native" }, value: 40 },
      { metric: balance, labels: { account: "hot", asset: "USDC:GA5Z" }, value: 900 },
      { metric: lowWatermark, labels: { account: "hot", asset: "native" }, value: 50 },
      { metric: signerChanges, labels: { account: "hot" }, value: 1 },
      { metric: submissions, value: 20 },
      { metric: failures, labels: { reason: "tx_bad_seq" }, value: 1 },
      { metric: failures, labels: { reason: "timeout" }, value: 4 },
    ]);
    const [target] = statusReport(
      "1",
      [{ label: "horizon", name: "pubnet <1>", title: "pubnet <1>", url: "u", endpoints: endpoints() }],
      board,
      NOW_MS,
    ).targets;
    expect(target!.accounts).toEqual([
      {
        account: "hot",
        balances: [
          {
            asset: "native",
            balance: {
              metric: "stellar_horizon_account_balance",
              labels: { account: "hot", asset: "native" },
              value: 40,
            },
            lowWatermark: {
              metric: "stellar_horizon_account_balance_low_watermark",
              labels: { account: "hot", asset: "native" },
              value: 50,
            },
            low: true,
          },
          {
            asset: "USDC:GA5Z",
            balance: {
              metric: "stellar_horizon_account_balance",
              labels: { account: "hot", asset: "USDC:GA5Z" },
              value: 900,
            },
            low: false,
          },
        ],
        signerChanges: { metric: "stellar_horizon_account_signer_changes_total", labels: { account: "hot" }, value: 1 },
      },
    ]);
    expect(target!.txProbe).toEqual({
      submissions: { metric: "stellar_horizon_tx_probe_submissions_total", value: 20 },
      failures: 5,
      successRatio: 0.75,
    });
    const page = String(
      landingPage(
        statusReport(
          "1",
          [{ label: "horizon", name: "pubnet <1>", title: "pubnet <1>", url: "u", endpoints: endpoints() }],
          board,
          NOW_MS,
        ),
      ),
    );
    expect(page).toContain("<caption>Watched accounts</caption>");
    expect(page).toContain('<span class="badge low">low</span>');
    expect(page).toContain("75.0 %");
    // No duration yet: "no data", without a unit after it.
    expect(page).toContain('<dt>Probe last duration</dt><dd><span class="note">no data</span></dd>');
    expect(wellFormedProblems(page)).toEqual([]);
  });
});

describe("a target that goes down", () => {
  it("keeps its network, versions and latest ledger, greyed with their age, once their series go stale", () => {
    const board = publishedBoard();
    // The root poll fails 40 s later: no live samples, up 0.
    board.published(PUBNET, "root", { live: [], persistent: [{ metric: METRICS.up, value: 0 }] }, NOW_MS + 60_000);
    const later = NOW_MS + 40_000;
    const view = {
      label: "horizon" as const,
      name: "pubnet <1>",
      title: "pubnet <1>",
      url: "u",
      endpoints: endpoints(),
    };
    const [target] = statusReport("1", [view], board, later).targets;
    expect(target!.state).toBe("down");
    expect(target!.latestLedger).toBeUndefined();
    expect(target!.lastKnown).toEqual({
      network: { value: "pubnet", ageSeconds: 41 },
      horizonVersion: { value: "2.32.0", ageSeconds: 41 },
      coreVersion: { value: "stellar-core 22.1.0", ageSeconds: 41 },
      protocolVersion: { value: 22, ageSeconds: 41 },
      latestLedger: { value: 59_000_123, ageSeconds: 41 },
    });
    const page = String(landingPage(statusReport("1", [view], board, later)));
    expect(page).toContain(
      '<dt>Latest ledger</dt><dd><span class="stale" title="last known value; no fresh data since">59000123 <span class="unit">(41 s ago)</span></span></dd>',
    );
    expect(page).toContain(
      '<dt>Network</dt><dd><span class="stale" title="last known value; no fresh data since">pubnet <span class="unit">(41 s ago)</span></span></dd>',
    );
    expect(wellFormedProblems(page)).toEqual([]);
  });

  it("has no last known values while its figures are fresh", () => {
    const [target] = statusReport(
      "1",
      [{ label: "horizon", name: "pubnet <1>", title: "pubnet <1>", url: "u", endpoints: endpoints() }],
      publishedBoard(),
      NOW_MS,
    ).targets;
    expect(target!.lastKnown).toBeUndefined();
  });
});

describe("the page's tables", () => {
  const board = publishedBoard([
    { metric: METRICS.accountBalance, labels: { account: "hot", asset: "native" }, value: 40 },
    { metric: METRICS.accountBalance, labels: { account: "hot", asset: "USDC:GA5Z" }, value: 900 },
    { metric: METRICS.accountSignerChangesTotal, labels: { account: "hot" }, value: 1 },
    { metric: METRICS.txProbeSubmissions, value: 0 },
    { metric: METRICS.txProbeRefused, labels: { reason: "pubnet" }, value: 0 },
    { metric: METRICS.txProbeRefused, labels: { reason: "unfunded" }, value: 1 },
  ]);
  const view = {
    label: "horizon" as const,
    name: "pubnet <1>",
    title: "pubnet <1>",
    url: "u",
    endpoints: endpoints({
      fee_stats: { lastError: { reason: "http_5xx", message: "HTTP 503", atMs: NOW_MS - 200_000 } },
    }),
  };
  const page = String(landingPage(statusReport("1", [view], board, NOW_MS)));

  it("shows times as their age, the exact time on hover", () => {
    expect(page).toContain('<time datetime="2026-01-01T00:00:25.000Z" title="2026-01-01T00:00:25.000Z">5 s ago</time>');
    expect(page).toContain(
      'http_5xx: HTTP 503 (<time datetime="2025-12-31T23:57:10.000Z" title="2025-12-31T23:57:10.000Z">3 min ago</time>)',
    );
  });

  it("names each account and its signer changes once, beside all of its balances, numbers right-aligned", () => {
    expect(page.match(/>hot</g)).toHaveLength(1);
    expect(page.match(/data-series="stellar_horizon_account_signer_changes_total/g)).toHaveLength(1);
    expect(page).toContain('<td rowspan="2">hot</td><td class="num" rowspan="2">');
    expect(page).toMatch(
      /<td class="num"><span class="figure" data-series="stellar_horizon_account_balance\{[^"]*asset=&quot;native&quot;[^"]*" data-value="40">40<\/span><\/td>/,
    );
    expect(wellFormedProblems(page)).toEqual([]);
  });

  it("says why the probe refuses to submit", () => {
    const [target] = statusReport("1", [view], board, NOW_MS).targets;
    expect(target!.txProbe?.refused).toEqual({
      metric: "stellar_horizon_tx_probe_refused",
      labels: { reason: "unfunded" },
      value: 1,
    });
    expect(page).toContain('<span class="badge failing">refused: unfunded</span>');
  });
});

describe("landing page markup", () => {
  const report = statusReport(
    "1.2.3",
    [
      {
        label: "horizon",
        name: "pubnet <1>",
        title: "pubnet <1>",
        url: "https://horizon.example/",
        endpoints: endpoints({
          fee_stats: {
            lastError: { reason: "http_5xx", message: "HTTP 503: <b>busy</b> & more", atMs: NOW_MS - 1_000 },
          },
        }),
      },
      {
        label: "horizon",
        name: 'waiting & "quoted"',
        title: 'waiting & "quoted"',
        url: "http://other/",
        endpoints: endpoints({ root: { polls: 0, lastSuccessMs: undefined } }),
      },
    ],
    publishedBoard(),
    NOW_MS,
  );
  const page = String(landingPage(report));

  it("is well formed, with a language, a title and a 10 s refresh", () => {
    expect(wellFormedProblems(page)).toEqual([]);
    expect(page).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(page).toContain("<title>Stellar Horizon Exporter</title>");
    expect(page).toContain('<meta http-equiv="refresh" content="10"/>');
    expect(page).not.toMatch(/<script|<link|@import|url\(|https?:\/\/(?!horizon\.example|other|www\.w3\.org)/);
  });

  it("gives every sparkline role=img, an accessible name and a title", () => {
    const svgs = [...page.matchAll(/<svg\b[^>]*>[\s\S]*?<\/svg>/g)].map(([svg]) => svg);
    expect(svgs).toHaveLength(10);
    for (const svg of svgs) {
      expect(svg).toMatch(/^<svg [^>]*role="img"/);
      expect(svg).toMatch(/^<svg [^>]*aria-label="[^"]+(ledgers|s|stroops|%)\), last 30 min: /);
      expect(svg).toContain("<title>");
      expect(svg).not.toContain("NaN");
    }
  });

  it("escapes operator input and Horizon's error text", () => {
    expect(page).not.toContain("<1>");
    expect(page).toContain("pubnet &lt;1&gt;");
    expect(page).toContain("waiting &amp; &quot;quoted&quot;");
    expect(page).not.toContain("<b>busy</b>");
    expect(page).toContain("http_5xx: HTTP 503: &lt;b&gt;busy&lt;/b&gt; &amp; more");
  });

  it("says every state in words beside its colour", () => {
    expect(page).toContain('<span class="badge degraded">DEGRADED</span>');
    expect(page).toContain('<span class="badge waiting">WAITING</span>');
    expect(page).toContain('<span class="badge ok">ok</span>');
    expect(page).toContain('<span class="badge failing">failing: http_5xx</span>');
  });

  it("tags each figure with its series and exact value", () => {
    expect(page).toContain(
      '<span class="figure" data-series="stellar_horizon_fee_charged_stroops{horizon=&quot;pubnet &lt;1&gt;&quot;,stat=&quot;p90&quot;}" data-value="5000">5000</span>',
    );
    expect(page).toContain('data-value="0.97">97.0 %</span>');
    expect(page).toContain(
      'closed <time datetime="2026-01-01T00:00:26.000Z" title="2026-01-01T00:00:26.000Z">4 s ago</time>',
    );
    expect(page).toContain(
      'as of <time datetime="2026-01-01T00:00:30.000Z" title="2026-01-01T00:00:30.000Z">00:00:30 UTC</time>',
    );
    expect(page).toContain('data-value="120">120</span> <span class="unit">stroops, 1.2× the base fee</span>');
    expect(page).toContain('data-value="5000">5000</span> <span class="unit">stroops, 50× the base fee</span>');
  });
});

describe("the well-formedness check itself", () => {
  it("finds unclosed, misnested and repeated markup and stray characters", () => {
    expect(wellFormedProblems('<html lang="en"><head><meta charset="utf-8"><title>x</title></head></html>')).toEqual([
      "offset 60: </head> closes <meta>",
      "offset 67: </html> closes <head>",
      "unclosed elements: html",
    ]);
    expect(wellFormedProblems("<p>a & b < c</p>")).toEqual([
      'offset 5: stray "&" (not markup, not an entity)',
      'offset 9: stray "<" (not markup, not an entity)',
    ]);
    expect(wellFormedProblems('<p a="1" a="2"></p><p></p>')).toEqual([
      "offset 0: <p> repeats the attribute a",
      "2 root elements instead of one",
    ]);
    expect(wellFormedProblems("<p class=x></p>")).toContain('offset 0: stray "<" (not markup, not an entity)');
  });
});

describe("a target never reached", () => {
  it("is down once its heartbeat poll has failed, before any up series reached the board", () => {
    const board = createStatusBoard(() => NOW_MS);
    const view = {
      label: "horizon" as const,
      name: "unreachable",
      title: "unreachable",
      url: "u",
      endpoints: [
        {
          target: "unreachable",
          endpoint: "root" as const,
          schedule: "15s",
          polls: 1,
          runningSinceMs: NOW_MS - 1_000,
          lastError: { reason: "http_5xx" as const, message: "503", atMs: NOW_MS - 2_000 },
        },
      ],
    };
    expect(statusReport("1", [view], board, NOW_MS).targets[0]!.state).toBe("down");
    const waiting = {
      ...view,
      endpoints: [{ target: "unreachable", endpoint: "root" as const, schedule: "15s", polls: 0 }],
    };
    expect(statusReport("1", [waiting], board, NOW_MS).targets[0]!.state).toBe("waiting");
  });
});

describe("an account with activity: true", () => {
  it("shows the last payment received and sent as ages, in the report and on the page", () => {
    const board = publishedBoard([
      { metric: METRICS.accountBalance, labels: { account: "deposits", asset: "native" }, value: 40 },
      {
        metric: METRICS.accountLastPaymentTimestamp,
        labels: { account: "deposits", direction: "received" },
        value: NOW_MS / 1000 - 180,
      },
    ]);
    const view = {
      label: "horizon" as const,
      name: "pubnet <1>",
      title: "pubnet <1>",
      url: "u",
      endpoints: endpoints(),
    };
    const report = statusReport("1", [view], board, NOW_MS);
    expect(report.targets[0]!.accounts?.[0]?.lastPaymentAgeSeconds).toEqual({ received: 180 });
    const page = String(landingPage(report));
    expect(page).toContain('<td rowspan="1">received 3 min ago, sent never seen</td>');
    expect(wellFormedProblems(page)).toEqual([]);
  });
});

describe("a target's state from its polls", () => {
  const failed = { lastError: { reason: "http_5xx" as const, message: "HTTP 503", atMs: NOW_MS - 2_000 } };
  const stateOf = (endpoints: TargetView["endpoints"]) =>
    statusReport("1", [{ ...PUBNET, title: "t", url: "u", endpoints }], publishedBoard(), NOW_MS).targets[0]!.state;

  it("is degraded while a poll whose last run failed runs again, as its failure still stands", () => {
    expect(stateOf(endpoints({ fee_stats: { ...failed, runningSinceMs: NOW_MS - 1_000 } }))).toBe("degraded");
  });

  it("on a shard without a heartbeat poll, follows the polls it runs: waiting, up, degraded", () => {
    const accounts = (status: Partial<TargetView["endpoints"][number]>) => [
      { target: "x", endpoint: "accounts" as const, schedule: "10s", polls: 1, ...status },
    ];
    expect(stateOf(accounts({ polls: 0 }))).toBe("waiting");
    expect(stateOf(accounts({ lastSuccessMs: NOW_MS - 5_000 }))).toBe("up");
    expect(stateOf(accounts({ lastSuccessMs: NOW_MS - 5_000, runningSinceMs: NOW_MS - 1_000 }))).toBe("up");
    expect(stateOf(accounts(failed))).toBe("degraded");
  });
});
