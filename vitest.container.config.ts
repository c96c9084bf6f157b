import { defineConfig } from "vitest/config";

/** `npm run test:container` (scripts/container/test.sh): the image's tests, on the engine that script starts. */
export default defineConfig({
  test: {
    include: ["test/container/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
