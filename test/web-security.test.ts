import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { connect } from "node:tls";
import bcrypt from "bcryptjs";
import { Hono } from "hono";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.js";
import { loadWebConfig } from "../src/config/web-config.js";
import { startExporter, type RunningExporter } from "../src/exporter.js";
import { basicAuth, protection, type PasswordCompare } from "../src/server/protection.js";
import { configFrom } from "./support/exporter-harness.js";
import { FakeHorizon } from "./support/fake-horizon.js";

const dir = mkdtempSync(join(tmpdir(), "she-web-"));
execFileSync(
  "openssl",
  [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem"),
    "-days",
    "1",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ],
  { stdio: "ignore" },
);
const CA = execFileSync("cat", [join(dir, "cert.pem")]);

function writeWebConfig(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(url: string, auth?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      // A fresh connection each time: a kept-alive socket the server closes as it idles hangs up the next request.
      { ca: CA, agent: false, headers: auth ? { Authorization: `Basic ${Buffer.from(auth).toString("base64")}` } : {} },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("TLS and basic auth from a web config file", () => {
  const horizon = new FakeHorizon();
  let exporter: RunningExporter;

  beforeAll(async () => {
    const hash = bcrypt.hashSync("right password", 8);
    const path = writeWebConfig(
      "web.yml",
      `tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  min_version: TLS12\nhttp_server_config:\n  headers:\n    Strict-Transport-Security: max-age=31536000\nbasic_auth_users:\n  alice: "${hash}"\n`,
    );
    const config = await configFrom([
      `--horizon.url=t=${await horizon.start()}`,
      `--web.config.file=${path}`,
      "--poll.interval=1h",
    ]);
    exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
    await exporter.firstPolls;
  });
  afterAll(async () => {
    await exporter.close();
    await horizon.stop();
  });

  it("serves https only to the right credentials", async () => {
    expect(exporter.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await get(`${exporter.url}/metrics`)).status).toBe(401);
    expect((await get(`${exporter.url}/metrics`, "alice:wrong")).status).toBe(401);
    expect((await get(`${exporter.url}/metrics`, "mallory:right password")).status).toBe(401);
    const denied = await get(`${exporter.url}/`);
    expect(denied.headers["www-authenticate"]).toMatch(/^Basic realm=/);
    const allowed = await get(`${exporter.url}/metrics`, "alice:right password");
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain('stellar_horizon_up{horizon="t"} 1');
    expect(allowed.headers["strict-transport-security"]).toBe("max-age=31536000");
    expect(allowed.headers["x-content-type-options"]).toBe("nosniff");
    expect(allowed.headers["x-frame-options"]).toBe("DENY");
    expect((await get(`${exporter.url}/healthz`)).status).toBe(200);
    expect((await get(`${exporter.url}/readyz`)).status).not.toBe(401);
  });

  it("refuses plain HTTP and TLS below the minimum version", async () => {
    const port = new URL(exporter.url).port;
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
    const handshake = await new Promise<string>((resolve) => {
      const socket = connect({
        host: "127.0.0.1",
        port: Number(port),
        ca: CA,
        maxVersion: "TLSv1.1",
        minVersion: "TLSv1",
      });
      socket.on("secureConnect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.on("error", (error) => resolve(error.message));
    });
    expect(handshake).not.toBe("connected");
  });
});

describe("basic auth", () => {
  const hash = bcrypt.hashSync("right password", 6);
  const authorization = (credentials: string) => ({
    Authorization: `Basic ${Buffer.from(credentials).toString("base64")}`,
  });
  function protectedApp() {
    const compared: string[] = [];
    const compare: PasswordCompare = (password, against) => {
      compared.push(against);
      return bcrypt.compare(password, against);
    };
    const app = new Hono();
    const gate = basicAuth({ alice: hash }, compare);
    app.use(protection(() => ({ headers: {}, gate })));
    app.get("*", (c) => c.text("data\n"));
    return { app, compared };
  }

  it("checks an unknown user against a dummy hash of the same cost as a known user's", async () => {
    const { app, compared } = protectedApp();
    expect((await app.request("/metrics", { headers: authorization("mallory:right password") })).status).toBe(401);
    expect((await app.request("/metrics", { headers: authorization("alice:wrong") })).status).toBe(401);
    expect(compared).toHaveLength(2);
    const [dummy, known] = compared;
    expect(known).toBe(hash);
    expect(dummy).not.toBe(hash);
    expect(bcrypt.getRounds(dummy!)).toBe(bcrypt.getRounds(hash));
    // A hash bcrypt can check, which no password matches: the check costs as much as a known user's.
    await expect(bcrypt.compare("right password", dummy!)).resolves.toBe(false);
  });

  it("makes the dummy hash without running bcrypt, which would block the event loop at the users' cost", async () => {
    // A real hash of "pw" at cost 13: bcrypt.hashSync at that cost takes most of a second.
    const costly = "$2b$13$1Jm1AmkIxT0eWgknOG0ncuzJZ3F8TH9PqVqIfAW/RQ7HRiUfFXDS2";
    const compared: string[] = [];
    const started = performance.now();
    const gate = basicAuth({ alice: costly }, async (_password, against) => {
      compared.push(against);
      return false;
    });
    expect(await gate("/metrics", authorization("mallory:pw").Authorization)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
    expect(compared.map((dummy) => bcrypt.getRounds(dummy))).toEqual([13]);
  });

  it("refuses a request that gives no user and password at once, without a bcrypt check", async () => {
    const { app, compared } = protectedApp();
    const headers = [{}, { Authorization: "Bearer token" }, authorization("no separator"), { Authorization: "Basic" }];
    for (const header of headers) expect((await app.request("/metrics", { headers: header })).status).toBe(401);
    expect(compared).toEqual([]);
    expect((await app.request("/metrics", { headers: authorization(":") })).status).toBe(401);
    expect(compared).toHaveLength(1);
  });

  it("runs bcrypt once per user and password, then answers from its cache", async () => {
    const { app, compared } = protectedApp();
    for (let i = 0; i < 3; i += 1)
      expect((await app.request("/metrics", { headers: authorization("alice:right password") })).status).toBe(200);
    expect(compared).toEqual([hash]);
  });

  it("keeps verified credentials across a reload, unless the user's hash changed", async () => {
    const compared: string[] = [];
    const compare: PasswordCompare = (password, against) => {
      compared.push(password);
      return bcrypt.compare(password, against);
    };
    const verified = new Map<string, Buffer>();
    const right = authorization("alice:right password").Authorization;
    expect(await basicAuth({ alice: hash }, compare, verified)("/metrics", right)).toBe(true);
    expect(await basicAuth({ alice: hash }, compare, verified)("/metrics", right)).toBe(true);
    expect(compared).toEqual(["right password"]);
    const rotated = bcrypt.hashSync("new password", 6);
    expect(await basicAuth({ alice: rotated }, compare, verified)("/metrics", right)).toBe(false);
    expect(compared).toEqual(["right password", "right password"]);
  });

  it("runs one bcrypt check at a time, however many requests with unverified credentials arrive together", async () => {
    let running = 0;
    let mostAtOnce = 0;
    const compared: string[] = [];
    const compare: PasswordCompare = async (password, against) => {
      compared.push(password);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        return await bcrypt.compare(password, against);
      } finally {
        running -= 1;
      }
    };
    const app = new Hono();
    const gate = basicAuth({ alice: hash }, compare);
    app.use(protection(() => ({ headers: {}, gate })));
    app.get("*", (c) => c.text("data\n"));
    const passwords = Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? `wrong ${index}` : "right password"));
    const statuses = await Promise.all(
      passwords.map(async (password) => {
        const answer = await app.request("/metrics", { headers: authorization(`alice:${password}`) });
        return answer.status;
      }),
    );
    expect(statuses).toEqual(passwords.map((password) => (password === "right password" ? 200 : 401)));
    expect(mostAtOnce).toBe(1);
    // The right password waited in line behind its first check, and then found it verified.
    expect(compared).toEqual(["wrong 0", "right password", "wrong 2", "wrong 4", "wrong 6"]);
  });

  it.each([
    ["version $2x$", `$2x$10$${hash.slice(7)}`],
    ["cost 03", `$2y$03$${hash.slice(7)}`],
  ])("counts a hash of %s, which bcrypt rejects, as a failed login (401), not a 500", async (_what, unusable) => {
    const app = new Hono();
    const gate = basicAuth({ alice: unusable });
    app.use(protection(() => ({ headers: {}, gate })));
    app.get("*", (c) => c.text("data\n"));
    expect((await app.request("/metrics", { headers: authorization("alice:right password") })).status).toBe(401);
  });

  it.each(["/healthz", "/readyz"])("serves the probe path %s without credentials", async (path) => {
    const { app, compared } = protectedApp();
    expect((await app.request(path)).status).toBe(200);
    expect(compared).toEqual([]);
  });
});

