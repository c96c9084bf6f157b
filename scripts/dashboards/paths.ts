import { readdirSync } from "node:fs";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const DASHBOARDS_DIR = path.join(REPO_ROOT, "dashboards");
export const ALERTS_DIR = path.join(REPO_ROOT, "alerts");
export const ALERT_TESTS_DIR = path.join(ALERTS_DIR, "tests");
export const RUNBOOK_FILE = path.join(REPO_ROOT, "docs", "runbook.md");
export const PROMETHEUS_RULE_FILE = path.join(REPO_ROOT, "deploy", "kubernetes", "prometheusrule.yaml");

/** The `.yml` files directly in `dir`, sorted, by absolute path. */
function yamlFilesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".yml"))
    .map((entry) => path.join(dir, entry.name))
    .sort();
}

/** Every Prometheus rules file: `alerts/*.yml`, so a new file is loaded, linted and shipped without a list to update. */
export function ruleFiles(): string[] {
  return yamlFilesIn(ALERTS_DIR);
}

/** Every `promtool test rules` file: `alerts/tests/*.yml`. */
export function alertTestFiles(): string[] {
  return yamlFilesIn(ALERT_TESTS_DIR);
}
