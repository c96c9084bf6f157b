import { until } from "../support/wait.js";
import { afterEach, describe, expect, it } from "vitest";
import { runSimulateCommand } from "../../src/cli/simulate.js";

class Capture {
  text = "";
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runSimulateCommand(argv, { stdout, stderr, stop: AbortSignal.abort() });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const stops: AbortController[] = [];
const runs: Promise<number>[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(runs.splice(0));
});

describe("simulate command", () => {
  it.each([
    [["--scenario", "meltdown"], /--scenario: unknown scenario "meltdown" \(known: healthy, ingest_lag/],
    [["--ledger-interval=soon"], /--ledger-interval: "soon" is not a duration/],
    [["--ledger-interval=0ms"], /--ledger-interval: "0ms" is not a duration of at least 1ms/],
    [["--pools", "-3"], /--pools: "-3" is not a whole number from 0 to 100000/],
    [["--scenario"], /--scenario needs a value/],
    [["--pools=many"], /--pools: "many" is not a whole number from 0 to 100000/],
    [["--seed=1.5"], /--seed: "1.5" is not a non-negative whole number/],
    [["--web.listen-address=8000"], /--web.listen-address: "8000" is not HOST:PORT/],
    [["--web.listen-address=127.0.0.1:70000"], /--web.listen-address: "127.0.0.1:70000" is not HOST:PORT/],
    [["--network-passphrase="], /--network-passphrase: must not be empty/],
    [["--fork-at=0"], /--fork-at: "0" is not a ledger sequence from 1 to 4294967295/],
    [["--fork-at=next"], /--fork-at: "next" is not a ledger sequence/],
    [["--network-start=yesterday"], /--network-start: "yesterday" is not an RFC 3339 time/],
    [["--network-start=2000-01-01T00:00:00Z"], /--network-start: 2000-01-01T00:00:00Z is not within the last day/],
    [["--verbose"], /unknown flag --verbose/],
    [
      ["--seeed=1"],
      /^stellar-horizon-exporter simulate: unknown flag --seeed \(did you mean --seed\?\)\nRun with --help for usage\.\n$/,
    ],
    [["extra"], /unexpected argument "extra"/],
  ])("rejects %j with exit code 2 and a clear message", async (argv, message) => {
    const { code, stdout, stderr } = await run(argv);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("reports every bad flag, one line each", async () => {
    const { code, stderr } = await run(["--pools=x", "--seed=y", "--scenario=z"]);
    expect(code).toBe(2);
    // Bad values say what is expected; --help applies to an unknown flag, not to these.
    expect(stderr.split("\n").filter((line) => line.startsWith("stellar-horizon-exporter simulate: --"))).toHaveLength(
      3,
    );
    expect(stderr).not.toContain("--help");
  });

  it("--help prints usage and exits 0", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--web.listen-address=HOST:PORT");
    expect(stdout).toContain("pool_drain");
  });

  it("serves with the given flags, prints its URL, and stops cleanly", async () => {
    const stop = new AbortController();
    const stdout = new Capture();
    stops.push(stop);
    const exit = runSimulateCommand(
      [
        "--web.listen-address",
        "127.0.0.1:0",
        "--scenario=fee_spike",
        "--ledger-interval",
        "250ms",
        "--pools=12",
        "--seed",
        "42",
      ],
      { stdout, stderr: new Capture(), stop: stop.signal },
    );
    runs.push(exit);
    await until("the listening line", () => stdout.text.includes("listening on") || undefined, { intervalMs: 5 });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout.text)?.[1];
    const state = (await (await fetch(`${url}/_sim/state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({
      scenario: "fee_spike",
      pools: 12,
      seed: 42,
      ledgerIntervalMs: { min: 250, max: 250 },
    });
    stop.abort();
    expect(await exit).toBe(0);
    await expect(fetch(`${url}/`)).rejects.toThrow();
  });

  it("joins another simulator's network with --network-start, and forks it with --fork-at", async () => {
    const stop = new AbortController();
    const stdout = new Capture();
    stops.push(stop);
    const networkStart = new Date(Date.now() - 60_000).toISOString();
    const exit = runSimulateCommand(
      ["--web.listen-address=127.0.0.1:0", "--seed=3", `--network-start=${networkStart}`, "--fork-at=59000000"],
      { stdout, stderr: new Capture(), stop: stop.signal },
    );
    runs.push(exit);
    await until("the network line", () => stdout.text.includes("network:") || undefined, { intervalMs: 5 });
    expect(stdout.text).toContain(", forked from ledger 59000000)");
    expect(stdout.text).toContain(
      `another simulator with --seed=3 --network-start=${networkStart} serves the same ledgers`,
    );
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout.text)?.[1];
    const state = (await (await fetch(`${url}/_sim/state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ seed: 3, networkStart, forkAt: 59_000_000 });
    stop.abort();
    expect(await exit).toBe(0);
  });

  it("answers the path-finding routes 404 with --disable-path-finding", async () => {
    const stop = new AbortController();
    const stdout = new Capture();
    stops.push(stop);
    const exit = runSimulateCommand(["--web.listen-address=127.0.0.1:0", "--disable-path-finding"], {
      stdout,
      stderr: new Capture(),
      stop: stop.signal,
    });
    runs.push(exit);
    const url = await until("the URL", () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout.text)?.[1], {
      intervalMs: 5,
    });
    const response = await fetch(
      `${url}/paths/strict-send?source_asset_type=native&source_amount=1&destination_assets=native`,
    );
    expect(response.status).toBe(404);
    expect(((await response.json()) as { type: string }).type).toBe("https://stellar.org/horizon-errors/not_found");
    stop.abort();
    expect(await exit).toBe(0);
  });
});
