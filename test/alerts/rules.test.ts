import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, RULES_FILE } from "../../scripts/dashboards/paths.js";
import { allRules, isAlertingRule, type AlertingRule } from "../../scripts/dashboards/prometheus-rule.js";
import { counterMisuses, parsePromQL, unknownMetricNames } from "./promql.js";
import { requireBinary, run } from "./tools.js";

const TESTS_DIR = path.join(REPO_ROOT, "alerts", "tests");
const RUNBOOK = path.join(REPO_ROOT, "docs", "runbook.md");
const RUNBOOK_URL_PREFIX = "https://github.com/stellar-horizon-exporter/stellar-horizon-exporter/blob/main/docs/runbook.md#";

/** The alerts the product issue asks for by name. */
const REQUIRED_ALERTS = [
  "StellarHorizonExporterDown",
  "StellarHorizonDown",
  "StellarHorizonIngestionLagging",
  "StellarHorizonIngestionLagCritical",
  "StellarHorizonIngestionStalled",
  "StellarHorizonLatestLedgerStale",
  "StellarNetworkLedgerCloseSlow",
  "StellarNetworkFeeSurge",
  "StellarNetworkCapacityHigh",
  "StellarNetworkFailedTransactionsHigh",
  "StellarHorizonProtocolUpgradePending",
  "StellarHorizonUnsupportedProtocol",
  "StellarHorizonRateLimited",
  "StellarHorizonExporterPollErrors",
  "StellarHorizonSchemaErrors",
  "StellarLiquidityPoolReserveDrop",
];

/** Alerts about the exporter as a whole, whose series carry no `horizon` label. */
const EXPORTER_WIDE_ALERTS = new Set(["StellarHorizonExporterDown"]);

const rules = allRules();
const alerts = rules.filter(isAlertingRule);
const recordingRuleNames = rules.flatMap((rule) => ("record" in rule ? [rule.record] : []));
const testFiles = readdirSync(TESTS_DIR).filter((file) => file.endsWith(".yml")).sort();

/** GitHub's anchor for a Markdown heading. */
function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\w\- ]/g, "").replaceAll(" ", "-");
}

describe("promtool", () => {
  const promtool = requireBinary("promtool");

  it("checks the rules file with no lint findings", () => {
    const result = run(promtool, ["check", "rules", "--lint=all", "--lint-fatal", RULES_FILE], REPO_ROOT);
    expect(result.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.code).toBe(0);
  });

  it("passes every unit test file", () => {
    const result = run(promtool, ["test", "rules", ...testFiles.map((file) => path.join(TESTS_DIR, file))], REPO_ROOT);
    expect(result.output).not.toContain("FAILED");
    expect(result.output.match(/SUCCESS/g)).toHaveLength(testFiles.length);
    expect(result.code).toBe(0);
  });
});

describe("unit test coverage", () => {
  interface AlertRuleTest {
    alertname: string;
    exp_alerts?: unknown[];
  }
  const ruleTests: AlertRuleTest[] = testFiles.flatMap((file) => {
    const document = parse(readFileSync(path.join(TESTS_DIR, file), "utf8")) as {
      rule_files: string[];
      tests: { alert_rule_test?: AlertRuleTest[] }[];
    };
    expect(document.rule_files).toEqual(["../stellar-horizon.rules.yml"]);
    return document.tests.flatMap((test) => test.alert_rule_test ?? []);
  });

  it.each(alerts.map((alert) => alert.alert))("%s has a case where it fires and a near miss where it does not", (name) => {
    const cases = ruleTests.filter((test) => test.alertname === name);
    expect(cases.some((test) => (test.exp_alerts ?? []).length > 0)).toBe(true);
    expect(cases.some((test) => (test.exp_alerts ?? []).length === 0)).toBe(true);
  });
});

describe("alert conventions", () => {
  const runbook = readFileSync(RUNBOOK, "utf8");
  const runbookAnchors = new Set(
    runbook.split("\n").flatMap((line) => (/^#{1,6} /.test(line) ? [headingAnchor(line.replace(/^#+ /, ""))] : [])),
  );
  const rulesFileHeader = readFileSync(RULES_FILE, "utf8").split("\ngroups:")[0] ?? "";

  it("defines every alert the product asks for, once", () => {
    const names = alerts.map((alert) => alert.alert);
    expect(names).toEqual(expect.arrayContaining(REQUIRED_ALERTS));
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(alerts.map((alert): [string, AlertingRule] => [alert.alert, alert]))("%s follows the mixin conventions", (name, alert) => {
    expect(name).toMatch(/^Stellar[A-Z][A-Za-z]+$/);
    expect(["critical", "warning", "info"]).toContain(alert.labels.severity);

    const { summary, description, runbook_url } = alert.annotations;
    expect(summary).toMatch(/^[A-Za-z].*\.$/);
    expect(summary).not.toContain("{{");
    expect(description).toContain("$value");
    expect(description).toContain(EXPORTER_WIDE_ALERTS.has(name) ? "$labels.job" : "$labels.horizon");

    expect(runbook_url).toBe(RUNBOOK_URL_PREFIX + name.toLowerCase());
    expect(runbookAnchors).toContain(name.toLowerCase());
    expect(rulesFileHeader).toContain(`#   ${name} `);
  });

  it("names recording rules level:metric:operations", () => {
    for (const name of recordingRuleNames) expect(name).toMatch(/^[a-z_]+:[a-z_]+:[a-z0-9_]+$/);
  });
});

describe("PromQL in the rules", () => {
  it.each(rules.map((rule) => ["record" in rule ? rule.record : rule.alert, rule.expr]))(
    "%s parses and uses only exported metrics",
    (_name, expr) => {
      const { errors, selectors } = parsePromQL(expr);
      expect(errors).toEqual([]);
      expect(selectors.length).toBeGreaterThan(0);
      expect(unknownMetricNames(selectors, recordingRuleNames)).toEqual([]);
      expect(counterMisuses(selectors)).toEqual([]);
    },
  );
});
