import {
  BigValueGraphMode,
  ReduceDataOptionsBuilder,
  VisibilityMode,
  type DataSourceRef,
} from "@grafana/grafana-foundation-sdk/common";
import {
  DashboardBuilder,
  DashboardCursorSync,
  DashboardLinkBuilder,
  DashboardLinkType,
  DatasourceVariableBuilder,
  MappingType,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
  type Dashboard,
  type DataTransformerConfig,
  type ValueMapping,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { DataqueryBuilder, PromQueryFormat } from "@grafana/grafana-foundation-sdk/prometheus";
import * as stat from "@grafana/grafana-foundation-sdk/stat";
import * as table from "@grafana/grafana-foundation-sdk/table";
import * as timeseries from "@grafana/grafana-foundation-sdk/timeseries";
import {
  METRICS,
  RPC_METRICS,
  targetLabelOf,
  type MetricDefinition,
  type TargetLabel,
} from "../../src/catalog/metrics.js";

/** Every panel, query and variable reads from the dashboard's `datasource` variable. */
export const DATASOURCE: DataSourceRef = { type: "prometheus", uid: "${datasource}" };

/** The tag that links the dashboards to each other. */
const DASHBOARD_TAG = "stellar-horizon-exporter";

export interface Query {
  readonly expr: string;
  readonly legend?: string;
}

export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  /** A Grafana unit id (see @grafana/grafana-foundation-sdk/units). */
  readonly unit: string;
  readonly queries: readonly Query[];
  /** Grid columns out of 24. */
  readonly width: number;
  readonly height?: number;
}

type HistogramSeries = "_bucket" | "_sum" | "_count";

/**
 * A selector for a catalog metric restricted to the dashboard's `job` and target variables
 * (`horizon`, or `rpc` for Stellar RPC series). Exporter-wide series have no target label, so only
 * `job` applies to them.
 */
export function select(
  metric: MetricDefinition,
  options: { series?: HistogramSeries; matchers?: string } = {},
): string {
  const matchers = ['job=~"$job"'];
  if (metric.perTarget !== false) matchers.push(`${targetLabelOf(metric)}=~"$${targetLabelOf(metric)}"`);
  if (options.matchers) matchers.push(options.matchers);
  return `${metric.name}${options.series ?? ""}{${matchers.join(", ")}}`;
}

/** Per-second rate over Grafana's `$__rate_interval`, summed by the given labels. */
export function sumRate(
  metric: MetricDefinition,
  by: readonly string[],
  options: { series?: HistogramSeries; matchers?: string } = {},
): string {
  return `sum by (${by.join(", ")}) (rate(${select(metric, options)}[$__rate_interval]))`;
}

export function histogramQuantile(quantile: number, metric: MetricDefinition, by: readonly string[]): string {
  return `histogram_quantile(${quantile}, ${sumRate(metric, [...by, "le"], { series: "_bucket" })})`;
}

function prometheusQuery(query: Query, index: number, format: "range" | "instant" | "table"): DataqueryBuilder {
  const builder = new DataqueryBuilder()
    .datasource(DATASOURCE)
    .refId(String.fromCharCode("A".charCodeAt(0) + index))
    .expr(query.expr);
  if (query.legend !== undefined) builder.legendFormat(query.legend);
  if (format === "range") return builder.range();
  builder.instant();
  return format === "table" ? builder.format(PromQueryFormat.Table) : builder;
}

type KindBuilder = timeseries.PanelBuilder | stat.PanelBuilder | table.PanelBuilder;

function describe<B extends KindBuilder>(builder: B, spec: PanelSpec, format: "range" | "instant" | "table"): B {
  builder
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(DATASOURCE)
    .span(spec.width)
    .height(spec.height ?? 8);
  spec.queries.forEach((query, index) => builder.withTarget(prometheusQuery(query, index, format)));
  return builder;
}

