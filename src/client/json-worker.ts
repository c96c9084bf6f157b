import { parentPort, workerData } from "node:worker_threads";

/**
 * json-parse.ts's worker thread. It imports nothing of ours, so Node runs it as it is, compiled from dist/ or as
 * TypeScript source under vitest.
 */

/** What the main thread asks: parse `text`, answer with the same `id`. */
export interface ParseRequest {
  readonly id: number;
  readonly text: string;
}

/** The answer: the value, or why there is none (not JSON, or more values than may be sent back). */
export type ParseReply =
  | { readonly id: number; readonly outcome: "parsed"; readonly value: unknown }
  | { readonly id: number; readonly outcome: "invalid_json" }
  | { readonly id: number; readonly outcome: "too_complex"; readonly why: string };

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

function answer(request: ParseRequest, maxValues: number): ParseReply {
  let value: unknown;
  try {
    value = JSON.parse(request.text);
  } catch {
    return { id: request.id, outcome: "invalid_json" };
  }
  if (exceedsValues(value, maxValues)) {
    return { id: request.id, outcome: "too_complex", why: `more than ${maxValues} JSON values` };
  }
  return { id: request.id, outcome: "parsed", value };
}

/** Set by the main thread; a test importing this module in a test runner's own worker starts nothing. */
export interface JsonWorkerData {
  readonly jsonWorker: true;
  readonly maxValues: number;
}

const data = workerData as Partial<JsonWorkerData> | null;
if (parentPort && data?.jsonWorker === true && data.maxValues !== undefined) {
  const port = parentPort;
  const maxValues = data.maxValues;
  port.on("message", (request: ParseRequest) => {
    try {
      port.postMessage(answer(request, maxValues));
    } catch {
      // The structured clone recurses: arrays nested tens of thousands deep overflow its stack.
      port.postMessage({ id: request.id, outcome: "too_complex", why: "nested too deeply to send back" });
    }
  });
}
