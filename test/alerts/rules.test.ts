import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { ALERT_TESTS_DIR, REPO_ROOT, RUNBOOK_FILE, alertTestFiles, ruleFiles } from "../../scripts/dashboards/paths.js";
import { allRules, isAlertingRule, loadRuleFile, type AlertingRule } from "../../scripts/dashboards/prometheus-rule.js";
import {
  DEFAULT_RUNBOOK_URL_PATTERN,
  runbookAnchor,
  runbookUrl,
  runbookUrlPatternFromEnv,
  withRunbookUrls,
} from "../../scripts/dashboards/runbook-urls.js";
import { mixinLintProblems } from "./mixin-lint.js";
import { counterMisuses, parsePromQL, unknownMetricNames } from "./promql.js";
import { requireBinary, run } from "./tools.js";

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
  "StellarRpcDown",
  "StellarRpcUnhealthy",
  "StellarRpcLatestLedgerStale",
  "StellarRpcBehindNetwork",
  "StellarRpcRetentionShort",
  "StellarNetworkSorobanFeeSurge",
  "StellarContractEntryExpiringSoon",
  "StellarContractEntryExpiring",
  "StellarContractEntryArchived",
  "StellarContractEntryMissing",
  "StellarContractSilent",
  "StellarContractUpgraded",
  "StellarContractEventsGap",
  "StellarTargetLedgerHashDisagrees",
  "StellarTargetProtocolBehind",
  "StellarAssetSupplyChanged",
  "StellarAssetFlagsChanged",
  "StellarAssetMissing",
  "StellarAssetHoldersFrozen",
];

/** Alerts about the exporter as a whole, whose series carry no `horizon` label. */
const EXPORTER_WIDE_ALERTS = new Set(["StellarHorizonExporterDown"]);

/** Every alert of every rules file in alerts/, with the file it is in. */
const alertsByFile = ruleFiles().flatMap((file) =>
  loadRuleFile(file)
    .flatMap((group) => group.rules)
    .filter(isAlertingRule)
    .map((alert): [string, AlertingRule, string] => [alert.alert, alert, file]),
);
const rules = allRules();
const recordingRuleNames = rules.flatMap((rule) => ("record" in rule ? [rule.record] : []));
const testFiles = alertTestFiles();

