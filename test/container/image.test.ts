/**
 * The image, built from this checkout by scripts/container/test.sh (`npm run test:container`),
 * run on the Docker engine that script started, against the simulator on this host. The
 * containers share the host's network (the engine has no bridge) and listen on free loopback ports.
 */
import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.js";
import { dockerSecurityFlags, exporterPod } from "../support/kubernetes.js";
import { freePort } from "../support/free-port.js";
import { until } from "../support/wait.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const IMAGE = process.env.CONTAINER_IMAGE;
const BASE_IMAGE = process.env.BASE_IMAGE;
if (!IMAGE || !BASE_IMAGE)
  throw new Error("run by `npm run test:container`, which starts the engine and builds the image");
const MiB = 1024 * 1024;
const TLS_FIXTURES = join(ROOT, "test/fixtures/tls");
/** The Deployment of deploy/kubernetes: its security contexts and probes are what this test runs and asks. */
const POD = exporterPod();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function docker(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile("docker", args, { encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

async function dockerOk(...args: string[]): Promise<string> {
  const run = await docker(...args);
  if (run.code !== 0) throw new Error(`docker ${args.join(" ")} exited ${run.code}: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

/** GET over HTTP(S), trusting the test certificate. */
function get(url: string, auth?: string): Promise<{ status: number; body: string }> {
  const ca = readFileSync(join(TLS_FIXTURES, "localhost-cert.pem"));
  const headers = auth ? { Authorization: `Basic ${Buffer.from(auth).toString("base64")}` } : {};
  if (url.startsWith("http:"))
    return fetch(url, { headers }).then(async (res) => ({ status: res.status, body: await res.text() }));
  return new Promise((done, fail) => {
    const req = request(url, { ca, headers, servername: "localhost" }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

const health = (container: string) => dockerOk("inspect", "--format", "{{.State.Health.Status}}", container);
/** The HEALTHCHECK runs so far: each one's exit code, how long it took, and the first line it printed. */
async function healthLog(container: string): Promise<string> {
  const log = JSON.parse(await dockerOk("inspect", "--format", "{{json .State.Health.Log}}", container)) as {
    ExitCode: number;
    Start: string;
    End: string;
    Output: string;
  }[];
  return log
    .map(
      (check) =>
        `exit ${check.ExitCode} in ${seconds(Date.parse(check.End) - Date.parse(check.Start))}${check.Output ? `: ${check.Output.split("\n")[0]}` : ""}`,
    )
    .join("; ");
}
/** Waits for HEALTHCHECK to report healthy; Docker 20.10 runs the first check one interval (30 s) after the start. */
async function healthy(container: string): Promise<string> {
  try {
    await until(
      "the container to turn healthy",
      async () => ((await health(container)) === "healthy" ? true : undefined),
      { timeoutMs: 100_000, intervalMs: 500 },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; checks: ${await healthLog(container)}`);
  }
  return healthLog(container);
}
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Measured figures, printed at the end for the record (docs/ and the issue quote them). */
const figures: string[] = [];

/** Stops a container as `docker stop` does, and returns how long it took and its exit code. */
async function stop(container: string): Promise<{ ms: number; exitCode: number }> {
  const started = Date.now();
  await dockerOk("stop", "--time", "10", container);
  const ms = Date.now() - started;
  const exitCode = Number(await dockerOk("inspect", "--format", "{{.State.ExitCode}}", container));
  return { ms, exitCode };
}

let simulator: RunningSimulator;
const containers: string[] = [];
/** Files the containers mount, readable by the image's user. */
const mounted = mkdtempSync(join(tmpdir(), "she-container-"));
chmodSync(mounted, 0o755);

beforeAll(async () => {
  simulator = await startSimulator({ host: "127.0.0.1", port: 0, ledgerIntervalMs: 1_000, pools: 5 });
});

afterAll(async () => {
  if (containers.length > 0) await docker("rm", "--force", ...containers);
  await simulator?.close();
  rmSync(mounted, { recursive: true, force: true });
  if (figures.length > 0) process.stdout.write(`container figures:\n  ${figures.join("\n  ")}\n`);
});

describe.concurrent(`the image ${IMAGE}`, () => {
  it("answers --help and --version, and exits 2 with one line on a bad flag", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
    const help = await docker("run", "--rm", IMAGE, "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: stellar-horizon-exporter \[FLAGS\]/);
    expect(help.stdout).toContain("--web.listen-address=HOST:PORT");
    const versionRun = await docker("run", "--rm", IMAGE, "--version");
    expect(versionRun.code).toBe(0);
    expect(versionRun.stdout).toBe(
      `stellar-horizon-exporter ${version} (node ${versionRun.stdout.match(/\(node (v24\.[\d.]+)\)/)?.[1]})\n`,
    );
    const bad = await docker("run", "--rm", IMAGE, "--no-such-flag");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toMatch(/^stellar-horizon-exporter: .*no-such-flag/);
    expect(bad.stdout).toBe("");
  });

  it("holds the built bin and production dependencies only, within 250 MiB", async () => {
    const size = Number(await dockerOk("image", "inspect", "--format", "{{.Size}}", IMAGE));
    const baseSize = Number(await dockerOk("image", "inspect", "--format", "{{.Size}}", BASE_IMAGE));
    figures.push(
      `image ${(size / MiB).toFixed(1)} MiB = base ${(baseSize / MiB).toFixed(1)} MiB + ${((size - baseSize) / MiB).toFixed(1)} MiB of the exporter`,
    );
    expect(size).toBeLessThanOrEqual(250 * MiB);
    // The legacy builder's build stage was removed after the build.
    expect(await dockerOk("images", "--filter", "dangling=true", "--quiet")).toBe("");

    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const listing = await dockerOk(
      "run",
      "--rm",
      "--user",
      "0",
      "--entrypoint",
      "sh",
      IMAGE,
      "-c",
      'ls -A /app; echo --; ls -A /app/node_modules /app/node_modules/@* | tr -d ":"; echo --; find /app/dist -name "*.ts" | head -n 3; echo --; ls -A /root/.npm /home/node/.npm 2>/dev/null | grep -v "^/" || true',
    );
    const [app, modules, typescriptFiles, npmCache] = listing
      .split(/^--$/m)
      .map((part) => part.trim().split("\n").filter(Boolean));
    expect(app!.sort()).toEqual(["dist", "node_modules", "package-lock.json", "package.json"]);
    const installed = new Set(modules!.map((line) => line.replace(/^\/app\/node_modules\//, "")));
    expect(installed.has("hono")).toBe(true);
    expect(
      Object.keys(manifest.devDependencies).filter(
        (name) => installed.has(name) || installed.has(name.split("/")[1] ?? name),
      ),
    ).toEqual([]);
    expect(typescriptFiles).toEqual([]);
    expect(npmCache).toEqual([]);
  });

  it("runs as uid 1000, reports up 1 within 30 s, turns healthy on a port of its flags, and stops with exit 0 within 5 s", async () => {
    const port = await freePort();
    const started = Date.now();
    const container = await dockerOk(
      "run",
      "--detach",
      "--network=host",
      IMAGE,
      `--horizon.url=sim=${simulator.url}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--poll.interval=5s",
    );
    containers.push(container);
    const metrics = await until(
      "stellar_horizon_up 1 from the container",
      async () => {
        const { body } = await get(`http://127.0.0.1:${port}/metrics`);
        return /^stellar_horizon_up\{horizon="sim"\} 1$/m.test(body) ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const upMs = Date.now() - started;
    figures.push(`stellar_horizon_up 1 ${seconds(upMs)} after docker run`);
    expect(metrics).toContain("# TYPE stellar_horizon_up gauge");
    // The Deployment's probes: alive at once, ready once every first poll has finished.
    expect((await get(`http://127.0.0.1:${port}${POD.container.livenessProbe.httpGet.path}`)).status).toBe(200);
    await until(
      "the readiness probe to answer 200",
      async () =>
        (await get(`http://127.0.0.1:${port}${POD.container.readinessProbe.httpGet.path}`)).status === 200
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 250 },
    );

    expect(await dockerOk("inspect", "--format", "{{.Config.User}}", container)).toBe("node");
    const status = await dockerOk("exec", container, "cat", "/proc/1/status");
    expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
    expect(status).toMatch(/^Gid:\s+1000\s+1000\s+1000\s+1000$/m);

    const checks = await healthy(container);
    figures.push(`healthy ${seconds(Date.now() - started)} after docker run (flags; checks: ${checks})`);

    const stopped = await stop(container);
    figures.push(`docker stop ${seconds(stopped.ms)}, exit ${stopped.exitCode}`);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.ms).toBeLessThan(5_000);
  }, 150_000);

  it("runs as the Kubernetes Deployment does (read-only root, no capabilities, no privilege escalation), from a config file and a TLS + basic auth web config mounted read-only", async () => {
    const port = await freePort();
    const dir = mounted;
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      chmodSync(join(dir, name), 0o644);
    };
    for (const file of ["localhost-cert.pem", "localhost-key.pem"]) {
      copyFileSync(join(TLS_FIXTURES, file), join(dir, file));
      chmodSync(join(dir, file), 0o644);
    }
    write(
      "config.yml",
      `targets:\n  - name: file-sim\n    url: ${simulator.url}\npoll_interval: 5s\nweb:\n  listen_address: 127.0.0.1:${port}\n`,
    );
    write(
      "web.yml",
      `tls_server_config:\n  cert_file: localhost-cert.pem\n  key_file: localhost-key.pem\nbasic_auth_users:\n  prometheus: "${bcrypt.hashSync("scrape secret", 8)}"\n`,
    );
    const started = Date.now();
    const container = await dockerOk(
      "run",
      "--detach",
      "--network=host",
      ...dockerSecurityFlags(POD.securityContext, POD.container.securityContext),
      `--volume=${dir}:/etc/stellar-horizon-exporter:ro`,
      "--env=WEB_CONFIG_FILE=/etc/stellar-horizon-exporter/web.yml",
      IMAGE,
      "--config.file=/etc/stellar-horizon-exporter/config.yml",
    );
    containers.push(container);
    expect(
      await dockerOk("inspect", "--format", "{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}}", container),
    ).toBe("true [ALL]");

    const url = `https://127.0.0.1:${port}`;
    await until(
      "stellar_horizon_up 1 over TLS with basic auth",
      async () =>
        /^stellar_horizon_up\{horizon="file-sim"\} 1$/m.test(
          (await get(`${url}/metrics`, "prometheus:scrape secret")).body,
        )
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect((await get(`${url}/metrics`)).status).toBe(401);
    expect((await get(`${url}/metrics`, "prometheus:wrong")).status).toBe(401);
    expect(await get(`${url}/healthz`)).toEqual({ status: 200, body: "ok\n" });
    // Nothing in the image may be written: the exporter writes nothing either.
    expect((await docker("exec", container, "touch", "/app/written")).code).not.toBe(0);

    const checks = await healthy(container);
    figures.push(
      `healthy ${seconds(Date.now() - started)} after docker run (read-only, TLS, basic auth, config file; checks: ${checks})`,
    );
    const stopped = await stop(container);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.ms).toBeLessThan(5_000);
  }, 150_000);

  it("has a healthcheck that fails, in one line, where no exporter answers", async () => {
    const port = await freePort();
    const run = await docker(
      "run",
      "--rm",
      "--network=host",
      "--entrypoint",
      "node",
      IMAGE,
      "dist/cli/bin.js",
      "healthcheck",
      `--horizon.url=${simulator.url}`,
      `--web.listen-address=127.0.0.1:${port}`,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^healthcheck: http://127\\.0\\.0\\.1:${port}/healthz: .*ECONNREFUSED.*\\n$`),
    );
  });
});
