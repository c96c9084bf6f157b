import { describe, expect, it } from "vitest";
import { bucketQuantile } from "../../src/status/corridors.js";

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
