import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALL_METRICS, POLL_ERROR_REASONS, targetLabelOf } from "../src/catalog/metrics.js";
import { FLAGS } from "../src/config/config.js";
import { configFileSchema } from "../src/config/file-schema.js";
import { parse as parseYaml } from "yaml";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");
const METRICS_DOC = readFileSync(resolve(ROOT, "docs/metrics.md"), "utf8");

function tableRows(text: string, firstHeader: string): string[][] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`| ${firstHeader} |`));
  expect(start, `a table headed "${firstHeader}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe("README", () => {
  it("states the two fresh-machine commands", () => {
    expect(README).toContain("npm ci && npm run demo");
    expect(README).toContain("npm ci && npm test");
  });

  it("stays short enough for a newcomer to read: at most 400 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(400);
  });

  it("documents every flag, and docs/metrics.md every poll error reason", () => {
    expect(tableRows(METRICS_DOC, "Reason").map(([reason]) => reason!.replace(/`/g, ""))).toEqual(
      Object.keys(POLL_ERROR_REASONS),
    );
    const flagColumn = tableRows(README, "Flag").map(([flag]) => flag!);
    for (const [name, flag] of Object.entries(FLAGS)) {
      expect(
        flagColumn.some((cell) => cell.startsWith(`\`--${name}`)),
        name,
      ).toBe(true);
      if (flag.env) expect(README).toContain(`\`${flag.env}\``);
    }
  });
});

describe("docs/metrics.md", () => {
  it("lists exactly the catalog's metrics, with their types and labels", () => {
    const rows = tableRows(METRICS_DOC, "Metric");
    const documented = rows.map(([name, type, labels]) => ({
      name: name!.replace(/`/g, ""),
      type,
      labels: labels!.replace(/`/g, ""),
    }));
    const expected = ALL_METRICS.map((metric) => ({
      name: metric.name,
      type: metric.type,
      labels: [...(metric.perTarget === false ? [] : [targetLabelOf(metric)]), ...metric.labels].join(", "),
    }));
    expect(documented).toEqual(expected);
  });
});

describe("config file examples", () => {
  const examples = ["README.md", "docs/configuration.md"].flatMap((path) =>
    [...readFileSync(resolve(ROOT, path), "utf8").matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((match) => match[1]!)
      .filter((yaml) => /^(targets|rpc_targets):/m.test(yaml))
      .map((yaml, index) => [`${path} #${index + 1}`, yaml] as const),
  );

  it("exist in the README and docs/configuration.md", () => {
    expect(examples.map(([name]) => name.split(" ")[0])).toEqual(
      expect.arrayContaining(["README.md", "docs/configuration.md"]),
    );
  });

  it.each(examples)("%s is a valid config file", (_name, yaml) => {
    const result = configFileSchema.safeParse(parseYaml(yaml));
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });
});

describe("README and docs/*.md links", () => {
  const documents = [
    "README.md",
    ...readdirSync(resolve(ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`),
  ];
  const anchorOf = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .trim()
      .replace(/ /g, "-");
  const anchors = (path: string) =>
    new Set(
      readFileSync(resolve(ROOT, path), "utf8")
        .split("\n")
        .filter((line) => /^#+ /.test(line))
        .map((line) => anchorOf(line.replace(/^#+ /, ""))),
    );

  it.each(documents)("%s links only to files and sections that exist", (path) => {
    const text = readFileSync(resolve(ROOT, path), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [file, anchor] = target!.split("#");
      const linked = file ? resolve(ROOT, dirname(path), file) : resolve(ROOT, path);
      expect(existsSync(linked), `${path} → ${target}`).toBe(true);
      if (anchor && linked.endsWith(".md"))
        expect(anchors(linked.slice(ROOT.length + 1)), `${path} → ${target}`).toContain(anchor);
    }
  });
});
