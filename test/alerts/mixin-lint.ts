import type { AlertingRule } from "../../scripts/dashboards/prometheus-rule.js";

// mixtool's alerting guidelines (pkg/mixer/lint.go, lintPrometheusAlertsGuidelines), with its
// regular expressions unchanged, plus the runbook_url the guidelines recommend.
const CAMEL_CASE = /^([A-Z]+[a-z0-9]+)+$/;
const GO_TEMPLATE = /\{\{.+}\}/;
const SENTENCE = /^[A-Z].+\.$/;
const SEVERITIES = new Set(["critical", "warning", "info"]);

/** Every way `alert` breaks mixtool's lint, named by mixtool's rule; empty when it passes. */
export function mixinLintProblems(alert: AlertingRule): string[] {
  const problems: string[] = [];
  // Read from YAML: a rule may lack labels or annotations altogether.
  const { summary, description, runbook_url } = (alert.annotations as AlertingRule["annotations"] | undefined) ?? {};
  const severity = (alert.labels as AlertingRule["labels"] | undefined)?.severity;
  if (!CAMEL_CASE.test(alert.alert)) problems.push("alert-name-camelcase");
  if (!SEVERITIES.has(severity ?? "")) problems.push("alert-severity-rule");
  if (description === undefined) problems.push("alert-description-missing-rule");
  else if (!GO_TEMPLATE.test(description)) problems.push("alert-description-templating");
  if (summary === undefined) problems.push("alert-summary-missing-rule");
  else {
    if (GO_TEMPLATE.test(summary)) problems.push("alert-summary-templating");
    if (!SENTENCE.test(summary)) problems.push("alert-summary-style");
  }
  if (!runbook_url) problems.push("alert-runbook-url-missing");
  return problems;
}
