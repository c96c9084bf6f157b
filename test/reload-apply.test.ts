import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import bcrypt from "bcryptjs";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { ExporterConfig } from "../src/config/config.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom } from "./support/exporter-harness.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { until } from "./support/wait.js";

const dir = mkdtempSync(join(tmpdir(), "she-reload-apply-"));
let horizon: FakeHorizon;
let exporter: RunningExporter | undefined;

afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
  await horizon.stop();
});

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const loaded = (config: ExporterConfig) => async () => config;

describe("reloads", () => {
  it("two reloads fired back to back leave one runtime per target, and nothing polls after close", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const url = await horizon.start();
    const target = (timeout: string) => file(`targets-${timeout}.yml`, `targets:\n  - name: one\n    url: ${url}\n    timeout: ${timeout}\n`);
    const initial = await configFrom([`--config.file=${target("5s")}`, "--poll.interval=1s"]);
    exporter = await startExporter(initial, { logger: pino({ level: "silent" }) });
    await exporter.firstPolls;

    // Each changes the target, so each restarts it.
    const first = await configFrom([`--config.file=${target("6s")}`, "--poll.interval=1s"]);
    const second = await configFrom([`--config.file=${target("7s")}`, "--poll.interval=1s"]);
    const loads: string[] = [];
    await Promise.all([
      exporter.reload(async () => (loads.push("first"), first)),
      exporter.reload(async () => (loads.push("second"), second)),
    ]);
    // The first had not started loading when the second came: only the latest file is read.
    expect(loads).toEqual(["second"]);
    const page = await (await fetch(`${exporter.url}/`)).text();
    expect(page.match(/<h2>one<\/h2>/g)).toHaveLength(1);
    await until("the restarted target's first poll", async () => {
      const values = parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
      return valueOf(values, "stellar_horizon_up", { horizon: "one" }) === 1 ? true : undefined;
    });

    await exporter.close();
    exporter = undefined;
    const requestsAtClose = horizon.requests.length;
    // A negative check needs a window: two scheduled polls' worth, in which an orphan would poll.
    await new Promise((done) => setTimeout(done, 2_500));
    expect(horizon.requests.length).toBe(requestsAtClose);
  });

  it("a reload waits for the one before it, and close() waits for both", async () => {
    horizon = new FakeHorizon();
    const url = await horizon.start();
    const initial = await configFrom([`--horizon.url=a=${url}`, "--poll.interval=1h"]);
    exporter = await startExporter(initial, { logger: pino({ level: "silent" }) });
    await exporter.firstPolls;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const withB = await configFrom([`--horizon.url=a=${url}`, `--horizon.url=b=${url}`, "--poll.interval=1h"]);
    const slowReload = exporter.reload(async () => {
      await gate;
      return withB;
    });
    const closing = exporter.close();
    release();
    await Promise.all([slowReload, closing]);
    exporter = undefined;
    const requestsAtClose = horizon.requests.length;
    await new Promise((done) => setTimeout(done, 200));
    expect(horizon.requests.length).toBe(requestsAtClose);
  });

  it("applies the web config (users, headers, certificate) and the log level", async () => {
    const cert = (name: string) => {
      execFileSync("openssl", [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, `${name}.key`), "-out", join(dir, `${name}.crt`),
        "-days", "1", "-subj", `/CN=${name}`, "-addext", "subjectAltName=IP:127.0.0.1",
      ], { stdio: "ignore" });
      return { cert: `${name}.crt`, key: `${name}.key` };
    };
    const webConfig = (name: string, user: string, frame: string) => {
      const { cert: certFile, key } = cert(name);
      return file(
        `${name}.yml`,
        `tls_server_config:\n  cert_file: ${certFile}\n  key_file: ${key}\nhttp_server_config:\n  headers:\n    X-Frame-Options: ${frame}\nbasic_auth_users:\n  ${user}: "${bcrypt.hashSync("secret", 4)}"\n`,
      );
    };
    horizon = new FakeHorizon();
    const url = await horizon.start();
    const logger = pino({ level: "warn" });
    const before = await configFrom([`--horizon.url=t=${url}`, "--poll.interval=1h", `--web.config.file=${webConfig("before", "alice", "DENY")}`]);
    exporter = await startExporter(before, { logger });
    await exporter.firstPolls;
    const port = Number(new URL(exporter.url).port);
    const get = (user: string) =>
      new Promise<{ status: number; frame: unknown }>((resolve, reject) => {
        const auth = Buffer.from(`${user}:secret`).toString("base64");
        const req = request(`${exporter!.url}/metrics`, { headers: { Authorization: `Basic ${auth}` }, agent: false, rejectUnauthorized: false }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, frame: res.headers["x-frame-options"] }));
        });
        req.on("error", reject);
        req.end();
      });
    const servedCertificate = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
          resolve(new X509Certificate(socket.getPeerX509Certificate()!.raw).subject);
          socket.end();
        });
        socket.on("error", reject);
      });
    expect(await get("alice")).toEqual({ status: 200, frame: "DENY" });
    expect(await servedCertificate()).toBe("CN=before");

    const after = await configFrom([
      `--horizon.url=t=${url}`, "--poll.interval=1h", `--web.config.file=${webConfig("after", "bob", "SAMEORIGIN")}`, "--log.level=debug",
    ]);
    await exporter.reload(loaded(after));
    expect(await get("alice")).toMatchObject({ status: 401 });
    expect(await get("bob")).toEqual({ status: 200, frame: "SAMEORIGIN" });
    expect(await servedCertificate()).toBe("CN=after");
    expect(logger.level).toBe("debug");
  });
});
