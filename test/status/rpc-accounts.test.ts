import { describe, expect, it } from "vitest";
import {
  HORIZON_ACCOUNT_METRICS,
  RPC_ACCOUNT_METRICS,
  RPC_METRICS,
  type AccountMetricSet,
} from "../../src/catalog/metrics.js";
import type { Sample } from "../../src/exposition/samples.js";
import { landingPage } from "../../src/server/landing.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";
import { polledTarget } from "./target-view.js";

const NOW_MS = Date.parse("2026-03-01T12:00:00Z");
const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const POOL = "4cd1f6defba237eecbc5fefe259f89ebc4b5edd49116beb5536c4034fc48d63f";
const RPC = { label: "rpc", name: "testnet" } as const;
const RPC_VIEW = polledTarget("rpc", "testnet", NOW_MS);
const HORIZON_VIEW = polledTarget("horizon", "testnet", NOW_MS);

/** One watched account's series as either kind's accounts collector publishes them. */
function account(
  metrics: AccountMetricSet,
  name: string,
  balances: ReadonlyArray<[asset: string, balance: number, lowWatermark?: number]>,
) {
  const live: Sample[] = [
    { metric: metrics.accountExists, labels: { account: name }, value: 1 },
    { metric: metrics.accountSubentries, labels: { account: name }, value: 2 },
  ];
  for (const [asset, balance, lowWatermark] of balances) {
    live.push({ metric: metrics.accountBalance, labels: { account: name, asset }, value: balance });
    if (lowWatermark !== undefined)
      live.push({ metric: metrics.accountBalanceLowWatermark, labels: { account: name, asset }, value: lowWatermark });
  }
  return {
    live,
    persistent: [{ metric: metrics.accountSignerChangesTotal, labels: { account: name }, value: 1 }] as Sample[],
  };
}

