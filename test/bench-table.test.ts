import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { README_FILE, RESULTS_FILE, readmeTable, renderTable, type BenchResults } from "../scripts/bench-table.js";

describe("README performance table", () => {
  it("is the rendering of bench/results.json", () => {
    const results = JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as BenchResults;
    expect(readmeTable(readFileSync(README_FILE, "utf8"))).toBe(renderTable(results));
  });
});
