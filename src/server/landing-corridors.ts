import { html } from "hono/html";
import { QUANTILE_WINDOW_MS } from "../status/board.js";
import type { CorridorReport } from "../status/corridors.js";
import { badge, headerAndRows, table, type Column } from "./landing-html.js";

function number(value: number | undefined, digits: number): string {
  return value === undefined ? "–" : Number(value.toFixed(digits)).toString();
}

/** Each state's badge: its colour class and its word. */
const BADGES = { found: ["ok", "found"], none: ["failing", "no path"], unknown: ["waiting", "no answer"] } as const;

function bestRate({ bestRate, minRate }: CorridorReport) {
  const below = bestRate !== undefined && minRate !== undefined && bestRate < minRate;
  return html`${number(bestRate, 7)}${below ? html` ${badge("low", "below min")}` : ""}`;
}

function runs(corridor: CorridorReport): string {
  const counts = Object.entries(corridor.runs).map(([result, count]) => `${result} ${count}`);
  return counts.join(", ") || "none yet";
}

const COLUMNS: readonly Column<CorridorReport>[] = [
  ["Corridor", (corridor) => corridor.corridor],
  ["Path", ({ state }) => badge(BADGES[state][0], BADGES[state][1])],
  [{ num: "Paths" }, (corridor) => number(corridor.paths, 0)],
  [{ num: "Best rate" }, bestRate],
  [{ num: "Min rate" }, (corridor) => number(corridor.minRate, 7)],
  [{ num: "Hops" }, (corridor) => number(corridor.bestHops, 0)],
  [
    { num: `p90 latency, last ${QUANTILE_WINDOW_MS / 60_000} min` },
    ({ p90Seconds }) => (p90Seconds === undefined ? "–" : `${p90Seconds.toFixed(2)} s`),
  ],
  ["Runs", runs],
];

/** The corridors section of a Horizon's card: found or not, best rate (against min_rate), hops, p90 latency. */
export function corridorsTable(corridors: readonly CorridorReport[] | undefined) {
  if (corridors === undefined || corridors.length === 0) return "";
  return table("Payment corridors", ...headerAndRows(COLUMNS, corridors));
}
