import { defineConfig } from "vitest/config";
import { SLOW_TESTS } from "./vitest.config.js";

/**
 * `npm run test:slow`: the suites against a real Prometheus (test/e2e), the landing page in
 * headless Chromium, and the hostile fuzz at its CI length (FUZZ_SECONDS). One file at a time:
 * each starts exporters and servers of its own and measures what they answer.
 */
export default defineConfig({
  test: {
    include: SLOW_TESTS,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/support/build-dist.ts"],
    fileParallelism: false,
  },
});
