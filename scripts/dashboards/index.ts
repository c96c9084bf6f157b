import { readFileSync } from "node:fs";
import path from "node:path";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { accountsDashboard } from "./accounts.js";
import { assetsDashboard } from "./assets.js";
import { contractsDashboard } from "./contracts.js";
import { exporterDashboard } from "./exporter.js";
import { liquidityPoolsDashboard } from "./liquidity-pools.js";
import { marketsDashboard } from "./markets.js";
import { networkDashboard } from "./network.js";
import { overviewDashboard } from "./overview.js";
import { alertTestFiles, DASHBOARDS_DIR, PROMETHEUS_RULE_FILE, ruleFiles } from "./paths.js";
import { parseRuleGroups, renderPrometheusRule } from "./prometheus-rule.js";
import { rpcDashboard } from "./rpc.js";
import { DEFAULT_RUNBOOK_URL_PATTERN, withRunbookUrls } from "./runbook-urls.js";

export const DASHBOARDS: readonly (() => Dashboard)[] = [
  overviewDashboard,
  networkDashboard,
  liquidityPoolsDashboard,
  accountsDashboard,
  exporterDashboard,
  rpcDashboard,
  contractsDashboard,
  assetsDashboard,
  marketsDashboard,
];

/**
 * Every generated file, by absolute path, with the content it must have. The rules files and
 * their promtool tests are written by hand and only get their `runbook_url` lines rewritten from
 * `runbookUrlPattern`; the PrometheusRule carries the rewritten rules.
 */
export function generatedFiles(runbookUrlPattern: string = DEFAULT_RUNBOOK_URL_PATTERN): Map<string, string> {
  const files = new Map<string, string>();
  for (const build of DASHBOARDS) {
    const dashboard = build();
    files.set(path.join(DASHBOARDS_DIR, `${dashboard.uid}.json`), `${JSON.stringify(dashboard, null, 2)}\n`);
  }
  const rewrite = (file: string) =>
    files.set(file, withRunbookUrls(readFileSync(file, "utf8"), runbookUrlPattern, file));
  ruleFiles().forEach(rewrite);
  alertTestFiles().forEach(rewrite);
  const groups = ruleFiles().flatMap((file) => parseRuleGroups(files.get(file) ?? ""));
  files.set(PROMETHEUS_RULE_FILE, renderPrometheusRule(groups));
  return files;
}
