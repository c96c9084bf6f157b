import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import bcrypt from "bcryptjs";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runHealthcheckCommand, runningExporterArguments } from "../src/cli/healthcheck.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { configFrom } from "./support/exporter-harness.js";
import { freePort } from "./support/free-port.js";
import { FakeHorizon } from "./support/fake-horizon.js";

const TLS_FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "fixtures/tls");

function capture() {
  let text = "";
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

describe("the flags of the running exporter, read from a /proc-like folder", () => {
  const dir = mkdtempSync(join(tmpdir(), "she-proc-"));
  const app = join(dir, "app");
  const bin = join(app, "dist/cli/bin.js");
  mkdirSync(dirname(bin), { recursive: true });
  writeFileSync(bin, "");
  const proc = join(dir, "proc");
  const processEntry = (pid: number, cwd: string, args: string[]) => {
    mkdirSync(join(proc, String(pid)), { recursive: true });
    writeFileSync(join(proc, String(pid), "cmdline"), `${args.join("\0")}\0`);
    symlinkSync(cwd, join(proc, String(pid), "cwd"));
  };
  processEntry(1, "/", ["/sbin/docker-init", "--", "sh"]);
  processEntry(7, app, [
    "node",
    "--max-semi-space-size=4",
    "dist/cli/bin.js",
    "--web.listen-address=:9700",
    "--horizon.url=http://h",
  ]);
  processEntry(9, app, ["node", "dist/cli/bin.js", "healthcheck"]);
  processEntry(12, "/", ["node", "/elsewhere/cli/bin.js", "--web.listen-address=:9800"]);
  mkdirSync(join(proc, "self"));

  it("are those after the bin's path in the oldest process running it, not a subcommand's", () => {
    expect(runningExporterArguments(bin, proc, 9)).toEqual(["--web.listen-address=:9700", "--horizon.url=http://h"]);
  });

  it("are found for an absolute path too, and not in the checking process itself", () => {
    processEntry(3, "/", ["node", bin, "--web.listen-address=:9600", "--horizon.url=http://h"]);
    expect(runningExporterArguments(bin, proc, 9)).toEqual(["--web.listen-address=:9600", "--horizon.url=http://h"]);
    expect(runningExporterArguments(bin, proc, 3)).toEqual(["--web.listen-address=:9700", "--horizon.url=http://h"]);
  });

  it("are undefined when no process runs the bin", () => {
    const other = join(app, "dist/cli/other.js");
    writeFileSync(other, "");
    expect(runningExporterArguments(other, proc, 9)).toBeUndefined();
  });
});

describe("stellar-horizon-exporter healthcheck", () => {
  const horizon = new FakeHorizon();
  const dir = mkdtempSync(join(tmpdir(), "she-healthcheck-"));
  let exporter: RunningExporter;
  let flags: string[];

  beforeAll(async () => {
    const port = await freePort();
    writeFileSync(
      join(dir, "web.yml"),
      `tls_server_config:\n  cert_file: ${join(TLS_FIXTURES, "localhost-cert.pem")}\n  key_file: ${join(TLS_FIXTURES, "localhost-key.pem")}\n` +
        `basic_auth_users:\n  alice: "${bcrypt.hashSync("right password", 4)}"\n`,
    );
    flags = [
      `--horizon.url=t=${await horizon.start()}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--poll.interval=1h",
    ];
    exporter = await startExporter(await configFrom([...flags, `--web.config.file=${join(dir, "web.yml")}`]), {
      logger: pino({ level: "silent" }),
    });
  });
  afterAll(async () => {
    await exporter.close();
    await horizon.stop();
  });

  it("exits 0 when /healthz answers, over TLS and with basic auth on, from the flags and the environment", async () => {
    expect(exporter.url).toMatch(/^https:/);
    const stderr = capture();
    expect(await runHealthcheckCommand(flags, { WEB_CONFIG_FILE: join(dir, "web.yml") }, { stderr })).toBe(0);
    // Where the exporter listens is all a healthcheck needs: no target.
    const listenOnly = [flags[1]!, `--web.config.file=${join(dir, "web.yml")}`];
    expect(await runHealthcheckCommand(listenOnly, {}, { stderr })).toBe(0);
    expect(stderr.text()).toBe("");
  });

  it("exits 1 with one line naming the URL when the exporter is not there or speaks otherwise", async () => {
    const port = await freePort();
    const stderr = capture();
    expect(await runHealthcheckCommand([flags[0]!, `--web.listen-address=127.0.0.1:${port}`], {}, { stderr })).toBe(1);
    expect(stderr.text()).toMatch(
      new RegExp(`^healthcheck: http://127\\.0\\.0\\.1:${port}/healthz: .*ECONNREFUSED.*\\n$`),
    );

    // Plain HTTP to the TLS port: no 200.
    const plain = capture();
    expect(await runHealthcheckCommand(flags, {}, { stderr: plain })).toBe(1);
    expect(plain.text()).toMatch(/^healthcheck: http:\/\/127\.0\.0\.1:\d+\/healthz: .+\n$/);
  });

  it("exits 0 after an edit a reload refused: it reads the file's listen address and nothing else", async () => {
    // The running exporter kept its old configuration and answers /healthz; a target's schedule is now unreadable.
    const config = join(dir, "edited.yml");
    writeFileSync(
      config,
      `web:\n  listen_address: ${flags[1]!.split("=")[1]}\ntargets:\n  - url: http://127.0.0.1:8000\n` +
        "    schedules: { ledgers: soon }\n",
    );
    const web = join(dir, "edited-web.yml");
    writeFileSync(
      web,
      `tls_server_config:\n  cert_file: ${join(TLS_FIXTURES, "localhost-cert.pem")}\n  ciphers: weak\n`,
    );
    const stderr = capture();
    const code = await runHealthcheckCommand([`--config.file=${config}`, `--web.config.file=${web}`], {}, { stderr });
    expect({ code, stderr: stderr.text() }).toEqual({ code: 0, stderr: "" });
  });

  it("exits 1 with one line when the configuration is unusable, and answers --help", async () => {
    const stderr = capture();
    expect(await runHealthcheckCommand(["--web.listen-address=nowhere"], {}, { stderr })).toBe(1);
    expect(stderr.text()).toMatch(
      /^healthcheck: the exporter's configuration is unusable: .*--web.listen-address: "nowhere" is not HOST:PORT.*\n$/,
    );
    const stdout = capture();
    expect(await runHealthcheckCommand(["--help"], {}, { stdout })).toBe(0);
    expect(stdout.text()).toMatch(/^Usage: stellar-horizon-exporter healthcheck \[FLAGS\]/);
  });
});
