/**
 * The benchmark's helper processes, kept out of the measured exporter's process:
 *   upstream --pools N --ledger-interval MS   the simulator, counting requests and bytes per path,
 *                                             noting when each pool page was asked for, and keeping
 *                                             the last poll's pool pages (/_bench/bodies)
 *   ceiling --plain FILE --gzip FILE          a bare node:http server answering /metrics with the
 *                                             bytes of FILE, or the pre-compressed ones when the
 *                                             request accepts gzip
 * Each prints one JSON line with its URL once listening, and runs until killed.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Hono } from "hono";
import { METRICS_CONTENT_TYPE } from "../src/server/app.js";
import { negotiateContentCoding } from "../src/server/content-coding.js";
import { listen } from "../src/server/listen.js";
import { PAGE_LIMIT } from "../src/client/paging.js";
import { createSimulator } from "../src/simulator/index.js";
import { LastBodies } from "./bench-floor.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    pools: { type: "string", default: "50" },
    "ledger-interval": { type: "string", default: "1000" },
    plain: { type: "string" },
    gzip: { type: "string" },
  },
});

async function upstream(): Promise<string> {
  const simulator = createSimulator({
    pools: Number(values.pools),
    ledgerIntervalMs: Number(values["ledger-interval"]),
    seed: 42,
  });
  const requests: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  const poolPageStartsMs: number[] = [];
  const poolPages = new LastBodies(Math.ceil(Number(values.pools) / PAGE_LIMIT));
  const app = new Hono();
  app.get("/_bench/counts", (c) => c.json({ requests, bytes, poolPageStartsMs }));
  app.get("/_bench/bodies", (c) => c.json(poolPages.list()));
  app.use(async (c, next) => {
    const pools = c.req.path.startsWith("/liquidity_pools");
    if (pools) poolPageStartsMs.push(Date.now());
    await next();
    const path = pools ? "/liquidity_pools" : c.req.path;
    requests[path] = (requests[path] ?? 0) + 1;
    bytes[path] = (bytes[path] ?? 0) + (await c.res.clone().arrayBuffer()).byteLength;
    if (pools) await poolPages.note(c.res);
  });
  app.route("/", simulator.app);
  return (await listen(app, "127.0.0.1", 0)).url;
}

/** The least a server can do per scrape: hand bytes it already holds to the socket in one write. */
async function ceiling(): Promise<string> {
  const plain = readFileSync(values.plain!);
  const gzip = readFileSync(values.gzip!);
  const server = createServer((request, response) => {
    const compressed = negotiateContentCoding(request.headers["accept-encoding"]) === "gzip";
    const body = compressed ? gzip : plain;
    response.writeHead(200, {
      "Content-Type": METRICS_CONTENT_TYPE,
      "Content-Length": body.length,
      Vary: "Accept-Encoding",
      ...(compressed ? { "Content-Encoding": "gzip" } : {}),
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const url = positionals[0] === "ceiling" ? await ceiling() : await upstream();
process.stdout.write(`${JSON.stringify({ url })}\n`);
