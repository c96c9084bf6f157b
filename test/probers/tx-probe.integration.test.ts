import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Account, Keypair, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ALL_METRICS } from "../../src/catalog/metrics.js";
import { loadConfig } from "../../src/config/config.js";
import { startExporter, type RunningExporter } from "../../src/exporter.js";
import { startSimulator, type RunningSimulator } from "../../src/simulator/server.js";
import { expectExit, runCli } from "../support/cli-process.js";
import { namesIn, parseExposition, valueOf } from "../support/exposition.js";
import { until } from "../support/wait.js";

const LEDGER_INTERVAL_MS = 200;
const FUNDS = 10_000n * 10_000_000n;

interface Running {
  simulator: RunningSimulator;
  exporter: RunningExporter;
  signer: Keypair;
  logs: string[];
  directory: string;
  metrics(): Promise<Map<string, number>>;
  value(name: string, labels?: Record<string, string>): Promise<number | undefined>;
  sequence(): bigint;
}

let running: Running | undefined;

afterEach(async () => {
  if (running === undefined) return;
  await running.exporter.close();
  await running.simulator.close();
  await rm(running.directory, { recursive: true, force: true });
  running = undefined;
});

async function start(
  options: { passphrase?: string; allowPubnet?: boolean; submissionTimeoutMs?: number } = {},
): Promise<Running> {
  const { passphrase = Networks.TESTNET } = options;
  const simulator = await startSimulator({
    networkPassphrase: passphrase,
    ledgerIntervalMs: LEDGER_INTERVAL_MS,
    ...(options.submissionTimeoutMs ? { submissionTimeoutMs: options.submissionTimeoutMs } : {}),
  });
  const signer = Keypair.random();
  simulator.simulator.accounts.add({ id: signer.publicKey(), balance: FUNDS }, simulator.simulator.latestLedgerPoint());
  const directory = await mkdtemp(join(tmpdir(), "tx-probe-"));
  const secretFile = join(directory, "probe.secret");
  await writeFile(secretFile, `${signer.secret()}\n`);
  await chmod(secretFile, 0o600);
  const configFile = join(directory, "config.yml");
  await writeFile(
    configFile,
    [
      "targets:",
      "  - name: sim",
      `    url: ${simulator.url}`,
      "    tx_probe:",
      `      secret_file: ${secretFile}`,
      "      interval: 1h",
      `      allow_pubnet: ${options.allowPubnet ?? false}`,
    ].join("\n"),
  );
  const command = await loadConfig(["--web.listen-address=127.0.0.1:0", `--config.file=${configFile}`], {});
  if (command.kind !== "run") throw new Error(`config rejected: ${JSON.stringify(command)}`);
  const logs: string[] = [];
  const exporter = await startExporter(command.config, {
    logger: pino({ level: "trace" }, { write: (line: string) => logs.push(line) }),
  });
  await exporter.firstPolls;
  const metrics = async () => parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
  running = {
    simulator,
    exporter,
    signer,
    logs,
    directory,
    metrics,
    value: async (name, labels = {}) => valueOf(await metrics(), name, { horizon: "sim", ...labels }),
    sequence: () => simulator.simulator.accounts.get(signer.publicKey())!.sequence,
  };
  return running;
}

/** Submits a transaction from the probe's account as another process would, and leaves it waiting for a ledger. */
async function submitElsewhere(run: Running): Promise<{ answer: Promise<Response> }> {
  const transaction = new TransactionBuilder(new Account(run.signer.publicKey(), run.sequence().toString()), {
    fee: "100",
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .setTimeout(30)
    .build();
  transaction.sign(run.signer);
  const answer = fetch(`${run.simulator.url}/transactions`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ tx: transaction.toXdr() }).toString(),
  });
  await until(
    "the other transaction to be held",
    () => run.simulator.simulator.state().heldSubmissions > 0 || undefined,
  );
  return { answer };
}

