import { Hono } from "hono";
import type { WebConfig } from "../config/web-config.js";
import { landingPage, type LandingTarget } from "./landing.js";
import { basicAuth, securityHeaders } from "./protection.js";

/** The Prometheus text format 0.0.4, exactly as prom-client names it. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface ServerSources {
  readonly version: string;
  readonly web?: WebConfig;
  /** The whole exposition body, as chunks sent one after the other; the server only serves it. */
  renderMetrics(): Promise<readonly Uint8Array[]>;
  targets(): readonly LandingTarget[];
  isReady(): boolean;
}

export function createServerApp(sources: ServerSources): Hono {
  const app = new Hono();
  app.use(securityHeaders(sources.web));
  const users = sources.web?.basicAuthUsers ?? {};
  if (Object.keys(users).length > 0) app.use(basicAuth(users));
  app.get("/metrics", async (c) => {
    const chunks = await sources.renderMetrics();
    // Streaming the cached chunks as they are avoids copying a body of many megabytes per scrape.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const length = chunks.reduce((total, chunk) => total + chunk.byteLength, 0);
    return c.body(body, 200, { "Content-Type": METRICS_CONTENT_TYPE, "Content-Length": String(length) });
  });
  app.get("/", (c) => c.html(landingPage(sources.version, sources.targets(), Date.now())));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", (c) => (sources.isReady() ? c.text("ready\n") : c.text("not ready: first polls still running\n", 503)));
  app.notFound((c) => c.text("not found\n", 404));
  return app;
}
