import { Hono } from "hono";
import type { ContentCoding } from "../collectors/store.js";
import type { WebConfig } from "../config/web-config.js";
import { negotiateContentCoding } from "./content-coding.js";
import { landingPage, type LandingTarget } from "./landing.js";
import { protection } from "./protection.js";

/** The Prometheus text format 0.0.4, exactly as prom-client names it. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface ServerSources {
  readonly version: string;
  /** Read per request, so a reload swaps users and headers at once. */
  web(): WebConfig | undefined;
  /**
   * The whole exposition body in the given coding (gzip: each chunk is gzip members), as chunks
   * sent one after the other; a chunk still being rendered is a promise, awaited only once the
   * chunks before it are on their way. The server only serves it.
   */
  renderMetrics(coding: ContentCoding): readonly (Uint8Array | Promise<Uint8Array>)[];
  targets(): readonly LandingTarget[];
  isReady(): boolean;
}

export function createServerApp(sources: ServerSources): Hono {
  const app = new Hono();
  // Probe paths (UNAUTHENTICATED_PATHS) reveal nothing and must work for probes that carry no credentials.
  app.use(protection(sources.web));
  app.get("/metrics", async (c) => {
    const coding = negotiateContentCoding(c.req.header("Accept-Encoding"));
    const vary = { Vary: "Accept-Encoding" };
    if (coding === undefined) return c.text("not acceptable: this server sends gzip or identity\n", 406, vary);
    const chunks = sources.renderMetrics(coding);
    // Streaming the cached chunks as they are avoids copying a body of many megabytes per scrape.
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = chunks[next++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(await chunk);
      },
    });
    const headers: Record<string, string> = { "Content-Type": METRICS_CONTENT_TYPE, ...vary };
    if (coding === "gzip") headers["Content-Encoding"] = "gzip";
    return c.body(body, 200, headers);
  });
  app.get("/", (c) => c.html(landingPage(sources.version, sources.targets(), Date.now())));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", (c) => (sources.isReady() ? c.text("ready\n") : c.text("not ready: first polls still running\n", 503)));
  app.notFound((c) => c.text("not found\n", 404));
  return app;
}
