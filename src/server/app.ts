import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import type { WebConfig } from "../config/web-config.js";
import type { ContentCoding } from "../exposition/store.js";
import type { StatusReport } from "../status/model.js";
import { negotiateContentCoding } from "./content-coding.js";
import { landingPage } from "./landing.js";
import { currentProtection, protection } from "./protection.js";

/** The Prometheus text format 0.0.4, exactly as prom-client names it. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface ServerSources {
  readonly version: string;
  /** Read per request, so a reload swaps users and headers at once. */
  web(): WebConfig | undefined;
  /** The whole exposition in the given coding (gzip: whole gzip members), as parts sent one after another. */
  renderMetrics(coding: ContentCoding): Promise<readonly Uint8Array[]>;
  /** Every target's figures, as the store publishes them to /metrics, now. */
  status(): StatusReport;
  isReady(): boolean;
}

export function createServerApp(sources: ServerSources) {
  const app = new Hono<{ Bindings: HttpBindings }>();
  // Probe paths (UNAUTHENTICATED_PATHS) reveal nothing and must work for probes that carry no credentials.
  app.use(protection(currentProtection(sources.web)));
  app.get("/metrics", async (c) => {
    c.header("Vary", "Accept-Encoding");
    const coding = negotiateContentCoding(c.req.header("Accept-Encoding"));
    if (coding === undefined) return c.text("not acceptable: this server sends gzip or identity\n", 406);
    let parts: readonly Uint8Array[];
    try {
      parts = await sources.renderMetrics(coding);
    } catch {
      // What went wrong stays out of the answer: an error's text may quote a target's URL.
      return c.text("the exposition could not be rendered\n", 500);
    }
    if (coding === "gzip") c.header("Content-Encoding", "gzip");
    const length = parts.reduce((total, part) => total + part.byteLength, 0);
    const head = { "Content-Type": METRICS_CONTENT_TYPE, "Content-Length": String(length) };
    // Hono answers HEAD with the headers of the GET handler's Response, so that one has no body.
    if (c.req.method === "HEAD") return c.body(null, 200, head);
    const outgoing = c.env?.outgoing;
    // Outside a Node server (Hono's app.request in tests) the parts are joined into one body.
    if (outgoing === undefined) return c.body(Buffer.concat(parts), 200, head);
    // Written to Node's response as they are: a web stream or a joined copy of megabytes costs more than the write.
    outgoing.writeHead(200, Object.fromEntries(c.body(null, 200, head).headers));
    for (const part of parts) if (part.byteLength > 0) outgoing.write(part);
    outgoing.end();
    return RESPONSE_ALREADY_SENT;
  });
  app.get("/", (c) => c.html(landingPage(sources.status())));
  app.get("/status.json", (c) => c.json(sources.status()));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", (c) =>
    sources.isReady() ? c.text("ready\n") : c.text("not ready: first polls still running\n", 503),
  );
  app.notFound((c) => c.text("not found\n", 404));
  return app;
}
