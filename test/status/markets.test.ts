import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/catalog/metrics.js";
import type { Sample } from "../../src/exposition/samples.js";
import { landingPage } from "../../src/server/landing.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";
import { polledTarget } from "./target-view.js";

const NOW_MS = Date.parse("2026-03-01T12:00:00Z");
const MAINNET = { label: "horizon", name: "mainnet" } as const;
const MAKER = "GBJPWEIFX6KO4H52BF3QJDYRCLXB2P3Z3QTKWUGFOOFH5MSRZV4WLRZ7";

function reportOf(live: readonly Sample[], persistent: readonly Sample[]) {
  const board = createStatusBoard(() => NOW_MS);
  board.published(MAINNET, "root", { live: [], persistent: [{ metric: METRICS.up, value: 1 }] }, NOW_MS + 60_000);
  board.published(MAINNET, "markets", { live: [...live], persistent: [...persistent] }, NOW_MS + 60_000);
  return statusReport("1", [polledTarget("horizon", "mainnet", NOW_MS)], board, NOW_MS);
}

describe("the markets section of a Horizon's card", () => {
  const usdx = { market: "usdx" };
  const report = reportOf(
    [
      { metric: METRICS.marketTraded, labels: usdx, value: 1 },
      { metric: METRICS.marketPrice, labels: { ...usdx, stat: "close" }, value: 0.96 },
      { metric: METRICS.marketReferencePrice, labels: usdx, value: 1 },
      { metric: METRICS.marketPriceDeviation, labels: usdx, value: -0.04 },
      { metric: METRICS.marketMakerOffers, labels: { ...usdx, maker: MAKER, side: "ask" }, value: 0 },
      { metric: METRICS.marketMakerOffers, labels: { ...usdx, maker: MAKER, side: "bid" }, value: 3 },
      { metric: METRICS.marketTraded, labels: { market: "never" }, value: 0 },
    ],
    [
      { metric: METRICS.marketTrades, labels: { ...usdx, trade_type: "orderbook" }, value: 40 },
      { metric: METRICS.marketTrades, labels: { ...usdx, trade_type: "liquidity_pool" }, value: 2 },
    ],
  );

  it("reports each market's close, peg, trades and makers' offers per side", () => {
    expect(report.targets[0]!.markets).toEqual([
      {
        market: "usdx",
        traded: true,
        close: 0.96,
        referencePrice: 1,
        deviationRatio: -0.04,
        trades: 42,
        makers: [{ maker: MAKER, asks: 0, bids: 3 }],
      },
      { market: "never", traded: false, trades: 0, makers: [] },
    ]);
  });

  it("shows them on the page, well formed: off peg, a maker without asks, a pair that never traded", () => {
    const page = String(landingPage(report));
    expect(wellFormedProblems(page)).toEqual([]);
    expect(page).toContain("<caption>Watched markets</caption>");
    expect(page).toContain("off peg</span> -4.00%");
    expect(page).toContain("0 asks / 3 bids");
    expect(page).toContain("never traded");
  });
});