export function timeseriesPanel(
  spec: PanelSpec & { readonly min?: number; readonly max?: number },
): timeseries.PanelBuilder {
  const builder = describe(new timeseries.PanelBuilder(), spec, "range")
    .fillOpacity(10)
    .showPoints(VisibilityMode.Never);
  if (spec.min !== undefined) builder.min(spec.min);
  if (spec.max !== undefined) builder.max(spec.max);
  return builder;
}

export function statPanel(spec: PanelSpec & { readonly mappings?: ValueMapping[] }): stat.PanelBuilder {
  const builder = describe(new stat.PanelBuilder(), spec, "instant")
    .graphMode(BigValueGraphMode.None)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(["lastNotNull"]));
  if (spec.mappings) builder.mappings(spec.mappings);
  return builder;
}

export function tablePanel(
  spec: PanelSpec & { readonly transformations: DataTransformerConfig[] },
): table.PanelBuilder {
  return describe(new table.PanelBuilder(), spec, "table").transformations(spec.transformations);
}

/** Shows 1 as "Up" in green and 0 as "Down" in red. */
export const UP_DOWN_MAPPINGS: ValueMapping[] = [
  {
    type: MappingType.ValueToText,
    options: {
      "0": { text: "Down", color: "red", index: 0 },
      "1": { text: "Up", color: "green", index: 1 },
    },
  },
];

/** A table transformation that keeps, orders and renames the given columns and drops the rest. */
export function columns(renames: Readonly<Record<string, string>>): DataTransformerConfig {
  const names = Object.keys(renames);
  return {
    id: "organize",
    options: {
      includeByName: Object.fromEntries(names.map((name) => [name, true])),
      indexByName: Object.fromEntries(names.map((name, index) => [name, index])),
      renameByName: renames,
    },
  };
}

export function multiValueVariable(name: string, label: string, query: string): QueryVariableBuilder {
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue(".+");
}

export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly rows: readonly { readonly title: string; readonly panels: readonly KindBuilder[] }[];
  /** Variables after datasource, job and the target variable. */
  readonly extraVariables?: readonly QueryVariableBuilder[];
  /** The label the target variable selects on; `horizon` unless the dashboard is about Stellar RPCs. */
  readonly targetLabel?: TargetLabel;
  readonly time?: { readonly from: string; readonly to: string };
}

/** Each target variable lists the targets that have an `up` series, under this label. */
const TARGET_VARIABLES: Readonly<Record<TargetLabel, { readonly label: string; readonly up: MetricDefinition }>> = {
  horizon: { label: "Horizon", up: METRICS.up },
  rpc: { label: "Stellar RPC", up: RPC_METRICS.up },
};

export function dashboard(spec: DashboardSpec): Dashboard {
  const target = spec.targetLabel ?? "horizon";
  const builder = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([DASHBOARD_TAG, "stellar"])
    .readonly()
    .tooltip(DashboardCursorSync.Crosshair)
    .timezone("browser")
    .time(spec.time ?? { from: "now-3h", to: "now" })
    .refresh("30s")
    .link(
      new DashboardLinkBuilder("Stellar Horizon dashboards")
        .type(DashboardLinkType.Dashboards)
        .tags([DASHBOARD_TAG])
        .asDropdown(true)
        .includeVars(true)
        .keepTime(true),
    )
    .withVariable(new DatasourceVariableBuilder("datasource").label("Data source").type("prometheus"))
    .withVariable(multiValueVariable("job", "Job", `label_values(${TARGET_VARIABLES[target].up.name}, job)`))
    .withVariable(
      multiValueVariable(
        target,
        TARGET_VARIABLES[target].label,
        `label_values(${TARGET_VARIABLES[target].up.name}{job=~"$job"}, ${target})`,
      ),
    );
  for (const variable of spec.extraVariables ?? []) builder.withVariable(variable);
  for (const row of spec.rows) {
    builder.withRow(new RowBuilder(row.title));
    for (const panel of row.panels) builder.withPanel(panel);
  }
  const built = builder.build();
  // Stable ids keep panel links and the committed JSON the same from one generation to the next.
  built.panels?.forEach((panel, index) => {
    panel.id = index + 1;
  });
  return built;
}
