/**
 * What a newcomer does first: `npm run demo` on a built checkout starts without building, and a
 * SIGTERM to the process they started (npm's, or npx's), or Ctrl+C at the terminal, ends every
 * process it started.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExposition, valueOf } from "./support/exposition.js";
import { until } from "./support/wait.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CHECK = resolve(ROOT, "scripts/dist-is-current.mjs");

describe("scripts/dist-is-current.mjs", () => {
  let tree: string;
  const check = () => spawnSync(process.execPath, [join(tree, "scripts/dist-is-current.mjs")], { encoding: "utf8" });
  const at = (path: string, seconds: number) => utimesSync(join(tree, path), seconds, seconds);

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), "dist-is-current-"));
    mkdirSync(join(tree, "scripts"));
    cpSync(CHECK, join(tree, "scripts/dist-is-current.mjs"));
    mkdirSync(join(tree, "src/cli"), { recursive: true });
    for (const file of ["src/cli/bin.ts", "src/exporter.ts", "tsconfig.json", "tsconfig.build.json"])
      writeFileSync(join(tree, file), "");
    for (const path of ["src/cli/bin.ts", "src/exporter.ts", "src/cli", "src", "tsconfig.json", "tsconfig.build.json"])
      at(path, 1_000);
  });
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it("asks for a build, in one line, when nothing is built", () => {
    const result = check();
    expect([result.status, result.stderr]).toEqual([1, "Building dist/ (not built yet)...\n"]);
  });

  it("is silent and successful when dist/ is newer than every source", () => {
    mkdirSync(join(tree, "dist/cli"), { recursive: true });
    writeFileSync(join(tree, "dist/cli/bin.js"), "");
    at("dist/cli/bin.js", 2_000);
    const result = check();
    expect([result.status, result.stdout, result.stderr]).toEqual([0, "", ""]);
  });

  it.each(["src/exporter.ts", "src/cli/bin.ts", "tsconfig.build.json", "src/cli"])(
    "asks for a build once %s changed",
    (path) => {
      at(path, 3_000);
      const result = check();
      expect([result.status, result.stderr]).toEqual([
        1,
        "Building dist/ (the sources changed since the last build)...\n",
      ]);
      at(path, 1_000);
      expect(check().status).toBe(0);
    },
  );
});

/** A command started as a user starts it, in a process group of its own so that its descendants can be counted. */
function startAsUser(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd: ROOT, detached: true, env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    groupAlive,
    /** Ends what a failed test left behind. */
    cleanUp: () => {
      if (groupAlive()) process.kill(-child.pid!, "SIGKILL");
    },
  };
}

/** Whether a TCP connection to `url`'s port is refused: nothing listens there any more. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      done(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED"));
  });
}

type Started = ReturnType<typeof startAsUser>;

/** What a user starts, and the URLs of every server it listens with, read from what it prints. */
interface UserCommand {
  name: string;
  start: () => Started;
  listening: (started: Started) => string[] | undefined;
}

/** The demo prints its exporter's, its simulator's and its fork's URLs. */
const demoUrls = (started: Started) => {
  const urls = ["metrics", "simulator", "fork"].map(
    (what) => new RegExp(`${what}:\\s+(http://\\S+?)/`).exec(started.stdout())?.[1],
  );
  return urls.every((url) => url !== undefined) ? (urls as string[]) : undefined;
};

