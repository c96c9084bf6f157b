import { Worker } from "node:worker_threads";
import { excerpt, PollError } from "./errors.js";
import type { JsonWorkerData, ParseReply, ParseRequest } from "./json-worker.js";

// Bodies as JSON without stalling the event loop: a hostile page of tiny records near the body cap would hold
// /metrics for seconds (docs/performance.md). Larger bodies go to a worker, which sends back only cheap clones.

/** The longest body parsed on the event loop, in UTF-16 code units (at most its bytes). */
export const MAIN_THREAD_MAX_CHARS = 1024 * 1024;
/** The most JSON values an answer parsed by the worker may hold and still be sent back. */
export const MAX_VALUES = 100_000;

/** The parsed JSON of a body; one that is not JSON is `invalid_json`, one with too many values `schema`. */
export async function parseJson(text: string): Promise<unknown> {
  if (text.length <= MAIN_THREAD_MAX_CHARS) {
    try {
      return JSON.parse(text);
    } catch {
      throw notJson(text);
    }
  }
  // The worker starts on first use: an exporter that never sees a large body never starts it.
  const reply = await (thread ??= new JsonThread()).parse(text);
  if (reply.outcome === "parsed") return reply.value;
  if (reply.outcome === "invalid_json") throw notJson(text);
  throw new PollError("schema", `answer too complex: ${reply.why}`);
}

function notJson(text: string): PollError {
  return new PollError("invalid_json", `body is not JSON: ${excerpt(text)}`);
}

/** The worker and the requests it has not answered; a worker that dies fails them and is replaced. */
class JsonThread {
  readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(reply: ParseReply): void; reject(error: PollError): void }>();
  private nextId = 0;

  constructor() {
    // Compiled, this module sits beside json-worker.js; as TypeScript source (tests), beside json-worker.ts.
    const extension = import.meta.url.endsWith(".ts") ? "ts" : "js";
    const workerData: JsonWorkerData = { jsonWorker: true, maxValues: MAX_VALUES };
    // None of the process's flags: a loader or an input type meant for the main script would refuse this file.
    this.worker = new Worker(new URL(`./json-worker.${extension}`, import.meta.url), { workerData, execArgv: [] });
    this.worker.on("message", (reply: ParseReply) => {
      this.pending.get(reply.id)?.resolve(reply);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
    });
    this.worker.on("error", (error: NodeJS.ErrnoException) => this.fail(error.code ?? error.name));
    this.worker.on("exit", () => this.fail("exited"));
    // An idle parser never keeps the process alive, in a test or at shutdown (a listener refs it: unref after).
    this.worker.unref();
  }

  parse(text: string): Promise<ParseReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, text } satisfies ParseRequest);
    });
  }

  /** Fails what is pending with a message free of the body (it may echo a secret), and lets a new worker start. */
  private fail(why: string): void {
    if (thread === this) thread = undefined;
    for (const { reject } of this.pending.values()) {
      reject(new PollError("internal", `the JSON parsing thread stopped (${why})`));
    }
    this.pending.clear();
  }
}

let thread: JsonThread | undefined;

/** Stops the worker if one runs (tests); the next large body starts another. */
export async function stopJsonThread(): Promise<void> {
  const running = thread;
  thread = undefined;
  await running?.worker.terminate();
}
