import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALL_METRICS, POLL_ERROR_REASONS, targetLabelOf } from "../src/catalog/metrics.js";
import { FLAGS } from "../src/config/config.js";

const README = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), "../README.md"), "utf8");

function tableRows(firstHeader: string): string[][] {
  const lines = README.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`| ${firstHeader} |`));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

describe("README", () => {
  it("states the two fresh-machine commands", () => {
    expect(README).toContain("npm ci && npm run demo");
    expect(README).toContain("npm ci && npm test");
  });

  it("lists exactly the catalog's metrics, with their types and labels", () => {
    const rows = tableRows("Metric");
    const documented = rows.map(([name, type, labels]) => ({ name: name!.replace(/`/g, ""), type, labels: labels!.replace(/`/g, "") }));
    const expected = ALL_METRICS.map((metric) => ({
      name: metric.name,
      type: metric.type,
      labels: [...(metric.perTarget === false ? [] : [targetLabelOf(metric)]), ...metric.labels].join(", "),
    }));
    expect(documented).toEqual(expected);
  });

  it("documents every poll error reason and every flag", () => {
    expect(tableRows("Reason").map(([reason]) => reason!.replace(/`/g, ""))).toEqual(Object.keys(POLL_ERROR_REASONS));
    const flagColumn = tableRows("Flag").map(([flag]) => flag!);
    for (const [name, flag] of Object.entries(FLAGS)) {
      expect(flagColumn.some((cell) => cell.startsWith(`\`--${name}`)), name).toBe(true);
      if (flag.env) expect(README).toContain(`\`${flag.env}\``);
    }
  });
});
