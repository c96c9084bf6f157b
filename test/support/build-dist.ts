/**
 * Vitest's global setup: the tests that start the CLI run dist/cli/bin.js, which starts in half
 * the time tsx takes to transform the sources; it is built once here when a source changed since
 * the last build (`npm test` builds first, so this is one bare node start there).
 */
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export default function buildDist(): void {
  if (spawnSync(process.execPath, ["scripts/dist-is-current.mjs"], { cwd: ROOT }).status === 0) return;
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
}
