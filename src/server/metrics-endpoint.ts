import type { IncomingMessage, ServerResponse } from "node:http";
import type { ContentCoding } from "../exposition/store.js";
import { negotiateContentCoding } from "./content-coding.js";
import type { Protection } from "./protection.js";

/** The Prometheus text format 0.0.4, exactly as prom-client names it. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export const METRICS_PATH = "/metrics";

/**
 * The whole exposition body in the given coding (gzip: each buffer is whole gzip members), as
 * buffers sent one after the other.
 */
export type RenderMetrics = (coding: ContentCoding) => Promise<readonly Uint8Array[]>;

/** Takes a request off Node's server before Hono sees it; false leaves it to Hono. */
export type DirectHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** What /metrics answers an admitted request: the body as buffers sent one after the other. */
export interface MetricsAnswer {
  readonly status: 200 | 406 | 500;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: readonly Uint8Array[];
}

const PLAIN_TEXT = "text/plain; charset=UTF-8";

/** The answer to a request for /metrics with this Accept-Encoding, under the security headers. */
export async function metricsAnswer(
  acceptEncoding: string | undefined,
  render: RenderMetrics,
  securityHeaders: Readonly<Record<string, string>>,
): Promise<MetricsAnswer> {
  const coding = negotiateContentCoding(acceptEncoding);
  const headers = { ...securityHeaders, Vary: "Accept-Encoding" };
  if (coding === undefined) {
    return {
      status: 406,
      headers: { ...headers, "Content-Type": PLAIN_TEXT },
      body: [Buffer.from("not acceptable: this server sends gzip or identity\n")],
    };
  }
  let body: readonly Uint8Array[];
  try {
    body = await render(coding);
  } catch {
    // What went wrong stays out of the answer: an error's text may quote a target's URL.
    return {
      status: 500,
      headers: { ...headers, "Content-Type": PLAIN_TEXT },
      body: [Buffer.from("the exposition could not be rendered\n")],
    };
  }
  let length = 0;
  for (const chunk of body) length += chunk.byteLength;
  const content = {
    "Content-Type": METRICS_CONTENT_TYPE,
    "Content-Length": String(length),
    ...(coding === "gzip" ? { "Content-Encoding": "gzip" } : {}),
  };
  return { status: 200, headers: { ...headers, ...content }, body };
}

/**
 * Writes an answer to a GET on Node's response: the body's buffers as they are, corked so they
 * leave in one writev. The buffers are the store's own, not copies, so a slow client holds only
 * references while its socket drains, and Node drops them when a client leaves, before or while
 * they are sent.
 */
export function writeAnswer(response: ServerResponse, { status, headers, body }: MetricsAnswer): void {
  response.writeHead(status, headers);
  response.cork();
  for (const chunk of body) response.write(chunk);
  response.uncork();
  response.end();
}

/**
 * /metrics served straight from Node's request, without Hono's request and response objects,
 * which were most of what a scrape of held members cost (docs/performance.md). Only GETs the
 * gate admits without bcrypt are taken; everything else (credentials not yet verified, HEAD,
 * another spelling of the path) goes through Hono, whose /metrics route makes the same answer.
 */
export function directMetrics(render: RenderMetrics, protection: () => Protection): DirectHandler {
  return (request, response) => {
    if (request.url !== METRICS_PATH || request.method !== "GET") return false;
    const { headers, gate } = protection();
    if (!gate.admitsAtOnce(METRICS_PATH, request.headers.authorization)) return false;
    // Only a header Node refuses could throw here; the connection is closed rather than left hanging.
    metricsAnswer(request.headers["accept-encoding"], render, headers)
      .then((answer) => writeAnswer(response, answer))
      .catch(() => response.destroy());
    return true;
  };
}
