import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const DASHBOARDS_DIR = path.join(REPO_ROOT, "dashboards");
export const RULES_FILE = path.join(REPO_ROOT, "alerts", "stellar-horizon.rules.yml");
export const PROMETHEUS_RULE_FILE = path.join(REPO_ROOT, "deploy", "kubernetes", "prometheusrule.yaml");
