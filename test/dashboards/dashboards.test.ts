import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import { ALL_METRICS, exposedSeriesNames, targetLabelOf } from "../../src/catalog/metrics.js";
import { generatedFiles } from "../../scripts/dashboards/index.js";
import { DASHBOARDS_DIR, REPO_ROOT } from "../../scripts/dashboards/paths.js";
import { allRules } from "../../scripts/dashboards/prometheus-rule.js";
import { counterMisuses, parsePromQL, substituteGrafanaIntervals, unknownMetricNames } from "../alerts/promql.js";
import { dataPanels, labelValuesSelector, loadDashboards } from "./dashboard-files.js";

/** Grafana's dashboard and panel JSON Schemas, copied into the repository with their PROVENANCE.md. */
const SCHEMAS_DIR = path.resolve(REPO_ROOT, "test/fixtures/grafana-schemas");
const TEMPLATED_DATASOURCE = "${datasource}";
const EXPECTED_UIDS = [
  "stellar-accounts",
  "stellar-assets",
  "stellar-horizon-exporter",
  "stellar-horizon-overview",
  "stellar-liquidity-pools",
  "stellar-markets",
  "stellar-network-fees",
  "stellar-rpc",
  "stellar-rpc-contracts",
];
const VALID_UNITS = new Set(Object.values(units as Record<string, unknown>));
/** The target label (`horizon` or `rpc`) each per-target series name carries. */
const TARGET_LABEL_BY_SERIES = new Map(
  ALL_METRICS.filter((metric) => metric.perTarget !== false).flatMap((metric) =>
    exposedSeriesNames(metric).map((name): [string, string] => [name, targetLabelOf(metric)]),
  ),
);
const recordingRuleNames = allRules().flatMap((rule) => ("record" in rule ? [rule.record] : []));

const dashboards = loadDashboards();
const panels = dashboards.flatMap((dashboard) =>
  dataPanels(dashboard).map((panel): [string, typeof panel] => [
    `${dashboard.json.title} / ${panel.title ?? panel.id}`,
    panel,
  ]),
);
const targets = panels.flatMap(([name, panel]) =>
  (panel.targets ?? []).map((target): [string, typeof target] => [`${name} / ${target.refId}`, target]),
);

describe("generated files", () => {
  const files = generatedFiles();

  it.each([...files.keys()].map((file) => path.relative(REPO_ROOT, file)))(
    "%s is up to date (npm run dashboards:generate)",
    (file) => {
      const committed = path.join(REPO_ROOT, file);
      expect(existsSync(committed)).toBe(true);
      expect(readFileSync(committed, "utf8")).toBe(files.get(committed));
    },
  );

  it("dashboards/ holds no dashboard the generator does not write", () => {
    const generated = [...files.keys()]
      .filter((file) => path.dirname(file) === DASHBOARDS_DIR)
      .map((file) => path.basename(file));
    expect(readdirSync(DASHBOARDS_DIR).sort()).toEqual(generated.sort());
  });
});

describe("JSON schemas", () => {
  if (!existsSync(SCHEMAS_DIR))
    throw new Error(`Grafana schemas not found at ${SCHEMAS_DIR}: they belong in the repository`);
  const ajv = new Ajv({ allErrors: true });
  ajv.addKeyword("x-deprecation-message");
  // Grafana's schemas use date-time only for metadata we never write; a strict RFC 3339 check suffices.
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  const schema = (file: string, pointer = ""): ValidateFunction => {
    const document = JSON.parse(readFileSync(path.join(SCHEMAS_DIR, file), "utf8")) as { $id?: string };
    const id = document.$id ?? file;
    if (!ajv.getSchema(id)) ajv.addSchema(document, id);
    const validate = ajv.getSchema(`${id}${pointer}`);
    if (!validate) throw new Error(`no schema at ${file}${pointer}`);
    return validate;
  };
  const expectValid = (validate: ValidateFunction, value: unknown) => {
    validate(value);
    expect(validate.errors ?? []).toEqual([]);
  };

  it.each(dashboards.map((dashboard) => [dashboard.file, dashboard.json]))(
    "%s validates against dashboard.jsonschema.json",
    (_file, json) => {
      expectValid(schema("dashboard.jsonschema.json"), json);
    },
  );

  it.each(panels)("%s: options and field config validate against the panel kind's schema", (_name, panel) => {
    const file = `${panel.type}.jsonschema.json`;
    expect(existsSync(path.join(SCHEMAS_DIR, file))).toBe(true);
    expectValid(schema(file, "#/definitions/Options"), panel.options);
    const custom = panel.fieldConfig?.defaults.custom;
    if (custom !== undefined) expectValid(schema(file, "#/definitions/FieldConfig"), custom);
  });

  it.each(targets)("%s validates against prometheus.jsonschema.json", (_name, target) => {
    expectValid(schema("prometheus.jsonschema.json"), target);
  });
});

