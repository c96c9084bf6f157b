import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { unsupportedNodeMessage } from "../src/cli/node-version.js";

describe("the supported Node.js range", () => {
  it("refuses anything older than 22.12 in one line, and accepts 22.12 and later", () => {
    expect(unsupportedNodeMessage("20.20.2")).toBe("node 20.20.2 is not supported: use Node.js 22.12 or newer");
    expect(unsupportedNodeMessage("22.11.0")).toBe("node 22.11.0 is not supported: use Node.js 22.12 or newer");
    expect(unsupportedNodeMessage("18.0.0")).toMatch(/^node 18\.0\.0 is not supported/);
    for (const version of ["22.12.0", "22.15.1", "24.0.0", "24.21.0", "26.10.0", "30.0.0"]) {
      expect(unsupportedNodeMessage(version)).toBeUndefined();
    }
  });

  it("agrees with package.json's engines", async () => {
    const { default: pkg } = await import("../package.json", { with: { type: "json" } });
    expect(pkg.engines.node).toBe(">=22.12");
  });

  // The machine's own Node.js, where it is older than the one running the tests (Node 20 here, CI's Node 24 first on PATH).
  const systemNode = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => {
    if (!existsSync(path)) return false;
    const version = spawnSync(path, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
    return unsupportedNodeMessage(version) !== undefined;
  });
  it.runIf(systemNode !== undefined)("the built command exits 2 with that one line on an older Node.js", () => {
    const version = spawnSync(systemNode!, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
    const run = spawnSync(systemNode!, [resolve("dist/cli/bin.js"), "--version"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`node ${version} is not supported: use Node.js 22.12 or newer\n`);
  });
});
