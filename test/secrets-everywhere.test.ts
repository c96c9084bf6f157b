/**
 * Planted secrets against every surface, as blackbox_exporter's handler tests do: a Horizon and a
 * Stellar RPC behind a loopback gateway that wants each credential where a hosted provider wants
 * it (userinfo, a token path segment, a query key, a header), a probe seed, a web config password.
 * The exporter runs as the CLI does, at trace level, through polls, failures whose error pages
 * echo the request, redirects to the same and to another origin, good and bad reloads of both
 * files, and error exits; no secret's bytes may appear in anything it writes or serves, nor in
 * what the other origin receives.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair, Networks } from "@stellar/stellar-base";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RPC_PATH, startSimulator, type RunningSimulator } from "../src/simulator/index.js";
import { expectExit, runCli, spawnCli, startedUrl, type CliProcess } from "./support/cli-process.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { until } from "./support/wait.js";

const HORIZON = {
  user: "hzuser-PLANTED",
  password: "hzpass-PLANTED-1a2b",
  token: "hztokenPLANTED0123456789",
  queryKey: "hzqueryPLANTED42",
  header: "hzheaderPLANTED77",
  rotatedHeader: "hzheaderPLANTEDrotated",
};
const RPC = {
  user: "rpcuser-PLANTED",
  password: "rpcpass-PLANTED-3c4d",
  token: "rpctokenPLANTED9876543210",
  queryKey: "rpcqueryPLANTED24",
  header: "rpcheaderPLANTED88",
};
const PROBE = Keypair.random();
const WEB = { user: "prometheus", password: "webpass-PLANTED-old", rotated: "webpass-PLANTED-new" };
const WEB_HASH = bcrypt.hashSync(WEB.password, 4);
const WEB_ROTATED_HASH = bcrypt.hashSync(WEB.rotated, 4);
const basic = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString("base64");

/** Every byte string that must never leave: the secrets, and the forms they travel in. */
const SECRETS = [
  ...Object.values(HORIZON),
  ...Object.values(RPC),
  PROBE.secret(),
  WEB.password,
  WEB.rotated,
  WEB_HASH,
  WEB_ROTATED_HASH,
  basic(HORIZON.user, HORIZON.password),
  basic(RPC.user, RPC.password),
];

function leaksIn(what: string, text: string): string[] {
  return SECRETS.flatMap((secret) => [secret, encodeURIComponent(secret)])
    .filter((form) => text.includes(form))
    .map((form) => `${what} holds ${form}`);
}

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function received(handler: (seen: Seen, response: ServerResponse) => void): Server {
  return createServer((incoming, response) => {
    let body = "";
    incoming.on("data", (chunk: Buffer) => (body += chunk.toString()));
    incoming.on("end", () =>
      handler({ method: incoming.method!, url: incoming.url!, headers: incoming.headers, body }, response),
    );
  });
}

type Mode = "pass" | "fail" | "redirect";

/**
 * A hosted provider's front: it forwards to the simulator only requests that carry every
 * credential where it belongs; its error pages echo the request, as careless servers do.
 */
class Gateway {
  mode: Mode = "pass";
  readonly horizonHeaders = new Set([HORIZON.header]);
  readonly seen: Seen[] = [];
  readonly refused: Seen[] = [];
  url = "";
  private rpcRedirects = 0;
  private readonly server = received((seen, response) => this.handle(seen, response));

  constructor(
    private readonly simulator: () => string,
    private readonly elsewhere: () => string,
  ) {}

  async start(): Promise<string> {
    this.url = await listening(this.server);
    return this.url;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }

