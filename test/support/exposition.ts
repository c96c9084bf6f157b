/** Series of a Prometheus text exposition, keyed `name{a="x",b="y"}` with labels sorted. */
export function parseExposition(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`unparseable exposition line: ${line}`);
    const labels = [...(match[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(
      ([, name, value]) => [name!, value!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\")] as const,
    );
    series.set(seriesKey(match[1]!, Object.fromEntries(labels)), Number(match[4]));
  }
  return series;
}

export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}="${value}"`);
  return `${name}{${pairs.join(",")}}`;
}

export function valueOf(
  series: Map<string, number>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return series.get(seriesKey(name, labels));
}

export function namesIn(series: Map<string, number>): Set<string> {
  return new Set([...series.keys()].map((key) => key.slice(0, key.indexOf("{"))));
}
