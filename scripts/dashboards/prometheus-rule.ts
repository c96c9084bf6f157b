import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import { ALERTS_DIR, REPO_ROOT, ruleFiles } from "./paths.js";

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

export function parseRuleGroups(text: string): RuleGroup[] {
  return (parse(text) as { groups: RuleGroup[] }).groups;
}

/** The groups of one rules file, by absolute path. */
export function loadRuleFile(file: string): RuleGroup[] {
  return parseRuleGroups(readFileSync(file, "utf8"));
}

/** The groups of every rules file in alerts/, in file order. */
export function loadRuleGroups(): RuleGroup[] {
  return ruleFiles().flatMap(loadRuleFile);
}

export function allRules(groups: readonly RuleGroup[] = loadRuleGroups()): Rule[] {
  return groups.flatMap((group) => group.rules);
}

/**
 * The Prometheus Operator's PrometheusRule carrying the rules files' groups unchanged, so
 * Kubernetes users get exactly the rules the promtool tests cover.
 */
export function renderPrometheusRule(groups: readonly RuleGroup[]): string {
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
    spec: { groups },
  };
  const header = `# Generated from ${path.relative(REPO_ROOT, ALERTS_DIR)}/*.yml by \`npm run dashboards:generate\`; do not edit.\n`;
  return header + stringify(resource, { lineWidth: 0 });
}
