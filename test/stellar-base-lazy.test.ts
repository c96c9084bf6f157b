import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TSX = createRequire(import.meta.url).resolve("tsx");
const ACCOUNT = "GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7";

/** A fresh process running an exporter with these flags (test/support/stellar-base-loaded.ts). */
const runFresh = (flags: string[]) =>
  spawnSync(process.execPath, ["--import", TSX, "test/support/stellar-base-loaded.ts", ...flags], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });

/** What a fresh exporter process with these flags served, and whether it loaded the Stellar SDK. */
function freshExporter(flags: string[]): { series: number; loaded: boolean } {
  const run = runFresh(flags);
  if (run.status !== 0) throw new Error(`exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as { series: number; loaded: boolean };
}

describe("the Stellar SDK's base library", () => {
  it("is not loaded by an exporter that watches no account and runs no probe", () => {
    const { series, loaded } = freshExporter([]);
    expect(series).toBeGreaterThan(20);
    expect(loaded).toBe(false);
  });

  it("is loaded once an account is watched, and the account's id is checked with it", () => {
    const watching = freshExporter([`--account=hot=${ACCOUNT}`]);
    expect(watching.loaded).toBe(true);
    const refused = runFresh([`--account=hot=${ACCOUNT.slice(0, -1)}A`]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("is not a Stellar account id");
  });
});
