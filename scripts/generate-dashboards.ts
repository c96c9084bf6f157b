/**
 * Writes the Grafana dashboards (dashboards/*.json) and the Kubernetes PrometheusRule
 * (deploy/kubernetes/prometheusrule.yaml) from their TypeScript and YAML sources, and points
 * every alert's runbook_url (alerts/*.yml, alerts/tests/*.yml) at RUNBOOK_URL_PATTERN
 * (default docs/runbook.md#%s). test/dashboards fails when the committed files differ from
 * what this writes with the default pattern.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generatedFiles } from "./dashboards/index.js";
import { REPO_ROOT } from "./dashboards/paths.js";
import { runbookUrlPatternFromEnv } from "./dashboards/runbook-urls.js";

for (const [file, content] of generatedFiles(runbookUrlPatternFromEnv())) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, file)}\n`);
}
