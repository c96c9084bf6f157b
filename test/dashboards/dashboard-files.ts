import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { DASHBOARDS_DIR } from "../../scripts/dashboards/paths.js";

/** The parts of Grafana's dashboard JSON the tests read. */
export interface DashboardTarget {
  readonly expr: string;
  readonly refId: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
  readonly [key: string]: unknown;
}

export interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title?: string;
  readonly description?: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
  readonly targets?: readonly DashboardTarget[];
  readonly options?: unknown;
  readonly fieldConfig?: { readonly defaults: { readonly unit?: string; readonly custom?: unknown } };
}

export interface DashboardVariable {
  readonly name: string;
  readonly type: string;
  readonly label?: string;
  readonly query?: string;
  readonly datasource?: { readonly uid?: string };
  readonly multi?: boolean;
  readonly includeAll?: boolean;
  readonly allValue?: string;
  readonly refresh?: number;
}

export interface DashboardFile {
  readonly file: string;
  readonly json: {
    readonly uid: string;
    readonly title: string;
    readonly editable?: boolean;
    readonly panels: readonly DashboardPanel[];
    readonly templating: { readonly list: readonly DashboardVariable[] };
  };
}

export function loadDashboards(): DashboardFile[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({
      file,
      json: JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, file), "utf8")) as DashboardFile["json"],
    }));
}

/** Panels that show data, i.e. everything but rows. */
export function dataPanels(dashboard: DashboardFile): DashboardPanel[] {
  return dashboard.json.panels.filter((panel) => panel.type !== "row");
}

/** The selector inside a `label_values(selector, label)` variable query. */
export function labelValuesSelector(query: string): string | undefined {
  return /^label_values\((.+),\s*\w+\)$/.exec(query)?.[1];
}
