// The limits Biome only warns about, as errors for src/: no line over 120 characters (the
// formatter cannot wrap a long string or comment) and no function over 80 lines (Biome warns
// from 60, so a function that grows is noticed before it fails).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const MAX_LINE = 120;
const MAX_FUNCTION_LINES = 80;

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return file.endsWith(".ts") ? [file] : [];
  });
}

const problems = [];
for (const file of sourceFiles("src")) {
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line.length > MAX_LINE) problems.push(`${file}:${index + 1}: line of ${line.length} characters`);
    });
}

const biome = path.join("node_modules", ".bin", "biome");
// Biome exits non-zero on its own errors, which `npm run lint` reports; its report is read all the same.
const report = JSON.parse(
  spawnSync(biome, ["lint", "--reporter=json", "--max-diagnostics=none", "src"], { encoding: "utf8" }).stdout,
);
for (const diagnostic of report.diagnostics) {
  if (diagnostic.category !== "lint/complexity/noExcessiveLinesPerFunction") continue;
  const lines = Number(/\((\d+)\)/.exec(diagnostic.message)?.[1]);
  if (lines > MAX_FUNCTION_LINES) {
    const { path: file, start } = diagnostic.location;
    problems.push(`${file}:${start.line}: function of ${lines} lines (at most ${MAX_FUNCTION_LINES})`);
  }
}

for (const problem of problems) process.stderr.write(`${problem}\n`);
process.exitCode = problems.length > 0 ? 1 : 0;
