import path from "node:path";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { exporterDashboard } from "./exporter.js";
import { liquidityPoolsDashboard } from "./liquidity-pools.js";
import { networkDashboard } from "./network.js";
import { overviewDashboard } from "./overview.js";
import { DASHBOARDS_DIR, PROMETHEUS_RULE_FILE } from "./paths.js";
import { renderPrometheusRule } from "./prometheus-rule.js";

export const DASHBOARDS: readonly (() => Dashboard)[] = [
  overviewDashboard,
  networkDashboard,
  liquidityPoolsDashboard,
  exporterDashboard,
];

/** Every generated file, by absolute path, with the content it must have. */
export function generatedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const build of DASHBOARDS) {
    const dashboard = build();
    files.set(path.join(DASHBOARDS_DIR, `${dashboard.uid}.json`), `${JSON.stringify(dashboard, null, 2)}\n`);
  }
  files.set(PROMETHEUS_RULE_FILE, renderPrometheusRule());
  return files;
}
