import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { Keypair, Networks } from "@stellar/stellar-sdk";
import bcrypt from "bcryptjs";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { ExporterConfig } from "../src/config/config.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { Secret } from "../src/config/secret.js";
import type { TargetUrl } from "../src/config/target-url.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { configFrom, stopStarted } from "./support/exporter-harness.js";
import { FakeHorizon, makePool } from "./support/fake-horizon.js";
import { startSimulator, type RunningSimulator } from "../src/simulator/server.js";
import { hang, HostileHorizon, reply } from "./support/hostile-horizon.js";
import { ManualClock } from "./support/manual-clock.js";
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
    const clock = new ManualClock();
    const target = (timeout: string) =>
      file(`targets-${timeout}.yml`, `targets:\n  - name: one\n    url: ${url}\n    timeout: ${timeout}\n`);
    const initial = await configFrom([`--config.file=${target("5s")}`, "--poll.interval=1s"]);
    exporter = await startExporter(initial, { logger: pino({ level: "silent" }), clock });
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
    await exporter.idle();
    const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
    expect(valueOf(values, "stellar_horizon_up", { horizon: "one" })).toBe(1);
    // One runtime: one tick polls root once.
    const roots = horizon.requestsTo("/").length;
    await clock.advance(1_000);
    await exporter.idle();
    expect(horizon.requestsTo("/")).toHaveLength(roots + 1);

    await exporter.close();
    exporter = undefined;
    const requestsAtClose = horizon.requests.length;
    // Nothing is left scheduled on the clock; ten periods later nothing has polled.
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10_000);
    expect(horizon.requests.length).toBe(requestsAtClose);
  });

  it("a reload waits for the one before it, and close() waits for both", async () => {
    horizon = new FakeHorizon();
    const url = await horizon.start();
    const clock = new ManualClock();
    const initial = await configFrom([`--horizon.url=a=${url}`, "--poll.interval=10s"]);
    const lines: string[] = [];
    exporter = await startExporter(initial, {
      logger: pino({ level: "info" }, { write: (line: string) => void lines.push(line) }),
      clock,
    });
    await exporter.firstPolls;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let loading = false;
    const withB = {
      ...(await configFrom([`--horizon.url=a=${url}`, `--horizon.url=b=${url}`, "--poll.interval=10s"])),
      logLevel: "info" as const,
    };
    const slowReload = exporter.reload(async () => {
      loading = true;
      await gate;
      return withB;
    });
    await until("the reload to be loading", () => loading || undefined);
    let closed = false;
    const closing = exporter.close().then(() => (closed = true));
    // close() waits for the reload in progress: it cannot finish while the file is still loading.
    await new Promise((done) => setImmediate(done));
    expect(closed).toBe(false);
    release();
    await Promise.all([slowReload, closing]);
    exporter = undefined;
    // The reload applied (b started) before close stopped everything, b included.
    expect(lines.filter((line) => line.includes('"configuration reloaded"'))).toEqual([
      expect.stringContaining('"started":1'),
    ]);
    const requestsAtClose = horizon.requests.length;
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(horizon.requests.length).toBe(requestsAtClose);
  });

  it("applies the web config (users, headers, certificate) and the log level", async () => {
    const cert = (name: string) => {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          join(dir, `${name}.key`),
          "-out",
          join(dir, `${name}.crt`),
          "-days",
          "1",
          "-subj",
          `/CN=${name}`,
          "-addext",
          "subjectAltName=IP:127.0.0.1",
        ],
        { stdio: "ignore" },
      );
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
    const before = await configFrom([
      `--horizon.url=t=${url}`,
      "--poll.interval=1h",
      `--web.config.file=${webConfig("before", "alice", "DENY")}`,
    ]);
    exporter = await startExporter(before, { logger });
    await exporter.firstPolls;
    const port = Number(new URL(exporter.url).port);
    const get = (user: string) =>
      new Promise<{ status: number; frame: unknown }>((resolve, reject) => {
        const auth = Buffer.from(`${user}:secret`).toString("base64");
        const req = request(
          `${exporter!.url}/metrics`,
          { headers: { Authorization: `Basic ${auth}` }, agent: false, rejectUnauthorized: false },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, frame: res.headers["x-frame-options"] }));
          },
        );
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
      `--horizon.url=t=${url}`,
      "--poll.interval=1h",
      `--web.config.file=${webConfig("after", "bob", "SAMEORIGIN")}`,
      "--log.level=debug",
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
      await until("the removed target's polls to hang", () =>
        leaving.requestCount >= requestsBefore + 4 ? true : undefined,
      );
      await exporter.reload(
        loaded(await configFrom([`--config.file=${targets("6s", false)}`, "--poll.interval=1h", "--log.level=warn"])),
      );
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
      await configFrom([
        `--horizon.url=t=${url}`,
        "--poll.interval=1h",
        `--config.file=${file("backfill.yml", "ledgers: { backfill: 10 }\n")}`,
      ]),
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
    await until(
      "two more fee_stats polls on the pattern",
      () => (horizon.requestsTo("/fee_stats").length >= 3 ? true : undefined),
      {
        timeoutMs: 5_000,
      },
    );
    expect(horizon.requestsTo("/")).toHaveLength(1);
    const page = await (await fetch(`${exporter.url}/`)).text();
    expect(page).toContain("* * * * * *");
  });
});

