import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig, type ExporterConfig } from "../src/config/config.js";

function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "she-rpc-config-")), "config.yml");
  writeFileSync(path, text);
  return path;
}

async function load(argv: string[], env: NodeJS.ProcessEnv = {}) {
  return loadConfig(argv, env);
}

async function runConfig(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ExporterConfig> {
  const command = await load(argv, env);
  if (command.kind !== "run") throw new Error(JSON.stringify(command));
  return command.config;
}

it("--rpc.url is repeatable, keeps the path, names by host:port unless named; an RPC alone is enough", async () => {
  const config = await runConfig([
    "--rpc.url=http://127.0.0.1:8000/rpc",
    "--rpc.url=testnet=https://soroban-testnet.stellar.org",
  ]);
  expect(config.targets).toEqual([]);
  expect(config.rpcTargets.map(({ name, url, timeoutMs }) => ({ name, url: url.href.reveal(), timeoutMs }))).toEqual([
    { name: "127.0.0.1:8000", url: "http://127.0.0.1:8000/rpc", timeoutMs: 10_000 },
    { name: "testnet", url: "https://soroban-testnet.stellar.org", timeoutMs: 10_000 },
  ]);
  const [local] = config.rpcTargets;
  expect(local!.schedules.status.periodMs).toBe(15_000);
  expect(local!.schedules.versions.periodMs).toBe(600_000);
});

it("RPC_URL takes a comma-separated list; the flag wins", async () => {
  const env = { RPC_URL: "a=http://a:2/rpc, b=http://b:2", HORIZON_URL: "http://h:2" };
  expect((await runConfig([], env)).rpcTargets.map((target) => target.name)).toEqual(["a", "b"]);
  expect((await runConfig(["--rpc.url=c=http://c:3"], env)).rpcTargets.map((target) => target.name)).toEqual(["c"]);
});

it("reads rpc_targets from the file: name, url, headers, timeout, schedule; --poll.interval beats file schedules", async () => {
  const path = writeConfig(`
rpc_targets:
  - name: sdf
    url: https://rpc.example.com/
    headers: { Authorization: "Bearer secret" }
    timeout: 3s
    schedule: 30s
  - url: http://127.0.0.1:8000/rpc
    schedule: 30m
`);
  const config = await runConfig([`--config.file=${path}`]);
  const [sdf, local] = config.rpcTargets;
  expect(sdf).toMatchObject({ name: "sdf", url: { display: "https://rpc.example.com/" }, timeoutMs: 3_000 });
  expect(sdf!.headers.Authorization!.reveal()).toBe("Bearer secret");
  expect(sdf!.schedules.status.periodMs).toBe(30_000);
  expect(sdf!.schedules.versions.periodMs).toBe(600_000);
  // A status schedule rarer than the versions one is used for both.
  expect(local!.schedules.versions.periodMs).toBe(1_800_000);
  const forced = await runConfig([`--config.file=${path}`, "--poll.interval=1m"]);
  expect(forced.rpcTargets[0]!.schedules.status.periodMs).toBe(60_000);
});

it("reports RPC problems one line each, never echoing credentials", async () => {
  const path = writeConfig(`
rpc_targets:
  - url: ws://example.com
    schedule: 500ms
  - url: https://ok.example.com
    schedules: { status: 10s }
`);
  const command = await load([`--config.file=${path}`]);
  expect(command.kind).toBe("invalid");
  expect(command.kind === "invalid" && command.problems).toEqual([
    `${path}:3: rpc_targets[0].url: expected an http:// or https:// URL`,
    `${path}:4: rpc_targets[0].schedule: "500ms" must be a whole number of seconds, at least 1s`,
    `${path}:6: rpc_targets[1].schedules: unknown key (did you mean schedule?)`,
  ]);
  const bad = await load(["--rpc.url=ftp://user:pa55@example.com", "--rpc.url=a=http://x:2", "--rpc.url=a=http://y:2"]);
  expect(bad.kind === "invalid" && bad.problems).toEqual([
    '--rpc.url: "ftp://example.com/" is not a valid http:// or https:// URL',
    '--rpc.url: Stellar RPC target name "a" is used twice; names must be unique',
  ]);
});