describe("start and stop", () => {
  let configDirectory: string;

  beforeAll(() => {
    // The commands must find dist/ built, as a checkout is after `npm ci`.
    if (spawnSync(process.execPath, [CHECK]).status !== 0)
      expect(spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT }).status).toBe(0);
    configDirectory = mkdtempSync(join(tmpdir(), "start-stop-"));
    // A target that refuses connections: the exporter runs and serves all the same.
    writeFileSync(join(configDirectory, "config.yml"), "targets:\n  - name: nowhere\n    url: http://127.0.0.1:9/\n");
  }, 120_000);
  afterAll(() => rmSync(configDirectory, { recursive: true, force: true }));

  const commands: UserCommand[] = [
    {
      name: "npx stellar-horizon-exporter simulate",
      start: () => startAsUser("npx", ["stellar-horizon-exporter", "simulate", "--web.listen-address=127.0.0.1:0"], {}),
      listening: (started) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.stdout())?.slice(1),
    },
    {
      name: "npx stellar-horizon-exporter demo",
      start: () =>
        startAsUser("npx", ["stellar-horizon-exporter", "demo", "--web.listen-address=127.0.0.1:0"], {
          DEMO_SIMULATOR_PORT: "0",
        }),
      listening: demoUrls,
    },
    {
      name: "npm run demo",
      start: () =>
        startAsUser("npm", ["run", "demo", "--", "--web.listen-address=127.0.0.1:0"], { DEMO_SIMULATOR_PORT: "0" }),
      listening: demoUrls,
    },
    {
      name: "npm start with a config file",
      start: () =>
        startAsUser(
          "npm",
          ["start", "--", `--config.file=${join(configDirectory, "config.yml")}`, "--web.listen-address=127.0.0.1:0"],
          {},
        ),
      listening: (started) => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(started.stdout())?.slice(1),
    },
  ];

  // SIGTERM goes to the process the user started alone, as a supervisor sends it; SIGINT to its
  // whole process group, as a terminal's Ctrl+C does. npx runs the bin through `sh -c`; npm's
  // scripts `exec` node.
  const deliveries = [
    { signal: "SIGTERM", to: "the top process alone" },
    { signal: "SIGINT", to: "the process group (Ctrl+C)" },
  ] as const;
  describe.each(commands)("$name", ({ start, listening }) => {
    it.each(deliveries)(
      "$signal to $to closes every port and ends every process within 5 s",
      async ({ signal }) => {
        const started = start();
        try {
          const urls = await until(
            () => `the URLs it listens on (${started.stdout()} ${started.stderr()})`,
            () => listening(started),
            { timeoutMs: 30_000 },
          );
          for (const url of urls) expect(await refused(url)).toBe(false);
          if (signal === "SIGINT") process.kill(-started.child.pid!, signal);
          else started.child.kill(signal);
          await until(
            () => `every process to end after ${signal} (${started.stderr()})`,
            () => (started.groupAlive() ? undefined : true),
            { timeoutMs: 5_000 },
          );
          expect(await Promise.all(urls.map(refused))).toEqual(urls.map(() => true));
        } finally {
          started.cleanUp();
        }
      },
      60_000,
    );
  });

  it("npm run demo starts without building and reaches stellar_horizon_up 1", async () => {
    const demo = startAsUser("npm", ["run", "demo", "--", "--web.listen-address=127.0.0.1:0"], {
      DEMO_SIMULATOR_PORT: "0",
    });
    try {
      const metricsUrl = await until("the demo's URLs", () => /metrics:\s+(\S+)/.exec(demo.stdout())?.[1], {
        timeoutMs: 30_000,
      });
      const up = await until("stellar_horizon_up 1", async () => {
        const value = valueOf(parseExposition(await (await fetch(metricsUrl)).text()), "stellar_horizon_up", {
          horizon: "simulator",
        });
        return value === 1 ? value : undefined;
      });
      expect(up).toBe(1);
      expect(demo.stderr()).not.toContain("Building");
    } finally {
      demo.cleanUp();
    }
  }, 60_000);

  // npx installs the checkout anew from every path it has not seen (each CI clone) and runs its `prepare`: a
  // rebuild there rewrote dist/ under the commands other test files were running, which then failed to load.
  it("npx, installing the checkout anew, leaves a built dist/ as it is", () => {
    const cache = mkdtempSync(join(tmpdir(), "start-stop-npm-cache-"));
    const bin = join(ROOT, "dist/cli/bin.js");
    try {
      const built = statSync(bin).mtimeMs;
      const run = spawnSync("npx", ["stellar-horizon-exporter", "--version"], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, npm_config_cache: cache, npm_config_offline: "true" },
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^stellar-horizon-exporter \d/);
      expect(statSync(bin).mtimeMs).toBe(built);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 60_000);
});
