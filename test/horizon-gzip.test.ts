import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { listen, type Listening } from "../src/server/listen.js";
import { createSimulator } from "../src/simulator/index.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";

const POOLS = 450;

/** Each pools page's Accept-Encoding as asked and Content-Encoding as answered. */
const pages: { accepted: string; encoding: string }[] = [];
let horizon: Listening;
let exporter: RunningExporter;

beforeAll(async () => {
  // No ledger closes while the two targets poll, so both read the very same pools.
  const simulator = createSimulator({ pools: POOLS, ledgerIntervalMs: 3_600_000, seed: 11 });
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    if (c.req.path === "/liquidity_pools") {
      pages.push({
        accepted: c.req.header("Accept-Encoding") ?? "",
        encoding: c.res.headers.get("Content-Encoding") ?? "identity",
      });
    }
  });
  app.route("/", simulator.app);
  horizon = await listen(app, "127.0.0.1", 0);
  const dir = mkdtempSync(join(tmpdir(), "she-horizon-gzip-"));
  writeFileSync(
    join(dir, "config.yml"),
    `targets:\n  - { name: gzip, url: "${horizon.url}" }\n  - { name: plain, url: "${horizon.url}", headers: { Accept-Encoding: identity } }\nliquidity_pools: { max: 1000 }\n`,
  );
  exporter = await startExporter(await configFrom([`--config.file=${join(dir, "config.yml")}`, "--poll.interval=1h"]), {
    logger: pino({ level: "silent" }),
  });
  await exporter.firstPolls;
}, 60_000);

afterAll(async () => {
  await exporter?.close();
  await horizon?.close();
});

it("takes Horizon's gzip-compressed pages by default, plain ones when the target asks for identity, and reads both alike", async () => {
  const gzipped = pages.filter((page) => page.encoding === "gzip");
  const plain = pages.filter((page) => page.encoding === "identity");
  // Three pages of 200 per target.
  expect(gzipped).toHaveLength(3);
  expect(plain).toHaveLength(3);
  for (const page of gzipped) expect(page.accepted).toMatch(/\bgzip\b/);
  for (const page of plain) expect(page.accepted).toBe("identity");
  const series = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
  expect(valueOf(series, "stellar_horizon_liquidity_pools", { horizon: "gzip" })).toBe(POOLS);
  expect(valueOf(series, "stellar_horizon_liquidity_pools", { horizon: "plain" })).toBe(POOLS);
  const poolLines = (target: string) =>
    [...series]
      .filter(([key]) => key.startsWith("stellar_horizon_liquidity_pool_") && key.includes(`horizon="${target}"`))
      .map(([key, value]) => [key.replace(`horizon="${target}"`, ""), value]);
  expect(poolLines("gzip").length).toBeGreaterThan(POOLS);
  expect(poolLines("gzip")).toEqual(poolLines("plain"));
});
