import { resolve } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm test`, the fast lane: every test that needs neither a real Prometheus, a container engine,
 * Chromium nor a long fuzz. Those run in `npm run test:slow` (vitest.slow.config.ts) and
 * `npm run test:container` (vitest.container.config.ts).
 */
export const SLOW_TESTS = ["test/e2e/**/*.test.ts", "test/browser/**/*.test.ts", "test/hostile-fuzz.test.ts"];

// Node keeps the code it compiled for every CLI, npm and worker process the tests start: each
// start compiles the same modules, and most of the lane's CPU goes to such starts.
process.env.NODE_COMPILE_CACHE ??= resolve(import.meta.dirname, "node_modules/.cache/node-compile-cache");

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, "test/container/**", ...SLOW_TESTS],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most files wait on servers and child processes rather than compute, so three run at once on
    // two cores (vitest's default there is one). A worker runs file after file in the same
    // process, which spares a process start and the shared imports per file; every file starts
    // its own servers and restores what it patches, and test/support/file-setup.ts empties what
    // the modules hold for the whole process.
    maxWorkers: 3,
    isolate: false,
    globalSetup: ["test/support/build-dist.ts"],
    setupFiles: ["test/support/file-setup.ts"],
  },
});
