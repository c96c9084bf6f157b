import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import { histogramQuantile, select, statPanel, sumRate, timeseriesPanel } from "./common.js";

const CORRIDOR_LEGEND = "{{horizon}} {{corridor}}";

/**
 * The payment corridors' rows, for the Markets dashboard: whether each corridor finds a path, at
 * what rate and through how many hops, how its runs end and how long path finding takes.
 */
export function corridorRows() {
  return [
    {
      title: "Payment corridors",
      panels: [
        statPanel({
          title: "Paths found",
          description:
            "Paths each corridor's last path-finding request returned (0: no path; absent: no answer recently).",
          unit: units.NoUnit,
          width: 8,
          queries: [{ expr: select(METRICS.corridorPaths), legend: CORRIDOR_LEGEND }],
        }),
        statPanel({
          title: "Since a path was last found",
          description: "Time since each corridor's last run that found a path.",
          unit: units.Seconds,
          width: 8,
          queries: [{ expr: `time() - ${select(METRICS.corridorLastFound)}`, legend: CORRIDOR_LEGEND }],
        }),
        statPanel({
          title: "Best hops",
          description: "Intermediate assets of each corridor's best path (0: a direct market).",
          unit: units.NoUnit,
          width: 8,
          queries: [{ expr: select(METRICS.corridorBestHops), legend: CORRIDOR_LEGEND }],
        }),
        timeseriesPanel({
          title: "Best rate",
          description:
            "Destination units per source unit of each corridor's best path, with the configured min_rate where set (dashed in the legend as min).",
          unit: units.Short,
          width: 12,
          queries: [
            { expr: select(METRICS.corridorBestRate), legend: CORRIDOR_LEGEND },
            { expr: select(METRICS.corridorMinRate), legend: `${CORRIDOR_LEGEND} min` },
          ],
        }),
        timeseriesPanel({
          title: "Best amount",
          description:
            "strict_send: the most the corridor's amount buys; strict_receive: the least that buys its amount; in units of that asset.",
          unit: units.Short,
          width: 12,
          queries: [{ expr: select(METRICS.corridorBestAmount), legend: CORRIDOR_LEGEND }],
        }),
        timeseriesPanel({
          title: "Runs by outcome",
          description:
            "Corridor runs per second by result: found, none (no path), disabled (404), over_capacity, still_ingesting, timeout, error.",
          unit: units.OpsPerSecond,
          width: 12,
          min: 0,
          queries: [
            {
              expr: sumRate(METRICS.corridorRuns, ["horizon", "corridor", "result"]),
              legend: `${CORRIDOR_LEGEND} {{result}}`,
            },
          ],
        }),
        timeseriesPanel({
          title: "Path-finding latency (p90)",
          description: "90th percentile of each corridor's request time; the corridor-slow alert fires above 5 s.",
          unit: units.Seconds,
          width: 12,
          min: 0,
          queries: [
            {
              expr: histogramQuantile(0.9, METRICS.corridorDuration, ["horizon", "corridor"]),
              legend: CORRIDOR_LEGEND,
            },
          ],
        }),
      ],
    },
  ];
}
