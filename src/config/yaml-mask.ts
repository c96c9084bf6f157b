// A YAML line as an error message may show it: structure and keys kept, every value and comment `***`, as the line
// of a syntax error may hold a secret (a token pasted mid-rotation, a password in a URL). The yaml Lexer cuts tokens.
import { CST, Lexer } from "yaml";

/** A key shown as it is: config keys and header names. Anything else in key position may be a value mistyped. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Tokens the Lexer adds that are not text of the line. */
const SYNTHETIC = new Set<string | undefined>(["doc-mode", "scalar", "flow-error-end", "newline"]);
const FLOW_START = new Set<string | undefined>(["flow-map-start", "flow-seq-start"]);
const FLOW_END = new Set<string | undefined>(["flow-map-end", "flow-seq-end", "comma"]);
/** Indicators and brackets, kept as they are. */
const STRUCTURE = new Set([...FLOW_START, ...FLOW_END, "seq-item-ind", "explicit-key-ind", "map-value-ind"]);

type Token = { readonly type: string | undefined; readonly from: number; readonly to: number };

/** The line's own tokens, with where each stands in it; a plain scalar's type is undefined. */
function tokensOf(line: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  for (const source of new Lexer().lex(line)) {
    const type = CST.tokenType(source) ?? undefined;
    if (SYNTHETIC.has(type) || source.length === 0) continue;
    tokens.push({ type, from: at, to: at + source.length });
    at += source.length;
  }
  return tokens;
}

/** Whether the token at `index` is a key: the next token but spaces is a `:`, and it is one word. */
function isKey(line: string, tokens: readonly Token[], index: number): boolean {
  let next = index + 1;
  while (tokens[next]?.type === "space") next += 1;
  if (tokens[next]?.type !== "map-value-ind") return false;
  const { type, from, to } = tokens[index]!;
  return type !== undefined || !/\s/.test(line.slice(from, to));
}

/** Where a value from token `index` ends: the line's end in block context, else before the next comma or bracket. */
function valueEnd(tokens: readonly Token[], index: number, depth: number): number {
  if (depth === 0) return tokens.length;
  let end = index;
  while (end < tokens.length && !FLOW_END.has(tokens[end]!.type)) end += 1;
  while (end > index + 1 && tokens[end - 1]!.type === "space") end -= 1;
  return end;
}

export function maskYamlLine(line: string) {
  const segments: { from: number; to: number; at: number; kept: boolean }[] = [];
  let text = "";
  const add = (from: number, to: number, kept: boolean) => {
    segments.push({ from, to, at: text.length, kept });
    text += kept ? line.slice(from, to) : "***";
  };
  const tokens = tokensOf(line);
  let depth = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token.type === "space" || STRUCTURE.has(token.type)) {
      if (FLOW_START.has(token.type)) depth += 1;
      else if (token.type === "flow-map-end" || token.type === "flow-seq-end") depth = Math.max(0, depth - 1);
      add(token.from, token.to, true);
    } else if (token.type === "comment") {
      const marker = /^#\s*/.exec(line.slice(token.from, token.to))![0].length;
      add(token.from, token.from + marker, true);
      if (token.from + marker < token.to) add(token.from + marker, token.to, false);
    } else if (isKey(line, tokens, index)) {
      const key = line.slice(token.from, token.to).replace(/^(["'])(.*)\1$/, "$2");
      add(token.from, token.to, PLAIN_KEY.test(key));
    } else {
      const end = valueEnd(tokens, index, depth);
      add(token.from, tokens[end - 1]!.to, false);
      index = end - 1; // the value's tokens are masked as one
    }
  }
  return {
    text,
    /** Where the character at `at` of the original line is in `text` (a masked value's: the mask's start). */
    columnOf(at: number): number {
      const segment = segments.find(({ from, to }) => at >= from && at < to);
      if (segment === undefined) return text.length;
      return segment.kept ? segment.at + (at - segment.from) : segment.at;
    },
  };
}
