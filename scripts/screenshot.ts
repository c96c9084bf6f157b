/**
 * Regenerates docs/landing-page.png, the README's screenshot of the landing page: the demo's
 * setup through 30 simulated minutes (a fee spike, an ingestion lag, then a drained hot wallet), photographed by
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
  ],
});
try {
  await chromium(["--window-size=1200,1080", `--screenshot=${OUTPUT}`, `${demo.exporter.url}/`]);
  process.stdout.write(`wrote ${OUTPUT}\n`);
} finally {
  await demo.close();
}
