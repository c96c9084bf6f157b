import { Hono } from "hono";
import type { WebConfig } from "../config/web-config.js";
import type { StatusReport } from "../status/model.js";
import { landingPage } from "./landing.js";
import { protection } from "./protection.js";

/** The Prometheus text format 0.0.4, exactly as prom-client names it. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface ServerSources {
  readonly version: string;
  /** Read per request, so a reload swaps users and headers at once. */
  web(): WebConfig | undefined;
  /** The whole exposition body, as chunks sent one after the other; the server only serves it. */
  renderMetrics(): Promise<readonly Uint8Array[]>;
  /** Every target's figures, as the store publishes them to /metrics, now. */
  status(): StatusReport;
  isReady(): boolean;
}

export function createServerApp(sources: ServerSources): Hono {
  const app = new Hono();
  // Probe paths (UNAUTHENTICATED_PATHS) reveal nothing and must work for probes that carry no credentials.
  app.use(protection(sources.web));
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
  app.get("/", (c) => c.html(landingPage(sources.status())));
  app.get("/status.json", (c) => c.json(sources.status()));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", (c) => (sources.isReady() ? c.text("ready\n") : c.text("not ready: first polls still running\n", 503)));
  app.notFound((c) => c.text("not found\n", 404));
  return app;
}
