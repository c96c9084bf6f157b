/**
 * Regenerates docs/landing-page.png, the README's screenshot of the landing page: the demo's
 * setup (its wallets watched through its Horizon and its Stellar RPC) through 30 simulated minutes (a fee spike, an ingestion lag, a drained hot wallet, then a contract
 * entry left minutes to live), photographed by
 * headless Chromium. Run with `npm run screenshot`.
 */
import { fileURLToPath } from "node:url";
import { chromium, startLandingDemo } from "./landing-demo.js";

const OUTPUT = fileURLToPath(new URL("../docs/landing-page.png", import.meta.url));

const demo = await startLandingDemo({
  minutes: 30,
  pollInterval: "10s",
  scenarios: [
    [8, "fee_spike"],
    [14, "healthy"],
    [18, "ingest_lag"],
    [24, "healthy"],
    [27, "account_drain"],
    // Leaves the counter's storage entry about four minutes of ledgers: "expiring" by the end.
    [28, "contract_expiring"],
  ],
});
try {
  await chromium(["--window-size=1200,1950", `--screenshot=${OUTPUT}`, `${demo.exporter.url}/`]);
  process.stdout.write(`wrote ${OUTPUT}\n`);
} finally {
  await demo.close();
}
