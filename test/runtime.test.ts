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
import { configFrom, stopStarted } from "./support/exporter-harness.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { hang, HostileHorizon } from "./support/hostile-horizon.js";
import { until } from "./support/wait.js";

const dir = mkdtempSync(join(tmpdir(), "she-runtime-"));
let horizon: FakeHorizon;
let exporter: RunningExporter | undefined;

afterEach(async () => {
  await stopStarted(exporter, horizon);
  exporter = undefined;
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
    const status = (await (await fetch(`${exporter.url}/status.json`)).json()) as { targets: Array<{ name: string }> };
    expect(status.targets.map((shown) => shown.name)).toEqual(["one"]);
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

describe("reloads with polls in flight, changed and removed targets", () => {
  it("keeps an unchanged target's counters, restarts a changed one, and aborts a removed one's hung poll", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(5);
    const changing = new FakeHorizon();
    changing.addLedgers(5);
    const leaving = new HostileHorizon();
    leaving.healthy.addLedgers(5);
    const [keptUrl, changingUrl, leavingUrl] = await Promise.all([horizon.start(), changing.start(), leaving.start()]);
    try {
      const targets = (changedTimeout: string, withLeaving: boolean) =>
        file(
          `targets-${changedTimeout}-${withLeaving}.yml`,
          `targets:\n  - name: kept\n    url: ${keptUrl}\n  - name: changed\n    url: ${changingUrl}\n    timeout: ${changedTimeout}\n` +
            (withLeaving ? `  - name: gone\n    url: ${leavingUrl}\n` : ""),
        );
      const logLines: string[] = [];
      exporter = await startExporter(await configFrom([`--config.file=${targets("5s", true)}`, "--poll.interval=1h"]), {
        logger: pino({ level: "warn" }, { write: (line: string) => void logLines.push(line) }),
      });
      await exporter.firstPolls;
      horizon.addLedgers(2);
      changing.addLedgers(2);
      await exporter.pollAll();
      const scrape = async () => parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
      let values = await scrape();
      expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "kept" })).toBe(3);
      expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "changed" })).toBe(3);

      // A poll of every target in flight, the removed one's stuck on a Horizon that never answers.
      leaving.misbehaviour = hang;
      const requestsBefore = leaving.requestCount;
      const polling = exporter.pollAll();
      await until("the removed target's polls to hang", () => (leaving.requestCount >= requestsBefore + 4 ? true : undefined));
      await exporter.reload(loaded(await configFrom([`--config.file=${targets("6s", false)}`, "--poll.interval=1h", "--log.level=warn"])));
      await polling;

      values = await scrape();
      expect([...values.keys()].filter((key) => key.includes('horizon="gone"'))).toEqual([]);
      // Its polls were cut short by the reload, not failed by Horizon: nothing counted or logged.
      expect(logLines.filter((line) => line.includes('"poll failed"'))).toEqual([]);
      // The changed target restarted from the latest ledger: a fresh runtime, fresh counters.
      expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "changed" })).toBeUndefined();
      await exporter.idle();
      await until("the changed target's first poll", async () =>
        valueOf(await scrape(), "stellar_horizon_up", { horizon: "changed" }) === 1 ? true : undefined,
      );
      values = await scrape();
      expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "changed" })).toBe(1);
      expect(valueOf(values, "stellar_horizon_ledger_sequence", { horizon: "changed" })).toBe(7);

      horizon.addLedgers(1);
      await exporter.pollAll();
      values = await scrape();
      expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "kept" })).toBe(4);
      expect(valueOf(values, "stellar_horizon_up", { horizon: "kept" })).toBe(1);
    } finally {
      await Promise.all([changing.stop(), leaving.stop()]);
    }
  });
});

describe("schedules and backfill", () => {
  it("reads `backfill` ledgers before the latest on the first poll, each once", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(30);
    const url = await horizon.start();
    exporter = await startExporter(
      await configFrom([`--horizon.url=t=${url}`, "--poll.interval=1h", `--config.file=${file("backfill.yml", "ledgers: { backfill: 10 }\n")}`]),
      { logger: pino({ level: "silent" }) },
    );
    await exporter.firstPolls;
    horizon.addLedgers(2);
    await exporter.pollAll();
    const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
    // 20..30 on the first poll, then 31 and 32.
    expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "t" })).toBe(13);
    expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", { horizon: "t" })).toBe(0);
    expect(valueOf(values, "stellar_horizon_ledger_close_interval_seconds_count", { horizon: "t" })).toBe(12);
    expect(horizon.requestsTo("/ledgers")[0]?.searchParams.get("limit")).toBe("11");
  });

  it("polls on a croner pattern", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const url = await horizon.start();
    const schedules = file("cron.yml", `poll_interval: 1h\nschedules:\n  fee_stats: "* * * * * *"\n`);
    exporter = await startExporter(await configFrom([`--horizon.url=t=${url}`, `--config.file=${schedules}`]), {
      logger: pino({ level: "silent" }),
    });
    await exporter.firstPolls;
    // Every second on the pattern; root, on its 1 h interval, is not polled again meanwhile.
    await until("two more fee_stats polls on the pattern", () => (horizon.requestsTo("/fee_stats").length >= 3 ? true : undefined), {
      timeoutMs: 5_000,
    });
    expect(horizon.requestsTo("/")).toHaveLength(1);
    const page = await (await fetch(`${exporter.url}/`)).text();
    expect(page).toContain("* * * * * *");
  });
});
