import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import { REPO_ROOT, RULES_FILE } from "./paths.js";

export interface AlertingRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
}

export type Rule = AlertingRule | RecordingRule;

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly Rule[];
}

export function isAlertingRule(rule: Rule): rule is AlertingRule {
  return "alert" in rule;
}

export function loadRuleGroups(): RuleGroup[] {
  const document = parse(readFileSync(RULES_FILE, "utf8")) as { groups: RuleGroup[] };
  return document.groups;
}

export function allRules(groups: readonly RuleGroup[] = loadRuleGroups()): Rule[] {
  return groups.flatMap((group) => group.rules);
}

/**
 * The Prometheus Operator's PrometheusRule carrying the rules file unchanged, so Kubernetes
 * users get exactly the rules the promtool tests cover.
 */
export function renderPrometheusRule(): string {
  const resource = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: {
      name: "stellar-horizon-exporter",
      labels: {
        "app.kubernetes.io/name": "stellar-horizon-exporter",
        "app.kubernetes.io/component": "alerting",
      },
    },
    spec: { groups: loadRuleGroups() },
  };
  const header = `# Generated from ${path.relative(REPO_ROOT, RULES_FILE)} by \`npm run dashboards:generate\`; do not edit.\n`;
  return header + stringify(resource, { lineWidth: 0 });
}
