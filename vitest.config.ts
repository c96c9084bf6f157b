import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The image's tests need a container engine: `npm run test:container` (vitest.container.config.ts).
    exclude: [...configDefaults.exclude, "test/container/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