describe("invalid web config files", () => {
  it.each([
    ["missing", undefined, /cannot be read \(ENOENT\)/],
    ["bad-hash.yml", "basic_auth_users:\n  bob: plaintext\n", /basic_auth_users\.bob: expected a bcrypt hash/],
    [
      "unknown-key.yml",
      "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  client_ca_file: ca.pem\n",
      /unknown-key\.yml:4: tls_server_config\.client_ca_file: unknown key$/,
    ],
    [
      "no-cert.yml",
      "tls_server_config:\n  cert_file: nope.pem\n  key_file: key.pem\n",
      /cert_file: cannot read nope.pem \(ENOENT\)/,
    ],
    ["mismatch.yml", "tls_server_config:\n  cert_file: cert.pem\n  key_file: cert.pem\n", /do not work together/],
    [
      "max-below-default-min.yml",
      "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  max_version: TLS11\n",
      /max-below-default-min\.yml:4: tls_server_config\.max_version: below min_version \(TLS12 when not given\): no client could connect$/,
    ],
    [
      "max-below-min.yml",
      "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  min_version: TLS13\n  max_version: TLS12\n",
      /max-below-min\.yml:5: tls_server_config\.max_version: below min_version/,
    ],
  ])("%s", async (name, text, problem) => {
    const path = text === undefined ? join(dir, name) : writeWebConfig(name, text);
    const command = await loadConfig(["--horizon.url=http://127.0.0.1:2", `--web.config.file=${path}`], {});
    expect(command).toMatchObject({ kind: "invalid", problems: [expect.stringMatching(problem)] });
  });
});