describe("a runtime's lifetime bounds everything it started", () => {
  const FUNDS = 10_000n * 10_000_000n;

  /** A simulator with a funded probe account, and a config file probing it every 10 s. */
  async function probeSetup(clock: ManualClock): Promise<{
    simulator: RunningSimulator;
    config: (timeout: string) => Promise<ExporterConfig>;
    sequence: () => bigint;
  }> {
    // The simulator's ledgers close on the test's clock, so the probe's time bounds match them.
    const simulator = await startSimulator({
      networkPassphrase: Networks.TESTNET,
      ledgerIntervalMs: 100,
      now: () => clock.now(),
    });
    const signer = Keypair.random();
    simulator.simulator.accounts.add(
      { id: signer.publicKey(), balance: FUNDS },
      simulator.simulator.latestLedgerPoint(),
    );
    const secret = file("probe.secret", `${signer.secret()}\n`);
    chmodSync(secret, 0o600);
    const config = (timeout: string) =>
      configFrom([
        `--config.file=${file(`probe-${timeout}.yml`, `targets:\n  - name: sim\n    url: ${simulator.url}\n    timeout: ${timeout}\n    tx_probe:\n      secret_file: ${secret}\n      interval: 10s\n`)}`,
        "--poll.interval=1h",
      ]);
    return { simulator, config, sequence: () => simulator.simulator.accounts.get(signer.publicKey())!.sequence };
  }

  it("close during a probe target's first polls leaves no probe: nothing scheduled, nothing submitted", async () => {
    const clock = new ManualClock();
    const { simulator, config, sequence } = await probeSetup(clock);
    try {
      exporter = await startExporter(await config("5s"), { logger: pino({ level: "silent" }), clock });
      // The first polls are in flight.
      const start = sequence();
      await exporter.close();
      exporter = undefined;
      expect(clock.pendingTimers).toBe(0);
      await clock.advance(60_000);
      expect(sequence()).toBe(start);
    } finally {
      await simulator.close();
    }
  });

  it("a reload during a probe target's first polls leaves exactly one probe submitting, each submission counted once", async () => {
    const clock = new ManualClock();
    const { simulator, config, sequence } = await probeSetup(clock);
    try {
      exporter = await startExporter(await config("5s"), { logger: pino({ level: "silent" }), clock });
      // The first polls are in flight: the target changes, so its runtime is replaced.
      await exporter.reload(loaded(await config("6s")));
      await exporter.idle();
      const start = sequence();
      const submissions = async () =>
        valueOf(
          parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text()),
          "stellar_horizon_tx_probe_submissions_total",
          { horizon: "sim" },
        );
      expect(await submissions()).toBe(0);
      for (const period of [1, 2, 3]) {
        // The tick alone runs the probe: a leaked second probe would move the sequence twice.
        await clock.advance(10_000);
        await until(`submission ${period} in a ledger`, async () => {
          // The next ledger closes (and takes the submission in) once the clock moves on.
          await clock.advance(100);
          return sequence() === start + BigInt(period) ? true : undefined;
        });
        // Counted once, when the run's answer came: never ahead of the ledger, never twice.
        await until(`submission ${period} counted`, async () => ((await submissions()) === period ? true : undefined));
      }
      const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
      expect(valueOf(values, "stellar_horizon_tx_probe_failures_total", { horizon: "sim", reason: "tx_bad_seq" })).toBe(
        0,
      );
    } finally {
      await exporter?.close();
      exporter = undefined;
      await simulator.close();
    }
  });

  it("a reload whose new runtime cannot be built changes nothing: every running target stays, polling", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    const url = await horizon.start();
    exporter = await startExporter(await configFrom([`--horizon.url=a=${url}`, "--poll.interval=1h"]), {
      logger: pino({ level: "silent" }),
    });
    await exporter.firstPolls;
    const good = await configFrom([
      `--horizon.url=a=${url}`,
      `--horizon.url=b=${url}`,
      "--poll.interval=1h",
      "--pools.max=5",
    ]);
    // A target no loader would let through: building its client throws, after `a` (changed) would have stopped.
    const unusable = { ...good.targets[1]!.url, href: new Secret("not a url") } as TargetUrl;
    const broken: ExporterConfig = { ...good, targets: [good.targets[0]!, { ...good.targets[1]!, url: unusable }] };
    await exporter.reload(loaded(broken));
    const status = (await (await fetch(`${exporter.url}/status.json`)).json()) as {
      targets: Array<{ name: string; state: string }>;
    };
    expect(status.targets.map(({ name, state }) => ({ name, state }))).toEqual([{ name: "a", state: "up" }]);
    horizon.addLedgers(2);
    await exporter.pollAll();
    const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
    expect(valueOf(values, "stellar_horizon_exporter_config_last_reload_successful")).toBe(0);
    expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "a" })).toBe(3);
  });

  it("a global setting restarts only the jobs it affects: pools.max restarts the pools poll, the ledger counters carry on", async () => {
    horizon = new FakeHorizon();
    horizon.addLedgers(3);
    for (let index = 1; index <= 8; index += 1) horizon.pools.push(makePool(index));
    const url = await horizon.start();
    exporter = await startExporter(
      await configFrom([`--horizon.url=a=${url}`, "--poll.interval=1h", "--pools.max=5"]),
      { logger: pino({ level: "silent" }) },
    );
    await exporter.firstPolls;
    horizon.addLedgers(2);
    await exporter.pollAll();
    const scrape = async () => parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
    expect(valueOf(await scrape(), "stellar_horizon_ledgers_total", { horizon: "a" })).toBe(3);
    const rootPolls = horizon.requestsTo("/").length;

    await exporter.reload(loaded(await configFrom([`--horizon.url=a=${url}`, "--poll.interval=1h", "--pools.max=7"])));
    await exporter.idle();
    let values = await scrape();
    // The pools poll restarted at once with the new cap; root was not polled again, the ledger counters kept.
    expect(valueOf(values, "stellar_horizon_liquidity_pools", { horizon: "a" })).toBe(7);
    expect(horizon.requestsTo("/")).toHaveLength(rootPolls);
    expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "a" })).toBe(3);
    horizon.addLedgers(1);
    await exporter.pollAll();
    values = await scrape();
    expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "a" })).toBe(4);
  });
});

