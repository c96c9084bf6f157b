import { readFile, stat } from "node:fs/promises";
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from "yaml";
import type { Document, YAMLError } from "yaml";
import type { z } from "zod";
import { holdsSeed } from "./accounts.js";
import { didYouMean, operatorMessage } from "./messages.js";
import { maskYamlLine } from "./yaml-mask.js";

/** Reads, parses and validates a YAML file; else undefined, one line per problem added: `FILE:LINE: key: what`. */
export async function readYamlDocument<T extends z.ZodType>(
  path: string,
  what: string,
  schema: T,
  problems: string[],
): Promise<z.output<T> | undefined> {
  const fail = (...lines: string[]) => void problems.push(...lines);
  const text = await stat(path)
    .then(({ size }) => (size > MAX_FILE_BYTES ? undefined : readFile(path, "utf8")))
    .catch((error: NodeJS.ErrnoException) => error);
  if (text instanceof Error) return fail(`${what} ${path}: cannot be read (${text.code ?? text.message})`);
  if (text === undefined) return fail(`${what} ${path}: larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
  const lines = new LineCounter();
  // The library checks keys unique pair by pair: a map of 40 000 keys took minutes. duplicateKey() is one pass.
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  const syntaxError = document.errors[0];
  if (syntaxError !== undefined)
    return fail(problemAt(path, text, offendingOffset(text, syntaxError), syntaxReason(syntaxError), lines));
  const duplicate = duplicateKey(document);
  if (duplicate !== undefined) return fail(problemAt(path, text, duplicate, "Map keys must be unique", lines));
  const alias = unresolvedAlias(document);
  if (alias !== undefined) return fail(problemAt(path, text, alias, UNRESOLVED_ALIAS, lines));
  let content: unknown;
  try {
    content = document.toJS();
  } catch (error) {
    // The library's messages may quote the file. Its alias cap (100) stops kilobytes expanding to gigabytes.
    const reason = error instanceof ReferenceError ? "too many aliases" : "it cannot be read as data";
    return fail(`${path}: not valid YAML: ${reason}`);
  }
  const parsed = schema.safeParse(content ?? {}, { error: operatorMessage });
  if (parsed.success) return parsed.data;
  const at = (keyPath: readonly PropertyKey[], key?: true) =>
    `${path}:${lines.linePos(offsetOf(document, keyPath, key)).line}: ${keyPathText(keyPath)}`;
  const found = parsed.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map(
          (key) => () =>
            `${at([...issue.path, key], true)}: unknown key${didYouMean(key, knownKeys(schema, issue.path))}`,
        )
      : [() => `${at(issue.path)}: ${issue.message}`],
  );
  // Locating a problem reads its map's keys: only the first are located, or thousands of bad keys take minutes.
  const located = found.slice(0, MAX_PROBLEMS).map((locate) => locate());
  const lineNumber = (problem: string) => Number(problem.slice(path.length + 1, problem.indexOf(":", path.length + 1)));
  const more = found.length - located.length;
  return fail(
    ...located.sort((a, b) => lineNumber(a) - lineNumber(b)),
    ...(more > 0 ? [`${path}: and ${more} more problems`] : []),
  );
}

/** The largest file read: ten times a watch of 10 000 accounts with three assets each (parsed in under a second); the
 * worst file this size (245 357 keys) is refused in about 5 s. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Problems listed at most: a file of thousands of bad keys is told by its first ones. */
const MAX_PROBLEMS = 20;

/** Where the first key repeated within its map starts, in one pass. */
function duplicateKey(document: Document): number | undefined {
  let offset: number | undefined;
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const value = isScalar(key) ? key.value : key;
        if (!seen.has(value)) seen.add(value);
        else {
          offset = startOf(key) ?? 0;
          return visit.BREAK;
        }
      }
      return undefined;
    },
  });
  return offset;
}

/** Said in place of a map key holding a seed (`"USDC:S...": 5` under low_balance): a key path quotes keys verbatim. */
const SEED_KEY = "(a key holding a secret seed, not shown)";

/** `targets[0].timeout`, as the operator finds it in the file. */
function keyPathText(path: readonly PropertyKey[]): string {
  const partText = (part: PropertyKey) => (holdsSeed(String(part)) ? SEED_KEY : String(part));
  const text = path.map((part) => (typeof part === "number" ? `[${part}]` : `.${partText(part)}`)).join("");
  return text.replace(/^\./, "") || "(top level)";
}

/** Where a key (or its value) starts; a missing one points at its nearest parent that is there. */
function offsetOf(document: Document, path: readonly PropertyKey[], key?: true): number {
  for (let length = path.length; length > 0; length--) {
    const parent = length === 1 ? document.contents : document.getIn(path.slice(0, length - 1), true);
    const part = path[length - 1];
    let start: number | undefined;
    if (isSeq(parent) && typeof part === "number") start = startOf(parent.items[part]);
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
      start = key || pair?.value === null ? startOf(pair?.key) : startOf(pair?.value);
    }
    if (start !== undefined) return start;
    key = undefined;
  }
  return startOf(document.contents) ?? 0;
}

function startOf(node: unknown): number | undefined {
  return (node as { range?: readonly number[] } | null | undefined)?.range?.[0];
}

type SchemaDefinition = Partial<Record<"innerType" | "element" | "in" | "valueType", z.ZodType>> & {
  readonly shape?: Record<string, z.ZodType>;
};

/** The keys the object schema at `path` accepts, for suggesting one in place of a misspelt key. */
function knownKeys(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string[] {
  if (schema === undefined) return [];
  const definition: SchemaDefinition = (schema as unknown as { _zod: { def: SchemaDefinition } })._zod.def;
  const inner = definition.innerType ?? definition.in;
  if (inner !== undefined) return knownKeys(inner, path);
  if (path.length === 0) return Object.keys(definition.shape ?? {});
  const [part, ...rest] = path;
  return knownKeys(definition.element ?? definition.valueType ?? definition.shape?.[String(part)], rest);
}

// Where the first alias naming no earlier anchor starts (the library reports none), in one pass: resolving each
// alias walks the document again, seconds for thousands of aliases, before toJS's alias cap can refuse it.
function unresolvedAlias(document: Document): number | undefined {
  let offset: number | undefined;
  const anchors = new Set<string>();
  visit(document, {
    Node(_key, node) {
      if (!isAlias(node) && node.anchor) anchors.add(node.anchor);
      if (!isAlias(node) || anchors.has(node.source)) return undefined;
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

const UNRESOLVED_ALIAS =
  "a value starting with * is an alias, and no anchor (&) before it has that name: quote the value if it is text";

/** `FILE:LINE:COL: not valid YAML: reason`, then the line at `offset`, values masked (secrets), and a caret. */
function problemAt(path: string, text: string, offset: number, reason: string, lines: LineCounter): string {
  const { line, col } = lines.linePos(offset);
  const masked = maskYamlLine(text.split(/\r?\n/)[line - 1] ?? "");
  const caret = " ".repeat(masked.columnOf(col - 1));
  return `${path}:${line}:${col}: not valid YAML: ${reason}\n    ${masked.text.replace(/\t/g, " ")}\n    ${caret}^`;
}

/** Messages of the YAML library that quote the file, said without the quote: it may be part of a secret. */
const QUOTING_MESSAGE = new RegExp(
  "^(Unresolved tag|Not a valid tag|Could not resolve tag|Block scalar header includes extra characters|" +
    "Ordered maps must not include duplicate keys|Unresolved plain scalar)(?=: )|" +
    "^(Unsupported YAML version|Invalid escape sequence)(?= )|^Verbatim tags aren't resolved(?=, so )",
);

function syntaxReason(error: YAMLError): string {
  const reason = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "");
  if (/^The .* tag has no suffix$/.test(reason)) return "A tag has no suffix";
  return QUOTING_MESSAGE.exec(reason)?.[0] ?? reason;
}

/** The offending token: the YAML library reports some errors where it noticed them (a line start, past a bracket). */
function offendingOffset(text: string, error: YAMLError): number {
  const at = error.pos[0];
  const closer = /end with a ([\]}])$/.exec(error.message.replace(/ at line[\s\S]*$/, ""))?.[1];
  if (closer !== undefined) {
    // The bracket that was never closed: the nearest opener before the error without its closer.
    const opener = closer === "]" ? "[" : "{";
    let depth = 0;
    for (let index = at - 1; index >= 0; index--) {
      if (text[index] === closer) depth++;
      else if (text[index] === opener && depth-- === 0) return index;
    }
  }
  const quote = /^Missing closing (["'])quote/.exec(error.message)?.[1];
  const opening = quote === undefined ? -1 : text.lastIndexOf(quote, at - 1);
  if (opening !== -1) return opening;
  // Past the indentation, unless the indentation itself is the problem (a tab).
  if (error.code === "TAB_AS_INDENT") return at;
  let index = at;
  while (text[index] === " ") index++;
  return text[index] === "\n" || index >= text.length ? at : index;
}