/** GitHub's anchor for a Markdown heading. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .replaceAll(" ", "-");
}

describe("promtool", () => {
  const promtool = requireBinary("promtool");

  it("checks every rules file with no lint findings", () => {
    const result = run(promtool, ["check", "rules", "--lint=all", "--lint-fatal", ...ruleFiles()], REPO_ROOT);
    const counts = [...result.output.matchAll(/SUCCESS: (\d+) rules found/g)].map((match) => Number(match[1]));
    expect(counts).toHaveLength(ruleFiles().length);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(rules.length);
    expect(result.code).toBe(0);
  });

  it("passes every unit test file", () => {
    const result = run(promtool, ["test", "rules", ...testFiles], REPO_ROOT);
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
    const document = parse(readFileSync(file, "utf8")) as {
      rule_files: string[];
      tests: { alert_rule_test?: AlertRuleTest[] }[];
    };
    for (const ruleFile of document.rule_files) expect(ruleFiles()).toContain(path.resolve(ALERT_TESTS_DIR, ruleFile));
    return document.tests.flatMap((test) => test.alert_rule_test ?? []);
  });

  it.each(alertsByFile.map(([name]) => name))(
    "%s has a case where it fires and a near miss where it does not",
    (name) => {
      const cases = ruleTests.filter((test) => test.alertname === name);
      expect(cases.some((test) => (test.exp_alerts ?? []).length > 0)).toBe(true);
      expect(cases.some((test) => (test.exp_alerts ?? []).length === 0)).toBe(true);
    },
  );
});

describe("mixtool's alert lint", () => {
  it("finds every problem in an alert that breaks all its rules", () => {
    const broken = {
      alert: "stellar_horizon_down",
      expr: "vector(1)",
      labels: { severity: "page" },
      annotations: { summary: "horizon {{ $labels.horizon }} is down" },
    };
    expect(mixinLintProblems(broken)).toEqual([
      "alert-name-camelcase",
      "alert-severity-rule",
      "alert-description-missing-rule",
      "alert-summary-templating",
      "alert-summary-style",
      "alert-runbook-url-missing",
    ]);
    expect(
      mixinLintProblems({
        ...broken,
        alert: "StellarHorizonDown",
        labels: {},
        annotations: { description: "Horizon is down." },
      }),
    ).toEqual([
      "alert-severity-rule",
      "alert-description-templating",
      "alert-summary-missing-rule",
      "alert-runbook-url-missing",
    ]);
  });

  it.each(alertsByFile.map(([name, alert, file]) => [name, path.relative(REPO_ROOT, file), alert] as const))(
    "%s (%s) passes",
    (_name, _file, alert) => {
      expect(mixinLintProblems(alert)).toEqual([]);
    },
  );
});

describe("runbook links", () => {
  const runbookAnchors = new Set(
    readFileSync(RUNBOOK_FILE, "utf8")
      .split("\n")
      .flatMap((line) => (/^#{1,6} /.test(line) ? [headingAnchor(line.replace(/^#+ /, ""))] : [])),
  );

  it.each(alertsByFile)("%s links to its section of docs/runbook.md", (name, alert) => {
    expect(alert.annotations.runbook_url).toBe(runbookUrl(name, DEFAULT_RUNBOOK_URL_PATTERN));
    expect(runbookAnchors).toContain(runbookAnchor(name));
  });

  it("the default pattern resolves from the repository root to the shipped runbook", () => {
    const [file] = DEFAULT_RUNBOOK_URL_PATTERN.split("#");
    expect(path.resolve(REPO_ROOT, file ?? "")).toBe(RUNBOOK_FILE);
  });

  it("RUNBOOK_URL_PATTERN rewrites the links of rules and of their promtool tests alike", () => {
    const pattern = runbookUrlPatternFromEnv({ RUNBOOK_URL_PATTERN: "https://wiki.example.com/ops/stellar#%s" });
    const rulesText =
      "  - alert: StellarHorizonDown\n    annotations:\n      runbook_url: docs/runbook.md#stellarhorizondown\n";
    const testText =
      "  - alertname: StellarHorizonDown\n    exp_alerts:\n      - exp_annotations:\n          runbook_url: old\n";
    expect(withRunbookUrls(rulesText, pattern, "rules.yml")).toBe(
      "  - alert: StellarHorizonDown\n    annotations:\n      runbook_url: https://wiki.example.com/ops/stellar#stellarhorizondown\n",
    );
    expect(withRunbookUrls(testText, pattern, "test.yml")).toContain(
      "          runbook_url: https://wiki.example.com/ops/stellar#stellarhorizondown\n",
    );
    expect(() => withRunbookUrls("runbook_url: x\n", pattern, "stray.yml")).toThrow(
      "stray.yml:1: runbook_url before any alert name",
    );
  });

  it("RUNBOOK_URL_PATTERN must say where the anchor goes", () => {
    expect(runbookUrlPatternFromEnv({})).toBe(DEFAULT_RUNBOOK_URL_PATTERN);
    expect(() => runbookUrlPatternFromEnv({ RUNBOOK_URL_PATTERN: "https://wiki.example.com/stellar" })).toThrow(
      'RUNBOOK_URL_PATTERN must contain %s exactly once (where the alert\'s anchor goes), got "https://wiki.example.com/stellar"',
    );
  });
});

describe("project conventions", () => {
  it("defines every alert the product asks for, and no name twice", () => {
    const names = alertsByFile.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(REQUIRED_ALERTS));
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(alertsByFile)(
    "%s is named Stellar…, describes its value and target, and is in its file's threshold table",
    (name, alert, file) => {
      expect(name).toMatch(/^Stellar[A-Z][A-Za-z]+$/);
      expect(alert.annotations.description).toContain("$value");
      // The agreement series name a target of either kind in `target`.
      const targetLabel = alert.expr.includes("stellar_rpc_")
        ? "$labels.rpc"
        : alert.expr.includes("stellar_network_")
          ? "$labels.target"
          : "$labels.horizon";
      expect(alert.annotations.description).toContain(EXPORTER_WIDE_ALERTS.has(name) ? "$labels.job" : targetLabel);
      const fileHeader = readFileSync(file, "utf8").split("\ngroups:")[0] ?? "";
      expect(fileHeader).toContain(`#   ${name} `);
    },
  );

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
