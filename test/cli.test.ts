import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRejection } from "../src/cli/usage.js";
import { treatAsSecret } from "../src/config/secret.js";
import { VERSION } from "../src/version.js";
import { expectExit, runCli, spawnCli, startedUrl } from "./support/cli-process.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { until } from "./support/wait.js";

/** A provider URL with a password, an API key as its path and another as a query value. */
const URL_WITH_KEYS =
  "https://user:hunter2-Password@rpc.example.com/a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6?apikey=QK9f8e7d6c5b4a3";
const URL_SHOWN = '"https://rpc.example.com/…" (a URL: give it to its flag, as in --horizon.url=URL)';

describe("command line", () => {
  it("prints help listing every flag and its environment variable", () => {
    const result = runCli(["--help"]);
    expectExit(result, 0);
    for (const flag of [
      "--horizon.url",
      "--config.file",
      "--web.listen-address",
      "--poll.interval",
      "--pools.max",
      "--log.level",
      "--version",
    ]) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain("[HORIZON_URL]");
  });

  it("prints the version", () => {
    const result = runCli(["--version"]);
    expectExit(result, 0);
    expect(result.stdout).toBe(`stellar-horizon-exporter ${VERSION} (node ${process.version})\n`);
  });

  it("exits 2 with one readable line per problem and no stack trace", () => {
    const result = runCli(["--horizon.url=nope", "--poll.interval=soon"]);
    expectExit(result, 2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^stellar-horizon-exporter: --poll.interval: "soon" is neither/),
      "stellar-horizon-exporter: --horizon.url: the value (not shown: it may hold a secret) is not a valid http:// or https:// URL",
    ]);
    expect(result.stderr).not.toMatch(/\bat .*:\d+:\d+/);
  });
});

describe("help, version and bad input, for every command", () => {
  it.each([["-h"], ["--help"], ["help"]])("%s prints the exporter's help", (flag) => {
    const result = runCli([flag]);
    expectExit(result, 0);
    expect(result.stdout).toMatch(/^Usage: stellar-horizon-exporter \[FLAGS\]/);
    expect(result.stdout).toContain("cron pattern");
  });

  it.each([
    [["simulate", "-h"], /^Usage: stellar-horizon-exporter simulate/],
    [["help", "simulate"], /^Usage: stellar-horizon-exporter simulate/],
    [["demo", "-h"], /^Usage: stellar-horizon-exporter demo/],
    [["help", "demo"], /^Usage: stellar-horizon-exporter demo/],
  ])("%j prints that command's help", (args, usage) => {
    const result = runCli(args);
    expectExit(result, 0);
    expect(result.stdout).toMatch(usage);
  });

  it.each([["simulate"], ["demo"]])("%s --version prints the version", (command) => {
    const result = runCli([command, "--version"]);
    expectExit(result, 0);
    expect(result.stdout).toBe(`stellar-horizon-exporter ${VERSION} (node ${process.version})\n`);
  });

  it.each([
    [
      ["demo"],
      { DEMO_SIMULATOR_PORT: "abc" },
      ['stellar-horizon-exporter demo: DEMO_SIMULATOR_PORT: "abc" is not a port number from 0 to 65535'],
    ],
    [
      ["demo", "--pools.max=lots"],
      {},
      [
        'stellar-horizon-exporter demo: --pools.max: "lots" is not a whole number from 0 to 20000 (more pools per Horizon need a second exporter)',
      ],
    ],
    [
      ["simulate", "--pools=-1"],
      {},
      ['stellar-horizon-exporter simulate: --pools: "-1" is not a whole number from 0 to 100000'],
    ],
    [["demo", "--bogus"], {}, ["stellar-horizon-exporter demo: unknown flag --bogus", "Run with --help for usage."]],
    [
      ["--poll.intervall=15s"],
      {},
      [
        "stellar-horizon-exporter: unknown flag --poll.intervall (did you mean --poll.interval?)",
        "Run with --help for usage.",
      ],
    ],
    [["help", "bogus"], {}, ['stellar-horizon-exporter: unknown command "bogus"', "Run with --help for usage."]],
    // A URL whose flag was left out keeps its userinfo, token path and query key out of the line.
    [[URL_WITH_KEYS], {}, [`stellar-horizon-exporter: unknown command ${URL_SHOWN}`, "Run with --help for usage."]],
    [
      ["--horizon.url=http://127.0.0.1:8000", URL_WITH_KEYS],
      {},
      [`stellar-horizon-exporter: unexpected argument ${URL_SHOWN}`, "Run with --help for usage."],
    ],
    [
      ["--horizon.url=http://127.0.0.1:8000", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"],
      {},
      [
        "stellar-horizon-exporter: unexpected argument (text of 32 characters, not shown: it may hold a secret)",
        "Run with --help for usage.",
      ],
    ],
    [
      ["simulate", URL_WITH_KEYS],
      {},
      [`stellar-horizon-exporter simulate: unexpected argument ${URL_SHOWN}`, "Run with --help for usage."],
    ],
    [
      ["simulte"],
      {},
      ['stellar-horizon-exporter: unknown command "simulte" (did you mean simulate?)', "Run with --help for usage."],
    ],
    [
      [],
      {},
      [
        expect.stringMatching(/^stellar-horizon-exporter: no Horizon or Stellar RPC to poll: /),
        "Run with --help for usage.",
      ],
    ],
  ])("%j exits 2 with one line naming the problem, and points at --help only where it helps", (args, env, lines) => {
    const result = runCli(args, env);
    expectExit(result, 2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual(lines);
  });
});

describe("a taken port", () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((listening) => blocker.listen(0, "127.0.0.1", listening));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((closed) => blocker.close(() => closed())));

  it("the exporter exits 1 with one plain line on stderr", () => {
    const result = runCli(["--horizon.url=http://127.0.0.1:2", `--web.listen-address=127.0.0.1:${port}`]);
    expectExit(result, 1);
    expect(result.stderr).toBe(
      `stellar-horizon-exporter: cannot listen on 127.0.0.1:${port}: address already in use\n`,
    );
    expect(result.stdout).toContain('"msg":"cannot start"');
  });

  it("the demo answers --help without starting anything, and names the taken port", () => {
    expectExit(runCli(["demo", "--help"], { DEMO_SIMULATOR_PORT: String(port) }), 0);
    const result = runCli(["demo"], { DEMO_SIMULATOR_PORT: String(port) });
    expectExit(result, 1);
    expect(result.stderr).toBe(
      `stellar-horizon-exporter demo: simulator: cannot listen on 127.0.0.1:${port}: address already in use (set DEMO_SIMULATOR_PORT)\n`,
    );
  });
});

describe("an unhandled rejection", () => {
  it("is written with its stack and its cause's, secrets masked", () => {
    treatAsSecret("hunter2-rejection");
    const cause = new Error("socket hang up");
    const text = describeRejection(new Error("poll of https://x:hunter2-rejection@h failed", { cause }));
    const lines = text.split("\n");
    expect(lines[0]).toBe("Error: poll of https://x:<secret>@h failed");
    expect(lines[1]).toMatch(/^\s+at .*cli\.test\.ts:\d+:\d+/);
    expect(lines).toContain("Caused by: Error: socket hang up");
    expect(text).not.toContain("hunter2-rejection");
    expect(describeRejection("plain text")).toBe("plain text");
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
    const { child, output, exited } = spawnCli([
      `--horizon.url=t=${url}`,
      "--web.listen-address=127.0.0.1:0",
      "--log.level=info",
    ]);
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
