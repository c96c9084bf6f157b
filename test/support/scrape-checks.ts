import { seriesKey } from "./exposition.js";

/** The sample lines of an exposition, without comments and blank lines. */
function sampleLines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
}

/**
 * Series that appear more than once (same name, same labels in any order): Prometheus rejects the
 * whole scrape for one of them, while `promtool check metrics` 2.42 misses it.
 */
export function duplicateSeries(text: string): string[] {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const line of sampleLines(text)) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [
        name!,
        value!,
      ]),
    );
    const key = seriesKey(match[1]!, labels);
    if (seen.has(key)) duplicates.push(key);
    seen.add(key);
  }
  return duplicates;
}

/** Sample lines whose value is +Inf, -Inf or NaN (histogram bucket bounds `le="+Inf"` are labels, not values). */
export function nonFiniteSamples(text: string): string[] {
  return sampleLines(text).filter((line) => /\s[+-]?(Inf|NaN)$/.test(line));
}
