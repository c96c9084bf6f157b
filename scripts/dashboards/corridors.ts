import type { DashboardSpec } from "./common.js";

/** The payment corridors' rows of the Markets dashboard (path finding over the same order book). */
export function corridorRows(): DashboardSpec["rows"][number][] {
  return [];
}
