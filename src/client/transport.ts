import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from "node:zlib";
import { VERSION } from "../version.js";
import { PollError } from "./errors.js";

// The fetch ofetch sends with: node:http reads a body whole, capped, inflated in one step, where Node's fetch costs
// more CPU through web streams (docs/performance.md). Kept from fetch: redirects, decoding, keep-alive, abort signals.

/** fetch's options, and the most bytes a body may have, decoded. */
type TransportInit = Pick<RequestInit, "method" | "headers" | "body" | "signal"> & { readonly maxBodyBytes: number };

/** Free sockets are closed sooner than servers commonly close idle ones (5 s and up), as undici does. */
const IDLE_SOCKET_MS = 4_000;
const AGENTS = {
  "http:": new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
} as const;
const MAX_REDIRECTS = 20;
/** What a request says about itself; every other header may be an operator's credential. */
const KEPT_ACROSS_ORIGINS = new Set(["accept", "accept-encoding", "user-agent", "content-type"]);
const USER_AGENT = `stellar-horizon-exporter/${VERSION}`;

/** What one exchange sends; a redirect may change all three for the next. */
type Sent = { method: string; headers: Record<string, string>; body: string | undefined };

export async function transportFetch(input: string | URL, init: TransportInit): Promise<Response> {
  let url = new URL(String(input));
  let method = (init.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br", "user-agent": USER_AGENT };
  for (const [name, value] of new Headers(init.headers)) headers[name] = value;
  let body = typeof init.body === "string" ? init.body : undefined;
  for (let redirects = 0; ; redirects += 1) {
    const { message, bytes } = await exchange(url, { method, headers, body }, init);
    const location = message.headers.location;
    if (![301, 302, 303, 307, 308].includes(message.statusCode!) || location === undefined)
      return responseOf(message, bytes, init.maxBodyBytes, method);
    if (redirects >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(location, url);
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new TypeError(`redirected to a ${next.protocol} URL`);
    // Credentials stay with their origin: an API key may be in any configured header, so another origin gets none.
    // Node would send a Location's userinfo as Basic auth: the server does not choose our credentials.
    if (next.origin !== url.origin) {
      for (const name of Object.keys(headers)) if (!KEPT_ACROSS_ORIGINS.has(name)) delete headers[name];
    }
    next.username = "";
    next.password = "";
    if (message.statusCode === 303 ? method !== "HEAD" : message.statusCode! <= 302 && method === "POST") {
      method = "GET";
      body = undefined;
      delete headers["content-type"];
    }
    url = next;
  }
}

function exchange(url: URL, { method, headers, body }: Sent, { maxBodyBytes, signal }: TransportInit) {
  return new Promise<{ message: IncomingMessage; bytes: Buffer }>((resolve, reject) => {
    const https = url.protocol === "https:";
    const options = { method, headers, agent: AGENTS[https ? "https:" : "http:"], ...(signal ? { signal } : {}) };
    const request = (https ? httpsRequest : httpRequest)(url, options, (message) => {
      const fail = (error: Error) => {
        request.destroy();
        reject(error);
      };
      const length = message.headers["content-length"];
      if (Number(length) > maxBodyBytes)
        return fail(new PollError("body_too_large", `body of ${length} bytes exceeds the ${maxBodyBytes}-byte cap`));
      const chunks: Buffer[] = [];
      let total = 0;
      message.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxBodyBytes) fail(new PollError("body_too_large", `body exceeds the ${maxBodyBytes}-byte cap`));
        else chunks.push(chunk);
      });
      message.on("error", reject);
      message.on("close", () => {
        if (message.complete)
          resolve({ message, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) });
        else reject(new Error("the connection closed before the body ended"));
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}

function responseOf(message: IncomingMessage, bytes: Buffer, maxBodyBytes: number, method: string): Response {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  const status = message.statusCode!;
  // Node's Response takes 200 to 599 only; Node's HTTP parser reads any three digits.
  if (status < 200 || status > 599) throw new TypeError(`answered with status ${status}, which HTTP does not define`);
  const response = new Response(null, { status, headers });
  const bodiless = [204, 205, 304].includes(status) || method === "HEAD";
  BODIES.set(response, bodiless ? "" : decoded(bytes, message.headers["content-encoding"], maxBodyBytes).toString());
  return response;
}

/** Each response's decoded text, beside it (a Response body costs a copy, a stream and a decoding: performance.md). */
const BODIES = new WeakMap<Response, string>();

/** The decoded text of a response this transport made ("" for a status or method without a body). */
export function textOf(response: Response): string {
  const text = BODIES.get(response);
  // Only if a new ofetch handed back another Response than its fetch's: said at once, never a silent empty body.
  if (text === undefined) throw new Error("the response is not one the node:http transport made");
  return text;
}

const DECODERS: Readonly<Record<string, (bytes: Buffer, options: ZlibOptions) => Buffer>> = {
  gzip: gunzipSync,
  "x-gzip": gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

// The body's codings undone, last first, within the cap; an unknown coding is passed on, as fetch does. On the event
// loop: a page inflates in well under a millisecond, half what thread-pool round trips cost.
function decoded(bytes: Buffer, contentEncoding: string | undefined, maxBodyBytes: number): Buffer {
  let body = bytes;
  for (const listed of contentEncoding?.toLowerCase().split(",").reverse() ?? []) {
    const coding = listed.trim();
    const decode = DECODERS[coding];
    if (decode === undefined) continue;
    // A gzip member ends with its decoded size (mod 2^32): one buffer of that size takes it whole, and one byte more
    // spares a second, empty step after a buffer filled exactly.
    const hint = decode === gunzipSync && body.length >= 18 ? body.readUInt32LE(body.length - 4) : undefined;
    const chunkSize = hint === undefined ? undefined : Math.min(maxBodyBytes + 1, Math.max(hint + 1, 1024));
    try {
      body = decode(body, { maxOutputLength: maxBodyBytes, chunkSize });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
        throw new PollError("body_too_large", `body exceeds the ${maxBodyBytes}-byte cap once decoded (${coding})`);
      }
      throw new Error(`body is not the ${coding} its Content-Encoding says: ${(error as Error).message}`);
    }
  }
  return body;
}
