import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm test`, the fast lane: every test that needs neither a real Prometheus, a container engine,
 * Chromium nor a long fuzz. Those run in `npm run test:slow` (vitest.slow.config.ts) and
 * `npm run test:container` (vitest.container.config.ts).
 */
export const SLOW_TESTS = ["test/e2e/**/*.test.ts", "test/browser/**/*.test.ts", "test/hostile-fuzz.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, "test/container/**", ...SLOW_TESTS],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    globalSetup: ["test/support/build-dist.ts"],
  },
});
