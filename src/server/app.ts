import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import type { WebConfig } from "../config/web-config.js";
import type { StatusReport } from "../status/model.js";
import { landingPage } from "./landing.js";
import {
  directMetrics,
  metricsAnswer,
  METRICS_PATH,
  writeAnswer,
  type DirectHandler,
  type RenderMetrics,
} from "./metrics-endpoint.js";
import { currentProtection, protection } from "./protection.js";

export interface ServerSources {
  readonly version: string;
  /** Read per request, so a reload swaps users and headers at once. */
  web(): WebConfig | undefined;
  /** The exposition; the server only serves it. */
  renderMetrics: RenderMetrics;
  /** Every target's figures, as the store publishes them to /metrics, now. */
  status(): StatusReport;
  isReady(): boolean;
}

type ServerHono = Hono<{ Bindings: HttpBindings }>;

/** The app `listen` serves: Hono's, with /metrics taken off Node's server first when it can be. */
export interface ServerApp extends Pick<ServerHono, "fetch" | "request"> {
  readonly direct: DirectHandler;
}

/** Serves the app through @hono/node-server (see listen), whose bindings hold Node's request and response. */
export function createServerApp(sources: ServerSources): ServerApp {
  const app: ServerHono = new Hono();
  const current = currentProtection(sources.web);
  // Probe paths (UNAUTHENTICATED_PATHS) reveal nothing and must work for probes that carry no credentials.
  app.use(protection(current));
  app.get(METRICS_PATH, async (c) => {
    const answer = await metricsAnswer(c.req.header("Accept-Encoding"), sources.renderMetrics, current().headers);
    // Hono answers HEAD with the Response of GET stripped of its body, so HEAD needs that Response.
    if (c.req.method === "HEAD") return c.body(null, answer.status, answer.headers);
    writeAnswer(c.env.outgoing, answer);
    return RESPONSE_ALREADY_SENT;
  });
  app.get("/", (c) => c.html(landingPage(sources.status())));
  app.get("/status.json", (c) => c.json(sources.status()));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", (c) =>
    sources.isReady() ? c.text("ready\n") : c.text("not ready: first polls still running\n", 503),
  );
  app.notFound((c) => c.text("not found\n", 404));
  return { fetch: app.fetch, request: app.request, direct: directMetrics(sources.renderMetrics, current) };
}