describe("dashboard-linter conventions", () => {
  it("each dashboard has its stable uid, once", () => {
    expect(dashboards.map((dashboard) => dashboard.json.uid).sort()).toEqual(EXPECTED_UIDS);
    for (const dashboard of dashboards) expect(dashboard.file).toBe(`${dashboard.json.uid}.json`);
  });

  it.each(dashboards.map((dashboard) => [dashboard.json.title, dashboard]))(
    "%s has datasource, job and target (horizon or rpc) variables",
    (_title, dashboard) => {
      expect(dashboard.json.editable).toBe(false);
      const variables = dashboard.json.templating.list;
      const datasource = variables.find((variable) => variable.type === "datasource");
      expect(datasource).toMatchObject({ name: "datasource", label: "Data source", query: "prometheus" });
      const target = dashboard.json.uid.startsWith("stellar-rpc")
        ? (["rpc", "Stellar RPC"] as const)
        : (["horizon", "Horizon"] as const);
      for (const [name, label] of [["job", "Job"], target] as const) {
        expect(variables.find((variable) => variable.name === name)).toMatchObject({
          type: "query",
          label,
          datasource: { uid: TEMPLATED_DATASOURCE },
          multi: true,
          includeAll: true,
          allValue: ".+",
          refresh: 2,
        });
      }
      for (const variable of variables.filter((variable) => variable.type === "query")) {
        expect(variable.refresh).toBe(2);
        const selector = labelValuesSelector(variable.query ?? "");
        expect(selector).toBeDefined();
        const { errors, selectors } = parsePromQL(selector ?? "");
        expect(errors).toEqual([]);
        expect(unknownMetricNames(selectors, [])).toEqual([]);
      }
    },
  );

  it.each(panels)("%s has the templated datasource, a title, a description and a valid unit", (_name, panel) => {
    expect(panel.datasource).toEqual({ type: "prometheus", uid: TEMPLATED_DATASOURCE });
    expect(panel.title).toMatch(/\S/);
    expect(panel.description).toMatch(/\S/);
    expect(VALID_UNITS).toContain(panel.fieldConfig?.defaults.unit);
    expect(panel.targets?.length).toBeGreaterThan(0);
  });

  it.each(targets)(
    "%s parses, uses exported metrics, $job and $horizon (or $rpc) matchers and $__rate_interval",
    (_name, target) => {
      expect(target.datasource).toEqual({ type: "prometheus", uid: TEMPLATED_DATASOURCE });
      for (const range of target.expr.match(/\[[^\]]*\]/g) ?? []) expect(range).toBe("[$__rate_interval]");

      const { errors, selectors } = parsePromQL(substituteGrafanaIntervals(target.expr));
      expect(errors).toEqual([]);
      expect(unknownMetricNames(selectors, recordingRuleNames)).toEqual([]);
      expect(counterMisuses(selectors)).toEqual([]);
      for (const selector of selectors) {
        const labels = selector.matchers.map((matcher) => `${matcher.label}${matcher.op}${matcher.value}`);
        expect(labels).toContain("job=~$job");
        const targetLabel = TARGET_LABEL_BY_SERIES.get(selector.metric);
        if (targetLabel !== undefined) expect(labels).toContain(`${targetLabel}=~$${targetLabel}`);
      }
    },
  );
});
