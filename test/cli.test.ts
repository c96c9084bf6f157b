import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli, startedUrl } from "./support/cli-process.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { until } from "./support/wait.js";

describe("command line", () => {
  it("prints help listing every flag and its environment variable", () => {
    const result = runCli(["--help"]);
    expect(result.status).toBe(0);
    for (const flag of ["--horizon.url", "--config.file", "--web.listen-address", "--poll.interval", "--pools.max", "--log.level", "--version"]) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain("[HORIZON_URL]");
  });

  it("prints the version", () => {
    const result = runCli(["--version"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^stellar-horizon-exporter \d+\.\d+\.\d+ \(node v20/);
  });

  it("exits 2 with one readable line per problem and no stack trace", () => {
    const result = runCli(["--horizon.url=nope", "--poll.interval=soon"]);
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
    const { child, output, exited } = spawnCli([`--horizon.url=t=${url}`, "--web.listen-address=127.0.0.1:0", "--log.level=info"]);
    const listening = await until("the start line", () => startedUrl(output()), { timeoutMs: 20_000 });
    // The first root poll publishes the series; the server listens before it ends.
    const metrics = await until(
      "stellar_horizon_up on /metrics",
      async () => {
        const text = await (await fetch(`${listening}/metrics`)).text();
        return text.includes('stellar_horizon_up{horizon="t"}') ? text : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(metrics).toContain('stellar_horizon_up{horizon="t"} 1');
    const signalledAt = Date.now();
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
  });
});