  private handle(seen: Seen, response: ServerResponse): void {
    this.seen.push(seen);
    const url = new URL(seen.url, this.url);
    const horizon = url.pathname.startsWith(`/${HORIZON.token}/`);
    const credentials = horizon ? HORIZON : RPC;
    const [query, header] = horizon ? ["apikey", "x-api-key"] : ["key", "x-rpc-key"];
    const accepted = horizon ? this.horizonHeaders : new Set([RPC.header]);
    const authorized =
      url.pathname.startsWith(`/${credentials.token}/`) &&
      url.searchParams.get(query) === credentials.queryKey &&
      seen.headers.authorization === `Basic ${basic(credentials.user, credentials.password)}` &&
      accepted.has(String(seen.headers[header]));
    if (!authorized || this.mode === "fail") {
      if (!authorized) this.refused.push(seen);
      response.writeHead(authorized ? 500 : 401, { "Content-Type": "text/plain" });
      // The credential first: an excerpt of the page shows its first 160 characters.
      response.end(
        `${seen.headers.authorization}: cannot ${seen.method} ${seen.url} with ${JSON.stringify(seen.headers)}`,
      );
      return;
    }
    let path = url.pathname.slice(credentials.token.length + 1).replace(/^\/moved\//, "/");
    if (this.mode === "redirect" && !url.pathname.includes("/moved/")) {
      const sameOrigin = horizon ? path === "/fee_stats" : this.rpcRedirects++ % 2 === 0;
      const crossOrigin = horizon ? path === "/" : !sameOrigin;
      const location = sameOrigin
        ? `/${credentials.token}/moved${path}${url.search}`
        : crossOrigin
          ? `${this.elsewhere()}/moved`
          : undefined;
      if (location !== undefined) {
        response.writeHead(307, { Location: location }).end();
        return;
      }
    }
    url.searchParams.delete(query);
    if (!horizon) path = RPC_PATH;
    const { authorization, host, [header]: _, ...headers } = seen.headers;
    const forwarded = request(`${this.simulator()}${path}${url.search}`, { method: seen.method, headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
    });
    forwarded.on("error", () => response.writeHead(502).end());
    forwarded.end(seen.body);
  }
}

let simulator: RunningSimulator;
const elsewhereSeen: Seen[] = [];
const elsewhere = received((seen, response) => {
  elsewhereSeen.push(seen);
  response.writeHead(401, { "Content-Type": "text/plain" }).end("this origin wants a key of its own");
});
let elsewhereUrl = "";
const gateway = new Gateway(
  () => simulator.url,
  () => elsewhereUrl,
);
const directory = mkdtempSync(join(tmpdir(), "she-secrets-"));
const configFile = join(directory, "config.yml");
const webConfigFile = join(directory, "web.yml");
/** Everything written and served, by where it came from. */
const collected: [string, string][] = [];

function horizonUrl(): string {
  return `http://${HORIZON.user}:${HORIZON.password}@${gateway.url.slice("http://".length)}/${HORIZON.token}/?apikey=${HORIZON.queryKey}`;
}

function rpcUrl(): string {
  return `http://${RPC.user}:${RPC.password}@${gateway.url.slice("http://".length)}/${RPC.token}/rpc?key=${RPC.queryKey}`;
}

function config(horizonHeader: string, extra = ""): string {
  return `poll_interval: 1s
log: { level: trace }
targets:
  - name: hz
    url: ${horizonUrl()}
    headers: { X-Api-Key: ${horizonHeader} }
    tx_probe: { secret_env: PROBE_SEED, interval: 2s }
${extra}rpc_targets:
  - name: rpc
    url: ${rpcUrl()}
    headers: { X-Rpc-Key: ${RPC.header} }
`;
}

function webConfig(hash: string): string {
  return `basic_auth_users:\n  ${WEB.user}: "${hash}"\n`;
}

beforeAll(async () => {
  simulator = await startSimulator({ networkPassphrase: Networks.TESTNET, ledgerIntervalMs: 1_000 });
  simulator.simulator.accounts.add(
    { id: PROBE.publicKey(), balance: 10_000n * 10_000_000n },
    simulator.simulator.latestLedgerPoint(),
  );
  elsewhereUrl = await listening(elsewhere);
  await gateway.start();
});

afterAll(async () => {
  elsewhere.closeAllConnections();
  await Promise.all([gateway.stop(), new Promise((done) => elsewhere.close(done)), simulator.close()]);
});

/** A running exporter's pages, read as a scraper with the current password would. */
function pages(cli: CliProcess, password: () => string) {
  const base = () => startedUrl(cli.output())!;
  const get = async (path: string, secret = password()) => {
    const response = await fetch(`${base()}${path}`, {
      headers: { Authorization: `Basic ${basic(WEB.user, secret)}` },
    });
    const text = await response.text();
    collected.push([`GET ${path}`, text]);
    return { status: response.status, text };
  };
  const metrics = async () => parseExposition((await get("/metrics")).text);
  return { get, metrics };
}

/** The sum of a family's series whose labels include `labels`. */
function total(series: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of series) {
    if (!key.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, wanted]) => key.includes(`${label}="${wanted}"`))) sum += value;
  }
  return sum;
}

/** The CLI, its stderr kept too. */
function started(args: string[], env: NodeJS.ProcessEnv): CliProcess & { stderr(): string } {
  const cli = spawnCli(args, env);
  let stderr = "";
  cli.child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { ...cli, stderr: () => stderr };
}

async function stopped(cli: ReturnType<typeof started>, what: string): Promise<void> {
  cli.child.kill("SIGTERM");
  expect(await cli.exited).toBe(0);
  collected.push([`${what} stdout`, cli.output()], [`${what} stderr`, cli.stderr()]);
}

