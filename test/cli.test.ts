import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHorizon } from "./support/fake-horizon.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TSX = createRequire(import.meta.url).resolve("tsx");
const MAIN = resolve(ROOT, "src/cli/main.ts");

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, ["--import", TSX, MAIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env },
    timeout: 30_000,
  });
}

describe("command line", () => {
  it("prints help listing every flag and its environment variable", () => {
    const result = cli(["--help"]);
    expect(result.status).toBe(0);
    for (const flag of ["--horizon.url", "--config.file", "--web.listen-address", "--poll.interval", "--pools.max", "--log.level", "--version"]) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain("[HORIZON_URL]");
  });

  it("prints the version", () => {
    const result = cli(["--version"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^stellar-horizon-exporter \d+\.\d+\.\d+ \(node v20/);
  });

  it("exits 2 with one readable line per problem and no stack trace", () => {
    const result = cli(["--horizon.url=nope", "--poll.interval=soon"]);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^stellar-horizon-exporter: --poll.interval: "soon" is neither/),
      expect.stringMatching(/^stellar-horizon-exporter: --horizon.url: "nope" is not an http/),
      "Run with --help for usage.",
    ]);
    expect(result.stderr).not.toMatch(/\bat .*:\d+:\d+/);
  });
});

describe("lifecycle", () => {
  const horizon = new FakeHorizon();
  let url: string;
  beforeAll(async () => {
    url = await horizon.start();
  });
  afterAll(() => horizon.stop());

  it.each(["SIGTERM", "SIGINT"] as const)("serves metrics, then exits 0 promptly on %s", async (signal) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, `--horizon.url=t=${url}`, "--web.listen-address=127.0.0.1:0", "--log.level=info"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const listening = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no start line in: ${output}`)), 20_000);
      child.stdout.on("data", () => {
        const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
        if (match) {
          clearTimeout(timer);
          done(match[1]!);
        }
      });
    });
    const metrics = await (await fetch(`${listening}/metrics`)).text();
    expect(metrics).toContain('stellar_horizon_up{horizon="t"}');
    const signalledAt = Date.now();
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
  });
});
