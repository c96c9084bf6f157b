import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/catalog/metrics.js";
import { landingPage } from "../../src/server/landing.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";
import { polledTarget } from "./target-view.js";

const NOW_MS = Date.parse("2026-03-01T12:00:00Z");
const PUBNET = { label: "horizon", name: "pubnet" } as const;
const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const VIEW = polledTarget("horizon", "pubnet", NOW_MS);

describe("the landing page's assets section", () => {
  /** Assets polled at NOW_MS, fresh for 60 s; then the poll fails and they go stale. */
  function board(nowMs: { value: number }) {
    const statusBoard = createStatusBoard(() => nowMs.value);
    const labels = { asset: USDC };
    const live = [
      { metric: METRICS.assetExists, labels, value: 1 },
      { metric: METRICS.assetSupply, labels, value: 1234.5 },
      { metric: METRICS.assetHolders, labels: { ...labels, held_by: "authorized" }, value: 42 },
    ];
    statusBoard.published(PUBNET, "assets", { live, persistent: [] }, NOW_MS + 60_000);
    return statusBoard;
  }

  it("shows fresh figures as series of /metrics", () => {
    const report = statusReport("1", [VIEW], board({ value: NOW_MS }), NOW_MS);
    expect(report.targets[0]!.assets?.[0]?.supply?.value).toBe(1234.5);
    const page = String(landingPage(report));
    expect(page).toContain("<table>\n<caption>Watched assets</caption>");
    expect(page).toContain('<span class="badge ok">ok</span>');
  });

  it("stays once its figures go stale, greyed, with their age and a stale badge", () => {
    const time = { value: NOW_MS };
    const statusBoard = board(time);
    time.value = NOW_MS + 60_000;
    statusBoard.published(PUBNET, "assets", { live: [], persistent: [] }, 0);
    const report = statusReport("1", [VIEW], statusBoard, NOW_MS + 120_000);
    const [target] = report.targets;
    expect(target!.assets).toBeUndefined();
    expect(target!.lastKnown!.assets!.ageSeconds).toBe(120);
    expect(target!.lastKnown!.assets!.value[0]).toMatchObject({ asset: USDC, supply: { value: 1234.5 } });
    const page = String(landingPage(report));
    expect(page).toContain(
      '<table class="stale">\n<caption>Watched assets <span class="note">(as of 2 min ago: no fresh data since)</span></caption>',
    );
    expect(page).toContain('<span class="kept" data-value="1234.5">1234.5</span>');
    expect(page).toContain('<span class="badge degraded">stale</span>');
    expect(page).not.toContain("stellar_horizon_asset_supply");
    expect(wellFormedProblems(page)).toEqual([]);
  });
});
