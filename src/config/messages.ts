/** Config problems in an operator's words: zod's defaults describe its parser, not what to write in the file. */
import type { z } from "zod";
import { describeInvalidUrl } from "./target-url.js";

const EXPECTED: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping (key: value)",
  record: "a mapping (key: value)",
};

/** Text plain enough to be a misspelt word (`loud`); anything else may be a token in the wrong place: not shown. */
const SHOWABLE_TEXT = /^[A-Za-z][A-Za-z .-]{0,19}$/;

/** A value as the operator wrote it, short; text that could be a secret is described, not quoted. */
export function shown(input: unknown): string {
  if (input === null) return "nothing";
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return "a mapping";
  if (typeof input === "string")
    return SHOWABLE_TEXT.test(input) ? JSON.stringify(input) : `text of ${input.length} characters`;
  const text = String(input);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** A command-line argument out of place (a URL whose flag was left out): quoted only when a plain word. */
export function argumentShown(argument: string): string {
  if (SHOWABLE_TEXT.test(argument)) return JSON.stringify(argument);
  // Userinfo, a token path and query keys are left out; the scheme and host tell the operator which URL it was.
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(argument))
    return `${describeInvalidUrl(argument)} (a URL: give it to its flag, as in --horizon.url=URL)`;
  return `(${shown(argument)}, not shown: it may hold a secret)`;
}

/** The per-parse error map: undefined leaves an issue's own message (every custom one) alone. */
export function operatorMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return "required";
      // Text where something else belongs (a header value where a mapping belongs) is never quoted.
      const got = typeof issue.input === "string" ? "text" : shown(issue.input);
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${got}`;
    }
    case "too_small":
      if (issue.origin === "array")
        return `expected at least ${issue.minimum} ${Number(issue.minimum) === 1 ? "entry" : "entries"}`;
      if (issue.origin === "string") return "must not be empty";
      return `expected ${issue.inclusive ? "at least" : "more than"} ${issue.minimum}, got ${shown(issue.input)}`;
    case "too_big":
      if (issue.origin === "array") return `expected at most ${issue.maximum} entries`;
      return `expected ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}, got ${shown(issue.input)}`;
    case "invalid_value":
      return `expected one of ${issue.values.map(String).join(", ")}, got ${shown(issue.input)}`;
    case "invalid_key":
      // zod says "Invalid key in record"; the key's own check (a header name's) says what is wrong with it.
      return [...new Set(issue.issues.map(({ message }) => message))].join("; ") || "invalid key";
    default:
      return undefined;
  }
}

/** Edits that turn `a` into `b`, an adjacent swap counting as one (`nmae` is one from `name`). */
function editDistance(a: string, b: string): number {
  // The first row and column are the distances from an empty string; every other cell is set before it is read.
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** ` (did you mean NAME?)` with the known name closest to a misspelt one, when it is close enough; else nothing. */
export function didYouMean(name: string, known: readonly string[], prefix = ""): string {
  const tolerance = Math.max(1, Math.floor(name.length / 3));
  const distance = (candidate: string) => editDistance(name.toLowerCase(), candidate.toLowerCase());
  // A stable sort: of equally close names, the first listed.
  const meant = known.filter((other) => distance(other) <= tolerance).sort((a, b) => distance(a) - distance(b))[0];
  return meant ? ` (did you mean ${prefix}${meant}?)` : "";
}

/** ` (did you mean 15s?)` for a bare number where a duration belongs, else nothing. */
export function unitSuggestion(input: unknown): string {
  const number = typeof input === "string" && /^\s*\d+\s*$/.test(input) ? Number(input) : input;
  return typeof number === "number" && Number.isInteger(number) && number > 0 ? ` (did you mean ${number}s?)` : "";
}

/** node:util parseArgs's messages in the operator's words, with the closest flag for a typo. */
export function flagProblem(message: string, flags: readonly string[]): string {
  const [, dashes, unknown] = /^Unknown option '(-{1,2})([^']+)'/.exec(message) ?? [];
  if (unknown !== undefined)
    return `unknown flag ${dashes}${unknown}${didYouMean(unknown.split("=")[0]!, flags, "--")}`;
  const missing = /^Option '(--[^ ']+)(?: <value>)?' argument missing/.exec(message)?.[1];
  if (missing !== undefined) return `${missing} needs a value`;
  // Up to the last quote: an argument holding a quote is judged whole, not by its first part.
  const unexpected = /^Unexpected argument '([\s\S]*)'/.exec(message)?.[1];
  if (unexpected !== undefined) return `unexpected argument ${argumentShown(unexpected)}`;
  const noValue = /^Option '(--[^']+)' does not take an argument/.exec(message)?.[1];
  if (noValue !== undefined) return `${noValue} takes no value`;
  return message;
}
