import { html } from "hono/html";
import { QUANTILE_WINDOW_MS } from "../status/board.js";
import type { CorridorReport } from "../status/corridors.js";
import { badge, headerRow, num, row, table, td } from "./landing-html.js";

function number(value: number | undefined, digits: number): string {
  return value === undefined ? "–" : Number(value.toFixed(digits)).toString();
}

const HEADER = headerRow(
  "Corridor",
  "Path",
  { num: "Paths" },
  { num: "Best rate" },
  { num: "Min rate" },
  { num: "Hops" },
  { num: `p90 latency, last ${QUANTILE_WINDOW_MS / 60_000} min` },
  "Runs",
);

/** Each state's badge: its colour class and its word. */
const BADGES = { found: ["ok", "found"], none: ["failing", "no path"], unknown: ["waiting", "no answer"] } as const;

function corridorRow(corridor: CorridorReport) {
  const [kind, word] = BADGES[corridor.state];
  const degraded =
    corridor.bestRate !== undefined && corridor.minRate !== undefined && corridor.bestRate < corridor.minRate;
  const runs = Object.entries(corridor.runs)
    .map(([result, count]) => `${result} ${count}`)
    .join(", ");
  const below = degraded ? html` ${badge("low", "below min")}` : "";
  return row(
    td(corridor.corridor),
    td(badge(kind, word)),
    num(number(corridor.paths, 0)),
    num(html`${number(corridor.bestRate, 7)}${below}`),
    num(number(corridor.minRate, 7)),
    num(number(corridor.bestHops, 0)),
    num(corridor.p90Seconds === undefined ? "–" : `${corridor.p90Seconds.toFixed(2)} s`),
    td(runs || "none yet"),
  );
}

/** The corridors section of a Horizon's card: found or not, best rate (against min_rate), hops, p90 latency. */
export function corridorsTable(corridors: readonly CorridorReport[] | undefined) {
  if (corridors === undefined || corridors.length === 0) return "";
  return table("Payment corridors", HEADER, corridors.map(corridorRow));
}
