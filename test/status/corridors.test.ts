import { describe, expect, it } from "vitest";
import { METRICS } from "../../src/catalog/metrics.js";
import { HistogramData } from "../../src/exposition/samples.js";
import { landingPage } from "../../src/server/landing.js";
import { QUANTILE_WINDOW_MS } from "../../src/status/board.js";
import { bucketQuantile } from "../../src/status/corridors.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import { polledTarget } from "./target-view.js";

describe("the corridors' p90 latency", () => {
  it("interpolates within the bucket as histogram_quantile does", () => {
    // Ten requests: eight within 0.25 s, two between 1 and 2.5 s.
    const buckets = new Map([
      [0.1, 0],
      [0.25, 8],
      [0.5, 8],
      [1, 8],
      [2.5, 10],
      [Infinity, 10],
    ]);
    expect(bucketQuantile(0.5, buckets)).toBeCloseTo(0.1 + 0.15 * (5 / 8));
    expect(bucketQuantile(0.9, buckets)).toBeCloseTo(1.75);
  });

  it("takes the highest finite bound when the quantile falls in +Inf, and nothing before a request", () => {
    expect(
      bucketQuantile(
        0.9,
        new Map([
          [30, 0],
          [Infinity, 3],
        ]),
      ),
    ).toBe(30);
    expect(
      bucketQuantile(
        0.9,
        new Map([
          [30, 0],
          [Infinity, 0],
        ]),
      ),
    ).toBeUndefined();
  });
});

describe("the corridors' p90 on the landing page", () => {
  const START_MS = Date.parse("2026-03-01T12:00:00Z");
  const HORIZON = { label: "horizon", name: "pubnet" } as const;

  it("covers the last 15 minutes only: an old slow spell leaves it once out of the window", () => {
    expect(QUANTILE_WINDOW_MS).toBe(15 * 60_000);
    const time = { nowMs: START_MS };
    const board = createStatusBoard(() => time.nowMs);
    const histogram = new HistogramData(METRICS.corridorDuration.buckets);
    const publish = () => {
      const labels = { corridor: "usdc-to-xlm" };
      const persistent = [
        { metric: METRICS.corridorRuns, labels: { ...labels, result: "found" }, value: histogram.count },
        { metric: METRICS.corridorDuration, labels, histogram },
      ];
      board.published(HORIZON, "corridors", { live: [], persistent }, time.nowMs + 60_000);
    };
    const p90At = (nowMs: number) =>
      statusReport("1", [polledTarget("horizon", "pubnet", nowMs)], board, nowMs).targets[0]!.corridors![0]!.p90Seconds;
    // The first ten minutes: every run takes 20 s.
    for (let minute = 0; minute < 10; minute += 1) {
      histogram.observe(20);
      publish();
      time.nowMs += 60_000;
    }
    expect(p90At(time.nowMs)).toBeGreaterThan(10);
    // Then 20 minutes of runs within 0.1 s: once the slow ones are older than 15 min, they no longer count.
    for (let minute = 0; minute < 20; minute += 1) {
      histogram.observe(0.05);
      publish();
      time.nowMs += 60_000;
    }
    expect(p90At(time.nowMs)).toBeLessThanOrEqual(0.1);
    // Nothing in the window: no figure rather than an old one.
    expect(p90At(time.nowMs + QUANTILE_WINDOW_MS)).toBeUndefined();
    const page = String(
      landingPage(statusReport("1", [polledTarget("horizon", "pubnet", time.nowMs)], board, time.nowMs)),
    );
    expect(page).toContain('<th class="num">p90 latency, last 15 min</th>');
  });
});
