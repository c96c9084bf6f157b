import type { ServerResponse } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import type { ContentCoding } from "../exposition/store.js";
import type { WebConfig } from "../config/web-config.js";
import type { StatusReport } from "../status/model.js";
import { negotiateContentCoding } from "./content-coding.js";
import { landingPage } from "./landing.js";
import { protection } from "./protection.js";

/** The Prometheus text format 0.0.4, exactly as prom-client names it. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface ServerSources {
  readonly version: string;
  /** Read per request, so a reload swaps users and headers at once. */
  web(): WebConfig | undefined;
  /**
   * The whole exposition body in the given coding (gzip: each buffer is whole gzip members), as
   * buffers sent one after the other. The server only serves it.
   */
  renderMetrics(coding: ContentCoding): Promise<readonly Uint8Array[]>;
  /** Every target's figures, as the store publishes them to /metrics, now. */
  status(): StatusReport;
  isReady(): boolean;
}

/**
 * Writes the body's buffers to Node's response as they are, corked so they leave in one writev,
 * under the status and headers Hono composed (the middleware's included). Going through a web
 * ReadableStream instead costs a promise and often a syscall per buffer. The buffers are the
 * store's own, not copies, so a slow client holds only references while its socket drains, and
 * Node drops them when a client leaves, before or while they are sent.
 */
function writeBody(outgoing: ServerResponse, head: Response, body: readonly Uint8Array[]): void {
  outgoing.writeHead(head.status, Object.fromEntries(head.headers));
  outgoing.cork();
  for (const chunk of body) outgoing.write(chunk);
  outgoing.uncork();
  outgoing.end();
}

/** Serves the app through @hono/node-server (see listen), whose bindings hold Node's response. */
export function createServerApp(sources: ServerSources): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  // Probe paths (UNAUTHENTICATED_PATHS) reveal nothing and must work for probes that carry no credentials.
  app.use(protection(sources.web));
  app.get("/metrics", async (c) => {
    const coding = negotiateContentCoding(c.req.header("Accept-Encoding"));
    const vary = { Vary: "Accept-Encoding" };
    if (coding === undefined) return c.text("not acceptable: this server sends gzip or identity\n", 406, vary);
    const body = await sources.renderMetrics(coding);
    let length = 0;
    for (const chunk of body) length += chunk.byteLength;
    const headers: Record<string, string> = { "Content-Type": METRICS_CONTENT_TYPE, "Content-Length": String(length), ...vary };
    if (coding === "gzip") headers["Content-Encoding"] = "gzip";
    const head = c.body(null, 200, headers);
    // Hono answers HEAD with the Response of GET stripped of its body, so HEAD needs that Response.
    if (c.req.method === "HEAD") return head;
    writeBody(c.env.outgoing, head, body);
    return RESPONSE_ALREADY_SENT;
  });
  app.get("/", (c) => c.html(landingPage(sources.status())));
  app.get("/status.json", (c) => c.json(sources.status()));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", (c) => (sources.isReady() ? c.text("ready\n") : c.text("not ready: first polls still running\n", 503)));
  app.notFound((c) => c.text("not found\n", 404));
  return app;
}
