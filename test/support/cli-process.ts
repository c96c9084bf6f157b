import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Built from the sources by vitest's global setup (test/support/build-dist.ts) when they changed. */
const BIN = resolve(ROOT, "dist/cli/bin.js");
/** The CLI as `stellar-horizon-exporter ARGS` runs it, with only PATH inherited. */
const cliArguments = (args: readonly string[]) => [BIN, ...args];
const cliEnvironment = (env: NodeJS.ProcessEnv) => ({ PATH: process.env.PATH, ...env });

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, cliArguments(args), {
    cwd: ROOT,
    encoding: "utf8",
    env: cliEnvironment(env),
    timeout: 30_000,
  });
}

/** Asserts a finished command's exit code; a wrong one fails with the signal, spawn error and output that came with it. */
export function expectExit(result: SpawnSyncReturns<string>, status: number): void {
  const { signal, error, stdout, stderr } = result;
  const outcome = JSON.stringify({ status: result.status, signal, error: error?.message, stdout, stderr });
  expect(result.status, outcome).toBe(status);
}

export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  output(): string;
  /** Everything written to stderr so far: what a failed start said. */
  errors(): string;
  /** The exit code, once the process has ended. */
  readonly exited: Promise<number | null>;
}

export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, cliArguments(args), { cwd: ROOT, env: cliEnvironment(env) });
  let output = "";
  let errors = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on("exit", done));
  return { child, output: () => output, errors: () => errors, exited };
}

/** The base URL from the exporter's "started" log line. */
export function startedUrl(output: string): string | undefined {
  return /"url":"(https?:\/\/[^"]+)"/.exec(output)?.[1];
}
