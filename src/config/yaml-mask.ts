/**
 * A line of a YAML file as an error message may show it: its structure (indentation, indicators,
 * brackets) and its keys kept, every value and comment replaced by `***`. A syntax error's line
 * can hold a secret (a token pasted during a rotation, a password in a URL), and the message
 * reaches terminals and logs.
 */

/** The mask in place of a value or a comment. */
export const MASK = "***";

/** A key shown as it is: config keys and header names. Anything else in key position may be a value mistyped. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export interface MaskedLine {
  readonly text: string;
  /** Where the character at `index` of the original line is in `text` (a masked value's: the mask's start). */
  columnOf(index: number): number;
}

interface Segment {
  readonly from: number;
  readonly to: number;
  readonly at: number;
  readonly kept: boolean;
}

export function maskYamlLine(line: string): MaskedLine {
  const segments: Segment[] = [];
  let text = "";
  const keep = (from: number, to: number) => {
    segments.push({ from, to, at: text.length, kept: true });
    text += line.slice(from, to);
  };
  const mask = (from: number, to: number) => {
    segments.push({ from, to, at: text.length, kept: false });
    text += MASK;
  };
  const isSpace = (index: number) => line[index] === " " || line[index] === "\t";
  /** Whether a `:` at `index` is a mapping indicator: followed by a space, the line's end or (in a flow collection) a bracket or comma. */
  const isIndicatorColon = (index: number, flow: boolean) =>
    line[index] === ":" &&
    (index + 1 >= line.length || isSpace(index + 1) || (flow && ",]}".includes(line[index + 1]!)));
  /** The end of a token starting at `index`: a quoted string (closed or not), or a plain run. */
  const tokenEnd = (index: number, flow: boolean): number => {
    const quote = line[index];
    if (quote === '"' || quote === "'") {
      let end = index + 1;
      while (end < line.length) {
        if (quote === '"' && line[end] === "\\") end += 2;
        else if (line[end] === quote && quote === "'" && line[end + 1] === "'") end += 2;
        else if (line[end] === quote) return end + 1;
        else end++;
      }
      return line.length;
    }
    let end = index;
    while (
      end < line.length &&
      !isSpace(end) &&
      !(flow && ",[]{}".includes(line[end]!)) &&
      !isIndicatorColon(end, flow)
    )
      end++;
    return end;
  };
  /** A value up to the line's end (block) or to the flow collection's next comma or closing bracket, quoted strings whole. */
  const valueEnd = (index: number, flow: boolean): number => {
    if (!flow) return line.length;
    let end = index;
    while (end < line.length && !",]}".includes(line[end]!))
      end = line[end] === '"' || line[end] === "'" ? tokenEnd(end, true) : end + 1;
    // The spaces before a comma or bracket are kept.
    while (end > index && isSpace(end - 1)) end--;
    return end;
  };

  /** Brackets open: `{` and `[`; a key may start after `{` or a comma in a mapping, and at the line's start. */
  const open: string[] = [];
  let keyAllowed = true;
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    const flow = open.length > 0;
    if (isSpace(index)) {
      keep(index, index + 1);
      index++;
    } else if (char === "#" && (index === 0 || isSpace(index - 1))) {
      let comment = index + 1;
      while (isSpace(comment)) comment++;
      keep(index, comment);
      if (comment < line.length) mask(comment, line.length);
      index = line.length;
    } else if (
      (char === "-" || char === "?") &&
      !flow &&
      keyAllowed &&
      (index + 1 >= line.length || isSpace(index + 1))
    ) {
      keep(index, index + 1);
      index++;
    } else if (char === "{" || char === "[") {
      open.push(char);
      keyAllowed = char === "{";
      keep(index, index + 1);
      index++;
    } else if (char === "}" || char === "]" || (char === "," && flow)) {
      if (char !== ",") open.pop();
      keyAllowed = char === "," && open.at(-1) === "{";
      keep(index, index + 1);
      index++;
    } else if (isIndicatorColon(index, flow)) {
      keep(index, index + 1);
      keyAllowed = false;
      index++;
    } else {
      const end = tokenEnd(index, flow);
      let after = end;
      while (isSpace(after)) after++;
      if (keyAllowed && isIndicatorColon(after, flow)) {
        const key = line.slice(index, end).replace(/^(["'])(.*)\1$/, "$2");
        if (PLAIN_KEY.test(key)) keep(index, end);
        else mask(index, end);
        index = end;
      } else {
        const to = valueEnd(index, flow);
        mask(index, to);
        index = to;
        keyAllowed = false;
      }
    }
  }
  return {
    text,
    columnOf(at: number) {
      const segment = segments.find(({ from, to }) => at >= from && at < to);
      if (segment === undefined) return text.length;
      return segment.kept ? segment.at + (at - segment.from) : segment.at;
    },
  };
}