describe("recovery after an outage", () => {
  it("once the upstream heals, every endpoint has fresh data within one poll period, however long it backed off", async () => {
    const hostile = new HostileHorizon();
    hostile.healthy.addLedgers(5);
    const url = await hostile.start();
    try {
      const clock = new ManualClock();
      // No retries: each poll is one answered request, so a tick's polls end without the clock moving.
      const noRetries = file("no-retries.yml", "http: { retries: 0 }\n");
      exporter = await startExporter(
        await configFrom([`--horizon.url=h=${url}`, "--poll.interval=5s", `--config.file=${noRetries}`]),
        {
          logger: pino({ level: "silent" }),
          clock,
        },
      );
      await exporter.firstPolls;
      const polls = async () =>
        (await (await fetch(`${exporter!.url}/status.json`)).json()) as {
          targets: Array<{ endpoints: Array<{ endpoint: string; state: string; lastSuccessAt?: string }> }>;
        };
      // 40 s of 5xx: the endpoints other than root back off, further and further.
      hostile.misbehaviour = reply(503, "unavailable");
      const pass = async (seconds: number) => {
        for (let second = 0; second < seconds; second += 1) {
          await clock.advance(1_000);
          await exporter!.idle();
        }
      };
      await pass(40);
      await until("every endpoint failing", async () =>
        (await polls()).targets[0]!.endpoints.every(({ state }) => state === "failing") ? true : undefined,
      );
      hostile.misbehaviour = undefined;
      const healedMs = clock.now();
      const fresh = async () => {
        const { endpoints } = (await polls()).targets[0]!;
        return endpoints.every(({ state, lastSuccessAt }) => state === "ok" && Date.parse(lastSuccessAt!) > healedMs)
          ? true
          : undefined;
      };
      // Within one period root polls, finds Horizon healthy, and the others retry at once.
      await pass(5);
      await until("every endpoint polled again", fresh, { timeoutMs: 5_000 });
      expect(clock.now() - healedMs).toBeLessThanOrEqual(5_000);
      const values = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text());
      expect(valueOf(values, "stellar_horizon_up", { horizon: "h" })).toBe(1);
      expect(valueOf(values, "stellar_horizon_ledger_sequence", { horizon: "h" })).toBe(5);
    } finally {
      await exporter?.close();
      exporter = undefined;
      await hostile.stop();
    }
  });
});
