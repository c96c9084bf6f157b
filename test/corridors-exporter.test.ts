import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_METRICS } from "../src/catalog/metrics.js";
import { startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { writeConfig } from "./support/config-files.js";
import { valueOf } from "./support/exposition.js";
import { configFrom, startHarness, stopStarted, type Harness } from "./support/exporter-harness.js";

describe("the exporter probing corridors on the simulator", () => {
  let open: RunningSimulator;
  let disabled: RunningSimulator;
  let harness: Harness | undefined;

  beforeAll(async () => {
    open = await startSimulator({ ledgerIntervalMs: 5000 });
    disabled = await startSimulator({ ledgerIntervalMs: 5000, disablePathFinding: true });
    const corridors = `    corridors:
      - { name: usdc-to-xlm, mode: strict_send, source: "${USDC}", destination: native, amount: 100, min_rate: 8 }
      - { name: xlm-for-usdc, mode: strict_receive, source: native, destination: "${USDC}", amount: 10 }
`;
    const path = writeConfig(
      `targets:\n  - name: open\n    url: ${open.url}\n${corridors}  - name: disabled\n    url: ${disabled.url}\n${corridors}`,
    );
    harness = await startHarness(await configFrom([`--config.file=${path}`]));
  });
  afterAll(() =>
    stopStarted(harness?.exporter, open && { stop: () => open.close() }, disabled && { stop: () => disabled.close() }),
  );

  it("finds paths on one Horizon; path finding switched off on the other leaves it up, with no poll error", async () => {
    const series = await harness!.scrape();
    const runs = (horizon: string, corridor: string, result: string) =>
      valueOf(series, "stellar_horizon_corridor_runs_total", { horizon, corridor, result });
    expect(runs("open", "usdc-to-xlm", "found")).toBe(1);
    expect(runs("open", "xlm-for-usdc", "found")).toBe(1);
    expect(
      valueOf(series, "stellar_horizon_corridor_best_rate", { horizon: "open", corridor: "usdc-to-xlm" }),
    ).toBeGreaterThan(9.9);
    expect(valueOf(series, "stellar_horizon_corridor_min_rate", { horizon: "open", corridor: "usdc-to-xlm" })).toBe(8);
    expect(runs("disabled", "usdc-to-xlm", "disabled")).toBe(1);
    // The first 404 stands for the Horizon: the other corridor is not asked, and nothing is counted for it.
    expect(runs("disabled", "xlm-for-usdc", "disabled")).toBe(0);
    expect(
      valueOf(series, "stellar_horizon_corridor_paths", { horizon: "disabled", corridor: "usdc-to-xlm" }),
    ).toBeUndefined();
    for (const horizon of ["open", "disabled"]) {
      expect(valueOf(series, "stellar_horizon_up", { horizon })).toBe(1);
      const errors = [...series].filter(
        ([key, value]) =>
          key.startsWith("stellar_horizon_exporter_poll_errors_total") &&
          key.includes(`horizon="${horizon}"`) &&
          value > 0,
      );
      expect(errors).toEqual([]);
    }
    // Every corridor family is served, in a form promtool accepts.
    const text = await harness!.scrapeText();
    expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" }).trim()).toBe("");
    for (const metric of ALL_METRICS.filter((candidate) => candidate.source === "corridors")) {
      const exposed = metric.type === "histogram" ? `${metric.name}_count` : metric.name;
      expect(text, metric.name).toContain(`${exposed}{`);
    }
    expect(
      valueOf(series, "stellar_horizon_exporter_requests_total", {
        horizon: "disabled",
        endpoint: "corridors",
        code: "404",
      }),
    ).toBe(1);
  });

  it("shows each corridor on the Horizon's card: found or not, rate, hops, p90 latency", async () => {
    const status = (await (await fetch(`${harness!.exporter.url}/status.json`)).json()) as any;
    const open = status.targets.find((target: any) => target.name === "open");
    expect(open.corridors.map((corridor: any) => [corridor.corridor, corridor.state])).toEqual([
      ["usdc-to-xlm", "found"],
      ["xlm-for-usdc", "found"],
    ]);
    const sent = open.corridors[0];
    expect(sent.bestRate).toBeGreaterThan(9.9);
    expect(sent.minRate).toBe(8);
    // Through EURC, whose book sells lumens a little cheaper than the direct market.
    expect(sent.bestHops).toBe(1);
    expect(sent.p90Seconds).toBeGreaterThan(0);
    expect(sent.p90Seconds).toBeLessThanOrEqual(30);
    expect(sent.runs).toEqual({ found: 1 });
    const shut = status.targets.find((target: any) => target.name === "disabled");
    expect(shut.corridors.map((corridor: any) => [corridor.corridor, corridor.state, corridor.runs])).toEqual([
      ["usdc-to-xlm", "unknown", { disabled: 1 }],
      ["xlm-for-usdc", "unknown", {}],
    ]);
    const page = await (await fetch(`${harness!.exporter.url}/`)).text();
    expect(page).toContain("<caption>Payment corridors</caption>");
    expect(page).toMatch(/<td>usdc-to-xlm<\/td><td><span class="badge ok">found<\/span>/);
  });
});
