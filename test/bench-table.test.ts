import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { README_FILE, RESULTS_FILE, readmeTable, renderTable, type BenchResults } from "../scripts/bench-table.js";

describe("README performance table", () => {
  it("is the rendering of bench/results.json", () => {
    const results = JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as BenchResults;
    expect(readmeTable(readFileSync(README_FILE, "utf8"))).toBe(renderTable(results));
  });
});

describe("the JSON.parse floor", () => {
  const stored = JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as BenchResults;

  it("stands beside each poll figure, with the figure's multiple of it", () => {
    const results: BenchResults = {
      ...stored,
      poll: { ...stored.poll, cpuMsPer1000Pools: 12, parseFloorMsPer1000Pools: 3 },
      contracts: {
        keys: 10_000,
        callsPerPoll: 50,
        cpuMsPerPoll: 100,
        cpuMsPer1000Keys: 10,
        parseFloorMsPer1000Keys: 2.5,
      },
      rpcAccounts: {
        ...stored.rpcAccounts!,
        poll: { ...stored.rpcAccounts!.poll, cpuMsPer1000Keys: 8, parseFloorMsPer1000Keys: 1 },
      },
    };
    const rows = renderTable(results).split("\n");
    const row = (start: string) => rows.find((line) => line.startsWith(start)) ?? "";
    expect(row("| Poll CPU per 1 000 pools |")).toContain("| 12.00 ms (JSON.parse alone 3.00 ms, 4.0× it; wall ");
    expect(row("| Contracts poll CPU per 1 000 keys |")).toContain(
      "| 10.00 ms (JSON.parse alone 2.50 ms, 4.0× it; 10000 keys,",
    );
    expect(row("| Poll CPU per 1 000 ledger keys,")).toContain("| 8.00 ms (JSON.parse alone 1.00 ms, 8.0× it; ");
  });

  it("is left out of runs that did not measure it", () => {
    const { parseFloorMsPer1000Pools: _pools, ...poll } = { ...stored.poll, parseFloorMsPer1000Pools: 1 };
    const { parseFloorMsPer1000Keys: _keys, ...contracts } = { ...stored.contracts!, parseFloorMsPer1000Keys: 1 };
    const { parseFloorMsPer1000Keys: _entries, ...accountsPoll } = {
      ...stored.rpcAccounts!.poll,
      parseFloorMsPer1000Keys: 1,
    };
    const rpcAccounts = { ...stored.rpcAccounts!, poll: accountsPoll };
    expect(renderTable({ ...stored, poll, contracts, rpcAccounts })).not.toContain("JSON.parse alone");
  });
});
