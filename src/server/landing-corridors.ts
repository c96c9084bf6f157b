import { html } from "hono/html";
import type { CorridorReport } from "../status/corridors.js";

function number(value: number | undefined, digits: number): string {
  return value === undefined ? "–" : Number(value.toFixed(digits)).toString();
}

/** The corridors section of a Horizon's card: found or not, best rate (against min_rate), hops, p90 latency. */
export function corridorsTable(corridors: readonly CorridorReport[] | undefined) {
  if (corridors === undefined || corridors.length === 0) return "";
  return html`<table>
<caption>Payment corridors</caption>
<tr><th>Corridor</th><th>Path</th><th class="num">Paths</th><th class="num">Best rate</th><th class="num">Min rate</th><th class="num">Hops</th><th class="num">p90 latency</th><th>Runs</th></tr>
${corridors.map((corridor) => {
  const badge = corridor.state === "found" ? "ok" : corridor.state === "none" ? "failing" : "waiting";
  const word = corridor.state === "found" ? "found" : corridor.state === "none" ? "no path" : "no answer";
  const degraded =
    corridor.bestRate !== undefined && corridor.minRate !== undefined && corridor.bestRate < corridor.minRate;
  const runs = Object.entries(corridor.runs)
    .map(([result, count]) => `${result} ${count}`)
    .join(", ");
  return html`<tr><td>${corridor.corridor}</td><td><span class="badge ${badge}">${word}</span></td><td class="num">${number(corridor.paths, 0)}</td><td class="num">${number(corridor.bestRate, 7)}${degraded ? html` <span class="badge low">below min</span>` : ""}</td><td class="num">${number(corridor.minRate, 7)}</td><td class="num">${number(corridor.bestHops, 0)}</td><td class="num">${corridor.p90Seconds === undefined ? "–" : `${corridor.p90Seconds.toFixed(2)} s`}</td><td>${runs || "none yet"}</td></tr>`;
})}
</table>`;
}
