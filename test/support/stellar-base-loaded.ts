/**
 * Run with tsx in a fresh process: starts an exporter with the given flags against a FakeHorizon,
 * polls and scrapes it once, and prints how many series it served and whether the Stellar SDK's
 * base library was loaded on the way.
 */
import { createRequire } from "node:module";
import { configFrom, startHarness, stopStarted } from "./exporter-harness.js";
import { FakeHorizon } from "./fake-horizon.js";

const horizon = new FakeHorizon();
horizon.addLedgers(3);
const url = await horizon.start();
const harness = await startHarness(
  await configFrom([`--horizon.url=t=${url}`, "--poll.interval=1h", ...process.argv.slice(2)]),
);
await harness.exporter.pollAll();
const series = (await harness.scrape()).size;
await stopStarted(harness.exporter, horizon);
const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) =>
  path.includes("/@stellar/stellar-base/"),
);
process.stdout.write(JSON.stringify({ series, loaded }));
