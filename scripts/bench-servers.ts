/**
 * The benchmark's helper processes, kept out of the measured exporter's process:
 *   upstream --pools N --ledger-interval MS   the simulator, counting requests and bytes per path
 *   ceiling --bytes N                          a bare Hono route serving a static body of N bytes
 * Each prints one JSON line with its URL once listening, and runs until killed.
 */
import { parseArgs } from "node:util";
import { Hono } from "hono";
import { METRICS_CONTENT_TYPE } from "../src/server/app.js";
import { listen } from "../src/server/listen.js";
import { createSimulator } from "../src/simulator/index.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { pools: { type: "string", default: "50" }, "ledger-interval": { type: "string", default: "1000" }, bytes: { type: "string", default: "0" } },
});

function upstream(): Hono {
  const simulator = createSimulator({ pools: Number(values.pools), ledgerIntervalMs: Number(values["ledger-interval"]), seed: 42 });
  const requests: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  const app = new Hono();
  app.get("/_bench/counts", (c) => c.json({ requests, bytes }));
  app.use(async (c, next) => {
    await next();
    const path = c.req.path.startsWith("/liquidity_pools") ? "/liquidity_pools" : c.req.path;
    requests[path] = (requests[path] ?? 0) + 1;
    bytes[path] = (bytes[path] ?? 0) + (await c.res.clone().arrayBuffer()).byteLength;
  });
  app.route("/", simulator.app);
  return app;
}

/** A body of exposition-like lines, so compression-free transfer costs match the real one. */
function ceiling(): Hono {
  const size = Number(values.bytes);
  const line = 'stellar_horizon_liquidity_pool_reserve{horizon="bench",pool_id="0000",asset="native"} 1234.5678\n';
  const body = line.repeat(Math.ceil(size / line.length)).slice(0, size);
  return new Hono().get("/metrics", (c) => c.body(body, 200, { "Content-Type": METRICS_CONTENT_TYPE }));
}

const app = positionals[0] === "ceiling" ? ceiling() : upstream();
const server = await listen(app, "127.0.0.1", 0);
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
