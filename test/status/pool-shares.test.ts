import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/catalog/metrics.js";
import type { Sample } from "../../src/exposition/samples.js";
import { landingPage } from "../../src/server/landing.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";
import { polledTarget } from "./target-view.js";

const NOW_MS = Date.parse("2026-03-01T12:00:00Z");
const PUBNET = { label: "horizon", name: "pubnet" } as const;
const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const HELD_POOL = "4cd1f6defba237eecbc5fefe259f89ebc4b5edd49116beb5536c4034fc48d63f";
const UNTRACKED_POOL = "59fa1dc57433dcfbd2db7319d26cb3da1f28f2d8095a3ec36ad4ef9cadb0013e";
const OTHER_POOL = "0000000000000000000000000000000000000000000000000000000000000001";

const VIEW = polledTarget("horizon", "pubnet", NOW_MS);

function poolInfo(poolId: string, assetA: string, assetB: string): Sample {
  return {
    metric: METRICS.liquidityPoolInfo,
    labels: { pool_id: poolId, type: "constant_product", fee_bp: "30", asset_a: assetA, asset_b: assetB },
    value: 1,
  };
}

const balance = (asset: string, value: number): Sample => ({
  metric: METRICS.accountBalance,
  labels: { account: "hot", asset },
  value,
});
const publish = (
  board: ReturnType<typeof createStatusBoard>,
  endpoint: "accounts" | "liquidity_pools",
  live: Sample[],
) => board.published(PUBNET, endpoint, { live, persistent: [] }, NOW_MS + 60_000);
const TRACKED_POOLS = [
  poolInfo(OTHER_POOL, "native", "AQUA:GBNZ"),
  poolInfo(HELD_POOL, "native", USDC),
  { metric: METRICS.liquidityPools, value: 2 },
];

describe("pool-share balances", () => {
  it("the board keeps the pool info series of held pools only, and none while no account holds shares", () => {
    const board = createStatusBoard(() => NOW_MS);
    expect(board.wants(METRICS.liquidityPoolInfo)).toBe(false);
    publish(board, "accounts", [balance("native", 10)]);
    expect(board.wants(METRICS.liquidityPoolInfo)).toBe(false);
    publish(board, "accounts", [balance("native", 10), balance(`pool:${HELD_POOL}`, 28.1)]);
    expect(board.wants(METRICS.liquidityPoolInfo)).toBe(true);
    publish(board, "liquidity_pools", TRACKED_POOLS);
    expect(board.series(PUBNET, METRICS.liquidityPoolInfo.name, NOW_MS).map(({ labels }) => labels.pool_id)).toEqual([
      HELD_POOL,
    ]);
    // A failed accounts poll (no samples) keeps what the last one held; one without the shares drops them.
    publish(board, "accounts", []);
    expect(board.wants(METRICS.liquidityPoolInfo)).toBe(true);
    publish(board, "accounts", [balance("native", 10)]);
    expect(board.wants(METRICS.liquidityPoolInfo)).toBe(false);
  });

  it("are named by their pool's asset pair, the pool id and assets on hover; an untracked pool by its shortened id", () => {
    const board = createStatusBoard(() => NOW_MS);
    publish(board, "accounts", [
      balance("native", 10),
      balance(`pool:${HELD_POOL}`, 28.1),
      balance(`pool:${UNTRACKED_POOL}`, 3),
      balance(USDC, 7),
    ]);
    publish(board, "liquidity_pools", TRACKED_POOLS);
    const report = statusReport("1", [VIEW], board, NOW_MS);
    const [native, held, untracked] = report.targets[0]!.accounts![0]!.balances;
    expect(native!.pool).toBeUndefined();
    expect(held!.pool).toEqual({ poolId: HELD_POOL, assets: ["native", USDC] });
    expect(untracked!.pool).toEqual({ poolId: UNTRACKED_POOL });

    const page = String(landingPage(report));
    expect(page).toContain(
      `<td><span title="liquidity pool ${HELD_POOL}: native / ${USDC}">XLM/USDC pool shares</span></td>`,
    );
    expect(page).toContain(`<td><span title="liquidity pool ${UNTRACKED_POOL}">pool 59fa1dc5… shares</span></td>`);
    expect(page).not.toContain(`<td>pool:`);
    // Beside them, lumens read XLM and a credit asset its code and shortened issuer, the full asset on hover.
    expect(page).toContain("<td>XLM</td>");
    expect(page).toContain(`<td><span title="${USDC}">USDC <span class="unit">GA5Z…KZVN</span></span></td>`);
    expect(wellFormedProblems(page)).toEqual([]);
  });
});
