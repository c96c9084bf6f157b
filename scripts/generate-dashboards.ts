/**
 * Writes the Grafana dashboards (dashboards/*.json) and the Kubernetes PrometheusRule
 * (deploy/kubernetes/prometheusrule.yaml) from their TypeScript and YAML sources.
 * test/dashboards fails when the committed files differ from what this writes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generatedFiles } from "./dashboards/index.js";
import { REPO_ROOT } from "./dashboards/paths.js";

for (const [file, content] of generatedFiles()) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, file)}\n`);
}
