import { parentPort, workerData } from "node:worker_threads";

/** json-parse.ts's worker thread: it imports nothing of ours, so Node runs it as it is (from dist/, or as source). */

export type ParseRequest = { readonly id: number; readonly text: string };

/** The answer: the value, or why there is none (not JSON, or more values than may be sent back). */
export type ParseReply = { readonly id: number } & ReturnType<typeof answer>;

/** Set by the main thread; a test importing this module in a test runner's own worker starts nothing. */
export type JsonWorkerData = { readonly jsonWorker: true; readonly maxValues: number };

/** Whether `value` holds more than `limit` JSON values (itself included); stops counting past the limit. */
export function exceedsValues(value: unknown, limit: number): boolean {
  // Values are counted when found, so a huge array is judged by its length before it is walked.
  const pending: unknown[] = [value];
  let count = 1;
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== "object") continue;
    const children = Array.isArray(next) ? next : Object.values(next);
    count += children.length;
    if (count > limit) return true;
    for (const child of children) pending.push(child);
  }
  return count > limit;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** Whether `text` surely holds more than `limit` JSON values, read outside its strings: each object or array is one,
 * and each comma separates two. Such a body is refused unparsed: parsing millions of tiny values first left the
 * process hundreds of MiB larger (docs/performance.md). */
export function surelyExceedsValues(text: string, limit: number): boolean {
  let opened = 0;
  let commas = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      // To the closing quote; an escaped character is skipped with its backslash.
      at += 1;
      while (at < text.length && text.charCodeAt(at) !== QUOTE) at += text.charCodeAt(at) === BACKSLASH ? 2 : 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++opened > limit) return true;
    } else if (code === COMMA && ++commas >= limit) return true;
  }
  return false;
}

function answer(text: string, maxValues: number) {
  const tooComplex = { outcome: "too_complex" as const, why: `more than ${maxValues} JSON values` };
  if (surelyExceedsValues(text, maxValues)) return tooComplex;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { outcome: "invalid_json" } as const;
  }
  if (exceedsValues(value, maxValues)) return tooComplex;
  return { outcome: "parsed", value } as const;
}

const port = parentPort;
const { jsonWorker, maxValues } = (workerData ?? {}) as Partial<JsonWorkerData>;
if (port && jsonWorker === true && maxValues !== undefined) {
  port.on("message", ({ id, text }: ParseRequest) => {
    try {
      port.postMessage({ id, ...answer(text, maxValues) } satisfies ParseReply);
    } catch {
      // The structured clone recurses: arrays nested tens of thousands deep overflow its stack.
      port.postMessage({ id, outcome: "too_complex", why: "nested too deeply to send back" } satisfies ParseReply);
    }
  });
}