function rpcBoard(now: () => number = () => NOW_MS) {
  const board = createStatusBoard(now);
  board.published(RPC, "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] }, NOW_MS + 60_000);
  return board;
}

describe("accounts watched over Stellar RPC", () => {
  it("the board keeps the RPC account families the page reads, and no other", () => {
    const board = createStatusBoard();
    for (const metric of [
      RPC_ACCOUNT_METRICS.accountExists,
      RPC_ACCOUNT_METRICS.accountBalance,
      RPC_ACCOUNT_METRICS.accountBalanceLowWatermark,
      RPC_ACCOUNT_METRICS.accountSignerChangesTotal,
    ]) {
      expect(board.wants(metric), metric.name).toBe(true);
    }
    for (const metric of [
      RPC_ACCOUNT_METRICS.accountSubentries,
      RPC_ACCOUNT_METRICS.accountTrustlineLimit,
      RPC_ACCOUNT_METRICS.accountSignerWeight,
      RPC_ACCOUNT_METRICS.accountInfo,
    ]) {
      expect(board.wants(metric), metric.name).toBe(false);
    }
  });

  it("appear on the RPC card as Horizon-watched accounts do on the Horizon card, from the stellar_rpc_account families", () => {
    const board = rpcBoard();
    const hot = account(RPC_ACCOUNT_METRICS, "hot", [
      ["native", 40, 50],
      [USDC, 900],
      [`pool:${POOL}`, 28.1],
    ]);
    const cold = account(RPC_ACCOUNT_METRICS, "cold", [["native", 1_000_000]]);
    board.published(
      RPC,
      "accounts",
      {
        live: [
          ...hot.live,
          ...cold.live,
          { metric: RPC_ACCOUNT_METRICS.accountExists, labels: { account: "gone" }, value: 0 },
        ],
        persistent: [...hot.persistent, ...cold.persistent],
      },
      NOW_MS + 60_000,
    );
    // A Horizon of the same name watching its own account: neither card shows the other's.
    const horizon = { label: "horizon", name: "testnet" } as const;
    board.published(
      horizon,
      "accounts",
      account(HORIZON_ACCOUNT_METRICS, "horizon-only", [["native", 7]]),
      NOW_MS + 60_000,
    );

    const report = statusReport("1", [RPC_VIEW, HORIZON_VIEW], board, NOW_MS);
    const [rpc, onHorizon] = report.targets;
    expect(onHorizon!.accounts!.map(({ account }) => account)).toEqual(["horizon-only"]);
    expect(rpc!.accounts!.map(({ account }) => account)).toEqual(["hot", "cold", "gone"]);
    expect(rpc!.accounts![0]).toEqual({
      account: "hot",
      exists: { metric: "stellar_rpc_account_exists", labels: { account: "hot" }, value: 1 },
      balances: [
        {
          asset: "native",
          balance: { metric: "stellar_rpc_account_balance", labels: { account: "hot", asset: "native" }, value: 40 },
          lowWatermark: {
            metric: "stellar_rpc_account_balance_low_watermark",
            labels: { account: "hot", asset: "native" },
            value: 50,
          },
          low: true,
        },
        {
          asset: USDC,
          balance: { metric: "stellar_rpc_account_balance", labels: { account: "hot", asset: USDC }, value: 900 },
          low: false,
        },
        {
          asset: `pool:${POOL}`,
          balance: {
            metric: "stellar_rpc_account_balance",
            labels: { account: "hot", asset: `pool:${POOL}` },
            value: 28.1,
          },
          low: false,
          pool: { poolId: POOL },
        },
      ],
      signerChanges: { metric: "stellar_rpc_account_signer_changes_total", labels: { account: "hot" }, value: 1 },
    });
    expect(rpc!.accounts![2]).toEqual({
      account: "gone",
      exists: { metric: "stellar_rpc_account_exists", labels: { account: "gone" }, value: 0 },
      balances: [],
    });

    const page = String(landingPage(report));
    const rpcCard = page.slice(0, page.indexOf('aria-labelledby="target-1"'));
    // Signer changes once per account, beside all of its balances; the missing account first.
    expect(rpcCard).toContain(
      '<tr><td rowspan="1">gone</td><td class="num" rowspan="1"><span class="note">no data</span></td><td rowspan="1"></td><td colspan="3">account does not exist</td><td><span class="badge failing">missing</span></td></tr>',
    );
    expect(rpcCard).toContain(
      '<tr><td rowspan="3">hot</td><td class="num" rowspan="3"><span class="figure" data-series="stellar_rpc_account_signer_changes_total{account=&quot;hot&quot;,rpc=&quot;testnet&quot;}" data-value="1">1</span></td><td rowspan="3"></td><td>XLM</td>' +
        '<td class="num"><span class="figure" data-series="stellar_rpc_account_balance{account=&quot;hot&quot;,asset=&quot;native&quot;,rpc=&quot;testnet&quot;}" data-value="40">40</span></td>' +
        '<td class="num"><span class="figure" data-series="stellar_rpc_account_balance_low_watermark{account=&quot;hot&quot;,asset=&quot;native&quot;,rpc=&quot;testnet&quot;}" data-value="50">50</span></td><td><span class="badge low">low</span></td></tr>',
    );
    expect(rpcCard).toContain(`<td><span title="liquidity pool ${POOL}">pool 4cd1f6de… shares</span></td>`);
    expect(rpcCard.match(/signer_changes_total/g)).toHaveLength(2);
    expect(rpcCard).not.toContain("horizon-only");
    expect(wellFormedProblems(page)).toEqual([]);
  });

  it("10 000 of them: /status.json has every one, the page the first 100, those needing a look first", () => {
    const board = rpcBoard();
    const live: Sample[] = [];
    const persistent: Sample[] = [];
    for (let index = 0; index < 10_000; index++) {
      // Every 1 000th account is below its low-water mark.
      const watched = account(RPC_ACCOUNT_METRICS, `a${String(index).padStart(5, "0")}`, [
        ["native", index % 1_000 === 999 ? 1 : 100, 10],
        [USDC, index],
        [`EURC:GB${index}`, 5],
      ]);
      live.push(...watched.live);
      persistent.push(...watched.persistent);
    }
    board.published(RPC, "accounts", { live, persistent }, NOW_MS + 60_000);
    const report = statusReport("1", [RPC_VIEW], board, NOW_MS);
    const accounts = report.targets[0]!.accounts!;
    expect(accounts).toHaveLength(10_000);
    expect(accounts[1234]!.balances.map(({ balance }) => balance.value)).toEqual([100, 1234, 5]);
    const page = String(landingPage(report));
    expect(page).toContain(
      '<caption>Watched accounts <span class="note">(missing and low first; 9900 more in /status.json)</span></caption>',
    );
    const shown = [...page.matchAll(/<td rowspan="3">(a\d+)<\/td>/g)].map(([, name]) => name);
    expect(shown).toHaveLength(100);
    expect(shown.slice(0, 11)).toEqual([
      "a00999",
      "a01999",
      "a02999",
      "a03999",
      "a04999",
      "a05999",
      "a06999",
      "a07999",
      "a08999",
      "a09999",
      "a00000",
    ]);
    expect(shown.at(-1)).toBe("a00089");
  });

  it("kept, greyed with their age, while the RPC is down", () => {
    const time = { nowMs: NOW_MS };
    const board = rpcBoard(() => time.nowMs);
    board.published(RPC, "accounts", account(RPC_ACCOUNT_METRICS, "hot", [["native", 40, 50]]), NOW_MS + 60_000);
    time.nowMs = NOW_MS + 30_000;
    // The failed poll: no live series, the signer change counter still published.
    board.published(RPC, "accounts", { live: [], persistent: account(RPC_ACCOUNT_METRICS, "hot", []).persistent }, 0);
    const report = statusReport("1", [RPC_VIEW], board, NOW_MS + 90_000);
    const target = report.targets[0]!;
    expect(target.accounts).toBeUndefined();
    expect(target.lastKnown!.accounts!.ageSeconds).toBe(90);
    expect(target.lastKnown!.accounts!.value[0]!.balances[0]).toMatchObject({
      balance: { value: 40 },
      lowWatermark: { value: 50 },
      low: true,
    });
    const page = String(landingPage(report));
    expect(page).toContain(
      '<table class="stale">\n<caption>Watched accounts <span class="note">(as of 90 s ago: no fresh data since)</span></caption>',
    );
    expect(page).toContain(
      '<td class="num"><span class="kept" data-value="40">40</span></td><td class="num"><span class="kept" data-value="50">50</span></td>',
    );
    expect(page).not.toContain("stellar_rpc_account_balance");
  });
});