describe("TLS versions in a web config file", () => {
  it.each([
    ["TLS10", "TLS11"],
    ["TLS12", "TLS12"],
    [undefined, "TLS13"],
  ])("accepts min_version %s with max_version %s", async (min, max) => {
    const versions = `${min === undefined ? "" : `  min_version: ${min}\n`}  max_version: ${max}\n`;
    const path = writeWebConfig(
      "versions.yml",
      `tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n${versions}`,
    );
    const problems: string[] = [];
    expect((await loadWebConfig(path, problems))?.tls?.maxVersion).toMatch(/^TLSv1\.[1-3]$/);
    expect(problems).toEqual([]);
  });
});

describe("bcrypt hashes in a web config file", () => {
  const body = bcrypt.hashSync("right password", 4).slice(7);
  const load = async (hash: string) => {
    const path = writeWebConfig("hashes.yml", `basic_auth_users:\n  bob: "${hash}"\n`);
    const problems: string[] = [];
    return { path, web: await loadWebConfig(path, problems), problems };
  };

  it.each([
    ["version $2x$", `$2x$10$${body}`],
    ["version $2$ (bcryptjs never matches it)", `$2$10$${body}`],
    ["cost 03", `$2y$03$${body}`],
    ["cost 32", `$2b$32$${body}`],
    // The unknown user's dummy hash at this cost took hours.
    ["cost 40", `$2y$40$${body}`],
  ])("refuses a hash of %s at load, without quoting it", async (_what, hash) => {
    const { path, web, problems } = await load(hash);
    expect(web).toBeUndefined();
    expect(problems).toEqual([
      `${path}:2: basic_auth_users.bob: expected a bcrypt hash of version $2a$, $2b$ or $2y$ with a cost from 04 to 31`,
    ]);
  });

  it.each(["$2a$04$", "$2b$31$", "$2y$10$"])("accepts a hash starting %s", async (start) => {
    const { web, problems } = await load(`${start}${body}`);
    expect(problems).toEqual([]);
    expect(web?.basicAuthUsers.bob).toBeDefined();
  });
});