it("no secret reaches logs at trace level, pages, metrics, error exits or another origin", async () => {
  writeFileSync(configFile, config(HORIZON.header));
  writeFileSync(webConfigFile, webConfig(WEB_HASH));
  const env = { PROBE_SEED: PROBE.secret() };
  const exporter = started(
    [`--config.file=${configFile}`, `--web.config.file=${webConfigFile}`, "--web.listen-address=127.0.0.1:0"],
    env,
  );
  const { get, metrics } = pages(exporter, () => WEB.password);
  try {
    await until("the start line", () => startedUrl(exporter.output()), { timeoutMs: 30_000 });

    // Polls and the probe, every credential in place.
    await until(
      "both targets up and a probe submission",
      async () => {
        const series = await metrics();
        return valueOf(series, "stellar_horizon_up", { horizon: "hz" }) === 1 &&
          valueOf(series, "stellar_rpc_up", { rpc: "rpc" }) === 1 &&
          total(series, "stellar_horizon_tx_probe_submissions_total") > 0
          ? true
          : undefined;
      },
      { timeoutMs: 45_000 },
    );
    expect(gateway.refused).toEqual([]);
    expect((await get("/")).text).toContain(`${gateway.url}/…`);
    expect(JSON.parse((await get("/status.json")).text).targets.map((target: { url: string }) => target.url)).toEqual([
      `${gateway.url}/…`,
      `${gateway.url}/…`,
    ]);

    // Failures whose error pages echo the URL and the headers.
    gateway.mode = "fail";
    await until(
      "failed polls of both targets",
      async () => {
        const series = await metrics();
        return total(series, "stellar_horizon_exporter_poll_errors_total", { reason: "http_5xx" }) > 0 &&
          total(series, "stellar_horizon_exporter_rpc_poll_errors_total", { reason: "http_5xx" }) > 0
          ? true
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect((await get("/status.json")).text).toContain("cannot GET /<secret>/");

    // Redirects: to the same origin with every credential, to another origin with none.
    gateway.mode = "redirect";
    const redirectsFrom = gateway.seen.length;
    await until(
      "redirects followed to both origins by both targets",
      () => {
        const moved = gateway.seen.slice(redirectsFrom).filter((seen) => seen.url.includes("/moved/"));
        const hosts = new Set(moved.map((seen) => (seen.url.startsWith(`/${HORIZON.token}/`) ? "hz" : "rpc")));
        const methods = new Set(elsewhereSeen.map((seen) => seen.method));
        return hosts.size === 2 && methods.has("GET") && methods.has("POST") ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(gateway.refused).toEqual([]);
    expect(elsewhereSeen.find((seen) => seen.method === "POST")!.body).toContain('"jsonrpc":"2.0"');
    gateway.mode = "pass";

    // A good reload rotates the header; a bad one is refused and says so without a secret.
    gateway.horizonHeaders.add(HORIZON.rotatedHeader);
    writeFileSync(configFile, config(HORIZON.rotatedHeader));
    const rotatedFrom = gateway.seen.length;
    exporter.child.kill("SIGHUP");
    await until("the rotated header in use", () =>
      gateway.seen.slice(rotatedFrom).some((seen) => seen.headers["x-api-key"] === HORIZON.rotatedHeader)
        ? true
        : undefined,
    );
    gateway.horizonHeaders.delete(HORIZON.header);
    writeFileSync(configFile, config(HORIZON.rotatedHeader, `    accounts: [{ id: ${PROBE.secret()} }]\n`));
    exporter.child.kill("SIGHUP");
    await until("the rejected reload", async () =>
      valueOf(await metrics(), "stellar_horizon_exporter_config_last_reload_successful") === 0 &&
      exporter
        .output()
        .includes("targets[0].accounts[0].id: that is a secret seed, not an account id: give its public key (G...)")
        ? true
        : undefined,
    );
    writeFileSync(configFile, config(HORIZON.rotatedHeader));
    exporter.child.kill("SIGHUP");
    await until(
      "a good reload again, both targets up",
      async () => {
        const series = await metrics();
        return valueOf(series, "stellar_horizon_exporter_config_last_reload_successful") === 1 &&
          valueOf(series, "stellar_horizon_up", { horizon: "hz" }) === 1 &&
          valueOf(series, "stellar_rpc_up", { rpc: "rpc" }) === 1
          ? true
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    await get("/");
    await get("/status.json");
    // Logging at trace: the probe's debug lines are there too.
    expect(exporter.output()).toMatch(/"level":20,.*"msg":"transaction probe succeeded"/);
  } finally {
    await stopped(exporter, "exporter");
  }

  // Flags only: the web config is re-read on SIGHUP all the same, and a bad one is refused.
  let password = WEB.password;
  const flagsOnly = started(
    [
      `--horizon.url=hz=${horizonUrl()}`,
      `--rpc.url=rpc=${rpcUrl()}`,
      `--web.config.file=${webConfigFile}`,
      "--web.listen-address=127.0.0.1:0",
      "--log.level=trace",
    ],
    env,
  );
  const flagPages = pages(flagsOnly, () => password);
  try {
    writeFileSync(webConfigFile, webConfig(WEB_HASH));
    await until("the start line", () => startedUrl(flagsOnly.output()), { timeoutMs: 30_000 });
    await until("the landing page", async () => ((await flagPages.get("/")).status === 200 ? true : undefined));
    writeFileSync(webConfigFile, webConfig(WEB_ROTATED_HASH));
    flagsOnly.child.kill("SIGHUP");
    await until("the rotated password", async () =>
      (await flagPages.get("/metrics", WEB.rotated)).status === 200 ? true : undefined,
    );
    expect((await flagPages.get("/metrics", WEB.password)).status).toBe(401);
    password = WEB.rotated;
    writeFileSync(webConfigFile, `basic_auth_users:\n  ${WEB.user}: ${WEB.password}\n`);
    flagsOnly.child.kill("SIGHUP");
    await until("the rejected web config", async () =>
      valueOf(await flagPages.metrics(), "stellar_horizon_exporter_config_last_reload_successful") === 0
        ? true
        : undefined,
    );
    expect((await flagPages.get("/metrics")).status).toBe(200);
    await flagPages.get("/status.json");
  } finally {
    await stopped(flagsOnly, "flags-only exporter");
  }

  // Error exits, each with every secret it can hold.
  const seedConfig = join(directory, "seed.yml");
  writeFileSync(
    seedConfig,
    `targets:\n  - url: ${horizonUrl()}\n    accounts: [{ name: hot, id: ${PROBE.secret()} }]\n`,
  );
  const unsetConfig = join(directory, "unset.yml");
  writeFileSync(
    unsetConfig,
    `targets:\n  - url: ${horizonUrl()}\n    headers: { X-Api-Key: ${HORIZON.header} }\n    tx_probe: { secret_env: UNSET_PLANTED_VAR }\n`,
  );
  const badWeb = join(directory, "bad-web.yml");
  writeFileSync(badWeb, `basic_auth_users:\n  ${WEB.user}: ${WEB.password}\n`);
  const taken = await listening(createServer());
  const exits: [string[], number, string[]][] = [
    [
      [
        `--horizon.url=ftp://${HORIZON.user}:${HORIZON.password}@example.com/${HORIZON.token}/?apikey=${HORIZON.queryKey}`,
      ],
      2,
      [],
    ],
    [[`--rpc.url=${RPC.user}:${RPC.password}@example.com/${RPC.token}?key=${RPC.queryKey}`], 2, []],
    [
      [`--horizon.url=${horizonUrl()}`, `--account=hot=${PROBE.secret()}`],
      2,
      ["stellar-horizon-exporter: --account: that is a secret seed, not an account id: give its public key (G...)"],
    ],
    [
      [`--config.file=${seedConfig}`],
      2,
      [
        `stellar-horizon-exporter: ${seedConfig}:3: targets[0].accounts[0].id: that is a secret seed, not an account id: give its public key (G...)`,
      ],
    ],
    [
      [`--config.file=${unsetConfig}`],
      2,
      [
        `stellar-horizon-exporter: target "${gateway.url.slice("http://".length)}": tx_probe.secret_env UNSET_PLANTED_VAR: the environment variable is not set`,
      ],
    ],
    [[`--horizon.url=${horizonUrl()}`, `--web.config.file=${badWeb}`], 2, []],
    [[`--config.file=${configFile}`, `--web.listen-address=${taken.slice("http://".length)}`], 1, []],
  ];
  for (const [args, code, lines] of exits) {
    const result = runCli([...args, "--log.level=trace"], env);
    collected.push([`exit of ${args.length} flags: stdout`, result.stdout], [`exit: stderr`, result.stderr]);
    expectExit(result, code);
    for (const line of lines) expect(result.stderr.split("\n")).toContain(line);
  }

  // The secrets were in use: the gateway saw each where it belongs.
  const sent = JSON.stringify(gateway.seen);
  for (const secret of [
    HORIZON.token,
    HORIZON.queryKey,
    HORIZON.header,
    HORIZON.rotatedHeader,
    RPC.token,
    RPC.queryKey,
    RPC.header,
  ]) {
    expect(sent).toContain(secret);
  }
  const leaks = [
    ...collected.flatMap(([what, text]) => leaksIn(what, text)),
    ...elsewhereSeen.flatMap((seen) => leaksIn(`the other origin's ${seen.method} ${seen.url}`, JSON.stringify(seen))),
  ];
  expect(leaks).toEqual([]);
  expect(collected.map(([, text]) => text).join("")).toContain("<secret>");
}, 240_000);
