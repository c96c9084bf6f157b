import { parser } from "@prometheus-io/lezer-promql";
import { ALL_METRICS, exposedSeriesNames } from "../../src/catalog/metrics.js";

export interface LabelMatcher {
  readonly label: string;
  readonly op: string;
  readonly value: string;
}

export interface Selector {
  readonly metric: string;
  readonly matchers: readonly LabelMatcher[];
  /** The range in `metric[range]`, when the selector is a range vector. */
  readonly range?: string;
  /** The function the range vector is passed to, e.g. `rate`. */
  readonly rangeFunction?: string;
}

export interface ParsedPromQL {
  /** Positions and text of syntax errors; empty when the expression parses. */
  readonly errors: readonly string[];
  readonly selectors: readonly Selector[];
}

type SyntaxNode = ReturnType<typeof parser.parse>["topNode"];

/** Grafana's interval variable is not PromQL; stand a duration in for it before parsing. */
export function substituteGrafanaIntervals(expr: string): string {
  return expr.replaceAll("$__rate_interval", "5m");
}

function childrenNamed(node: SyntaxNode, name: string): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) if (child.name === name) found.push(child);
  return found;
}

/** Our expressions quote strings with double quotes only, whose escapes are JSON's. */
function unquote(literal: string): string {
  return JSON.parse(literal) as string;
}

function selectorAt(node: SyntaxNode, text: (node: SyntaxNode) => string): Selector {
  const identifier = childrenNamed(node, "Identifier")[0];
  const matchers = childrenNamed(node, "LabelMatchers").flatMap((list) =>
    childrenNamed(list, "UnquotedLabelMatcher").map((matcher) => ({
      label: text(childrenNamed(matcher, "LabelName")[0] ?? matcher),
      op: text(childrenNamed(matcher, "MatchOp")[0] ?? matcher),
      value: unquote(text(childrenNamed(matcher, "StringLiteral")[0] ?? matcher)),
    })),
  );
  const matrix = node.parent?.name === "MatrixSelector" ? node.parent : undefined;
  const call = matrix?.parent?.parent;
  const functionName = call?.name === "FunctionCall" ? childrenNamed(call, "FunctionIdentifier")[0] : undefined;
  return {
    metric: identifier ? text(identifier) : "",
    matchers,
    ...(matrix && { range: text(matrix).slice(text(matrix).lastIndexOf("[") + 1, -1) }),
    ...(functionName && { rangeFunction: text(functionName) }),
  };
}

export function parsePromQL(expr: string): ParsedPromQL {
  const tree = parser.parse(expr);
  const text = (node: SyntaxNode) => expr.slice(node.from, node.to);
  const errors: string[] = [];
  const selectors: Selector[] = [];
  tree.iterate({
    enter(ref) {
      if (ref.type.isError) errors.push(`syntax error at ${ref.from}: "${expr.slice(ref.from, ref.from + 20)}"`);
      if (ref.name === "VectorSelector") selectors.push(selectorAt(ref.node, text));
    },
  });
  return { errors, selectors };
}

/** Standard series any Prometheus target or Node.js process exposes. */
function isStandardMetric(name: string): boolean {
  return name === "up" || name.startsWith("process_") || name.startsWith("nodejs_");
}

const CATALOG_SERIES = new Set(ALL_METRICS.flatMap(exposedSeriesNames));

/** Metric names in `expr` that neither the exporter, Prometheus nor the given recording rules provide. */
export function unknownMetricNames(selectors: readonly Selector[], recordingRules: readonly string[]): string[] {
  const recorded = new Set(recordingRules);
  return selectors
    .flatMap(namesSelected)
    .filter((name) => !CATALOG_SERIES.has(name) && !recorded.has(name) && !isStandardMetric(name));
}

/**
 * The metric names a selector reads: its name, or the alternatives of a `__name__=~"a_(b|c)"`
 * matcher (the one way to read both kinds' families of a watched account in one label_values).
 */
function namesSelected(selector: Selector): string[] {
  if (selector.metric !== "") return [selector.metric];
  const byName = selector.matchers.find((matcher) => matcher.label === "__name__" && matcher.op === "=~");
  const alternatives = /^([a-z_]*)\(([a-z_|]+)\)([a-z_]*)$/.exec(byName?.value ?? "");
  if (!alternatives) return [""];
  return alternatives[2]!.split("|").map((middle) => `${alternatives[1]}${middle}${alternatives[3]}`);
}

/** Counter and histogram series in range functions other than rate/irate/increase, or bare. */
export function counterMisuses(selectors: readonly Selector[]): string[] {
  const cumulative = new Set(
    ALL_METRICS.filter((metric) => metric.type !== "gauge")
      .flatMap(exposedSeriesNames)
      .concat(["process_cpu_seconds_total"]),
  );
  return selectors
    .filter((selector) => cumulative.has(selector.metric))
    .filter((selector) => !["rate", "irate", "increase"].includes(selector.rangeFunction ?? ""))
    .map((selector) => selector.metric);
}