describe("the transaction probe against the simulator over loopback", () => {
  it("succeeds in normal operation, and every submission is one Horizon received", async () => {
    const run = await start();
    // The probe's account is watched like a configured one.
    expect(await run.value("stellar_horizon_account_balance", { account: "tx_probe", asset: "native" })).toBe(10_000);
    const before = run.sequence();
    for (let i = 0; i < 3; i++) await run.exporter.probeAll();
    expect(run.sequence()).toBe(before + 3n);
    expect(await run.value("stellar_horizon_tx_probe_submissions_total")).toBe(3);
    const series = await run.metrics();
    const failures = [...series].filter(([key]) => key.startsWith("stellar_horizon_tx_probe_failures_total{"));
    expect(failures.length).toBeGreaterThanOrEqual(14);
    expect(failures.every(([, value]) => value === 0)).toBe(true);
    expect(await run.value("stellar_horizon_tx_probe_duration_seconds_count")).toBe(3);
    expect(await run.value("stellar_horizon_tx_probe_inclusion_ledgers_count")).toBe(3);
    expect(await run.value("stellar_horizon_tx_probe_fee_charged_stroops")).toBeGreaterThanOrEqual(100);
    expect(await run.value("stellar_horizon_tx_probe_last_success_timestamp_seconds")).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
    const text = await (await fetch(`${run.exporter.url}/metrics`)).text();
    expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" }).trim()).toBe("");
    const families = namesIn(parseExposition(text));
    for (const metric of ALL_METRICS.filter((candidate) => candidate.source === "tx_probe")) {
      expect(families.has(metric.type === "histogram" ? `${metric.name}_count` : metric.name), metric.name).toBe(true);
    }
    const balance = run.simulator.simulator.accounts.get(run.signer.publicKey())!.balance;
    expect(FUNDS - balance).toBe(BigInt(3 * (await run.value("stellar_horizon_tx_probe_fee_charged_stroops"))!));
  });

  it("a sequence taken by another process costs exactly one tx_bad_seq, then the probe succeeds", async () => {
    const run = await start();
    await run.exporter.probeAll();
    // Core pauses, so the other process's transaction waits, holding the next sequence number.
    run.simulator.simulator.setScenario("network_halt");
    const other = await submitElsewhere(run);
    await run.exporter.probeAll();
    run.simulator.simulator.setScenario("healthy");
    expect((await other.answer).status).toBe(200);
    await run.exporter.probeAll();
    expect(await run.value("stellar_horizon_tx_probe_failures_total", { reason: "tx_bad_seq" })).toBe(1);
    expect(await run.value("stellar_horizon_tx_probe_submissions_total")).toBe(3);
    expect(await run.value("stellar_horizon_tx_probe_duration_seconds_count")).toBe(2);
  });

  it("a fee surge above max_fee counts as tx_insufficient_fee", async () => {
    const run = await start();
    run.simulator.simulator.setScenario("fee_spike");
    await run.exporter.probeAll();
    expect(await run.value("stellar_horizon_tx_probe_failures_total", { reason: "tx_insufficient_fee" })).toBe(1);
    expect(await run.value("stellar_horizon_tx_probe_last_success_timestamp_seconds")).toBeUndefined();
  });

  it("a 504 submission timeout is counted and survived", async () => {
    const run = await start({ submissionTimeoutMs: 1000 });
    run.simulator.simulator.setScenario("txsub_timeout");
    const before = run.sequence();
    await run.exporter.probeAll();
    expect(await run.value("stellar_horizon_tx_probe_failures_total", { reason: "timeout" })).toBe(1);
    expect(run.sequence()).toBe(before);
    run.simulator.simulator.setScenario("healthy");
    await run.exporter.probeAll();
    expect(await run.value("stellar_horizon_tx_probe_duration_seconds_count")).toBe(1);
    expect(run.sequence()).toBe(before + 1n);
  });

  it("pubnet without allow_pubnet submits nothing and says so once", async () => {
    const run = await start({ passphrase: Networks.PUBLIC });
    const before = run.sequence();
    await run.exporter.probeAll();
    await run.exporter.probeAll();
    expect(run.sequence()).toBe(before);
    expect(await run.value("stellar_horizon_tx_probe_submissions_total")).toBe(0);
    expect(run.logs.filter((line) => line.includes("allow_pubnet"))).toHaveLength(1);
  });

  it("the seed appears nowhere: logs at trace level, /metrics, the landing page", async () => {
    const run = await start();
    await run.exporter.probeAll();
    run.simulator.simulator.setScenario("fee_spike");
    await run.exporter.probeAll();
    const seed = run.signer.secret();
    const metricsText = await (await fetch(`${run.exporter.url}/metrics`)).text();
    const landing = await (await fetch(`${run.exporter.url}/`)).text();
    expect(run.logs.length).toBeGreaterThan(2);
    for (const text of [run.logs.join("\n"), metricsText, landing]) expect(text).not.toContain(seed);
    // The public key is no secret: it is the account every explorer shows.
    expect(run.logs.join("\n")).toContain(run.signer.publicKey());
  });
});

describe("a bad secret", () => {
  it("exits 2 with one line naming the file, not its content", async () => {
    const directory = await mkdtemp(join(tmpdir(), "tx-probe-"));
    try {
      const secretFile = join(directory, "probe.secret");
      const content = "SNOTAVALIDSEEDBUTSECRETLOOKING";
      await writeFile(secretFile, content);
      const configFile = join(directory, "config.yml");
      await writeFile(
        configFile,
        `targets:\n  - url: http://127.0.0.1:2\n    tx_probe:\n      secret_file: ${secretFile}\n`,
      );
      const result = runCli([`--config.file=${configFile}`]);
      expectExit(result, 2);
      const problems = result.stderr
        .trim()
        .split("\n")
        .filter((line) => !line.startsWith("Run with"));
      expect(problems).toEqual([
        expect.stringContaining(`tx_probe.secret_file ${secretFile}: does not hold a valid Stellar secret seed`),
      ]);
      expect(result.stderr + result.stdout).not.toContain(content);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("a known pubnet Horizon without allow_pubnet exits 2 at start", async () => {
    const result = runCli([], {});
    expectExit(result, 2);
    const env = { PROBE_SEED: Keypair.random().secret() };
    const directory = await mkdtemp(join(tmpdir(), "tx-probe-"));
    try {
      const configFile = join(directory, "config.yml");
      await writeFile(
        configFile,
        "targets:\n  - url: https://horizon.stellar.org\n    tx_probe:\n      secret_env: PROBE_SEED\n",
      );
      const refused = runCli([`--config.file=${configFile}`], env);
      expectExit(refused, 2);
      expect(refused.stderr).toMatch(/horizon\.stellar\.org serves pubnet.*allow_pubnet: true/);
      expect(refused.stderr).not.toContain(env.PROBE_SEED);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
