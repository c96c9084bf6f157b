import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from "../src/cli/heap-growth.js";

describe("limitHeapGrowth", () => {
  it("leaves a growing factor chosen on node's command line alone", () => {
    expect(limitHeapGrowth(["--max-semi-space-size=4", "--heap-growing-percent=50"])).toBe(false);
    expect(limitHeapGrowth(["--heap_growing_percent=50"])).toBe(false);
  });

  it("sets the exporter's factor otherwise", () => {
    expect(limitHeapGrowth(["--max-semi-space-size=4"])).toBe(true);
    expect(HEAP_GROWING_PERCENT).toBe(80);
  });
});
