/**
 * Exits 0 when dist/ was built after every change to the sources, else says so in one line and
 * exits 1: `npm start` and `npm run demo` build only then, so a built checkout starts at once
 * (tsc alone takes 7 s or more). `prepare` too: npx installs the checkout anew for every new path and
 * runs it, and a rebuild rewrites dist/ under the commands already running from it.
 * Plain JavaScript, so the check costs a bare node start.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** What the build reads; tsc writes dist/cli/bin.js on every build, so its time is the build's. */
const SOURCES = ["src", "tsconfig.json", "tsconfig.build.json"];
const BUILT = "dist/cli/bin.js";

/** The latest modification under `path`; a directory's own time moves when an entry is added, removed or renamed. */
function latestChange(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, latestChange(join(path, name))), stat.mtimeMs);
}

function builtAt() {
  try {
    return statSync(join(ROOT, BUILT)).mtimeMs;
  } catch {
    return undefined;
  }
}

const built = builtAt();
if (built === undefined) {
  process.stderr.write("Building dist/ (not built yet)...\n");
  process.exit(1);
}
if (Math.max(...SOURCES.map((source) => latestChange(join(ROOT, source)))) > built) {
  process.stderr.write("Building dist/ (the sources changed since the last build)...\n");
  process.exit(1);
}