describe("response headers from a web config file", () => {
  // A value that cannot be sent would make every answer, probes included, a 500.
  it.each([
    ["a line break (a YAML block scalar)", "|\n      default-src 'none';\n      style-src 'unsafe-inline'"],
    ["a character HTTP cannot carry", `"default-src 'none' \u2026"`],
    ["a NUL", `"default-src 'none'\\0"`],
  ])("refuses a value with %s at load, naming the header but not quoting the value", async (_what, value) => {
    const path = writeWebConfig(
      "headers.yml",
      `http_server_config:\n  headers:\n    Content-Security-Policy: ${value}\n`,
    );
    const problems: string[] = [];
    expect(await loadWebConfig(path, problems)).toBeUndefined();
    expect(problems).toEqual([
      `${path}:3: http_server_config.headers.Content-Security-Policy: ` +
        "a header value takes visible ASCII characters, spaces and tabs only",
    ]);
  });

  it("accepts a value of visible ASCII characters, spaces and tabs", async () => {
    const path = writeWebConfig(
      "headers-ok.yml",
      `http_server_config:\n  headers:\n    X-Frame-Options: "SAMEORIGIN\\t "\n`,
    );
    const problems: string[] = [];
    expect((await loadWebConfig(path, problems))?.headers).toEqual({ "X-Frame-Options": "SAMEORIGIN\t " });
    expect(problems).toEqual([]);
  });
});

describe("secrets never leak", () => {
  it("keeps URL credentials and request headers out of logs, the landing page and metrics", async () => {
    const horizon = new FakeHorizon();
    const url = new URL(await horizon.start());
    horizon.faults.set("/fee_stats", { status: 500, body: "boom" });
    const configPath = join(dir, "secrets.yml");
    writeFileSync(
      configPath,
      `targets:\n  - url: http://horizon-user:url-s3cret@${url.host}\n    headers: { X-Api-Key: header-s3cret }\nhttp: { retries: 0 }\nlog: { level: trace }\n`,
    );
    let logs = "";
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => ((logs += chunk.toString()), done()) });
    const config = await configFrom([`--config.file=${configPath}`, "--poll.interval=1h", "--log.level=trace"]);
    const exporter = await startExporter(config, { logger: pino({ level: "trace" }, sink) });
    try {
      await exporter.firstPolls;
      const landing = await (await fetch(`${exporter.url}/`)).text();
      const metrics = await (await fetch(`${exporter.url}/metrics`)).text();
      expect(logs).toContain("poll failed");
      for (const text of [logs, landing, metrics]) {
        expect(text).not.toContain("url-s3cret");
        expect(text).not.toContain("header-s3cret");
        expect(text).not.toContain("horizon-user");
      }
      expect(metrics).toContain(`stellar_horizon_up{horizon="${url.host}"} 1`);
      const sent = horizon.requestHeaders[0]!;
      expect(sent.get("authorization")).toBe(`Basic ${Buffer.from("horizon-user:url-s3cret").toString("base64")}`);
      expect(sent.get("x-api-key")).toBe("header-s3cret");
      expect(sent.get("accept")).toMatch(/^application\/hal\+json/);
    } finally {
      await exporter.close();
      await horizon.stop();
    }
  });
});
