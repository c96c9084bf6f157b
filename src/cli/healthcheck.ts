// Exits 1, not 2, when unhealthy: Docker's HEALTHCHECK reserves 2. /healthz needs no credentials under basic auth;
// without flags, those of the exporter running beside it are read: a HEALTHCHECK is not given the container's command.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { join, resolve } from "node:path";
import { loadListenConfig } from "../config/config.js";
import { urlHost } from "../server/listen.js";
import { answeredHelp, COMMANDS, type CommandIo } from "./usage.js";

/** Longer than Docker's --timeout would let it run, in case it runs elsewhere. */
const PROBE_TIMEOUT_MS = 4_000;

const USAGE = `Usage: stellar-horizon-exporter healthcheck [FLAGS]

Exits 0 when the exporter answers 200 on /healthz, 1 otherwise. Reads the exporter's flags and
environment (--web.listen-address, --web.config.file, --config.file and theirs), so it checks
the address the exporter listens on, over HTTPS when the web config has TLS. Without flags, it
takes those of the exporter running on this machine (in a container: the container's command).
`;

/** The arguments after the bin's path in a process's command line, NUL-separated as /proc shows it. */
function argumentsAfter(cmdline: string, cwd: string, bin: string): string[] | undefined {
  const args = cmdline.split("\0");
  if (args.at(-1) === "") args.pop();
  const index = args.findIndex((arg, i) => {
    if (i === 0) return false;
    try {
      return realpathSync(resolve(cwd, arg)) === bin;
    } catch {
      return false;
    }
  });
  return index > 0 ? args.slice(index + 1) : undefined;
}

/** The flags of the oldest exporter process running `bin` (the container's main process), if one is visible. */
export function runningExporterArguments(bin: string, procRoot = "/proc", self = process.pid): string[] | undefined {
  const target = realpathSync(bin);
  const pids = readdirSync(procRoot)
    .filter((name) => /^\d+$/.test(name) && Number(name) !== self)
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    try {
      const dir = join(procRoot, String(pid));
      const args = argumentsAfter(readFileSync(join(dir, "cmdline"), "utf8"), readlinkSync(join(dir, "cwd")), target);
      if (args !== undefined && !COMMANDS.includes(args[0] ?? "")) return args;
    } catch {
      // gone, or another user's
    }
  }
  return undefined;
}

/** The status of GET url, over TLS without checking the certificate: the name it is issued to is not 127.0.0.1. */
function probe(url: string): Promise<number> {
  const get = url.startsWith("https:") ? httpsGet : httpGet;
  return new Promise((done, fail) => {
    const req = get(url, { rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)));
    req.on("error", fail);
  });
}

export async function runHealthcheckCommand(argv: string[], env = process.env, io: CommandIo = {}): Promise<number> {
  const { stdout = process.stdout, stderr = process.stderr } = io;
  const flags = argv.length > 0 ? argv : (runningExporterArguments(process.argv[1] ?? "") ?? []);
  const command = await loadListenConfig(flags, env);
  if (answeredHelp(command, USAGE, stdout)) return 0;
  if (command.kind === "invalid") {
    stderr.write(`healthcheck: the exporter's configuration is unusable: ${command.problems.join("; ")}\n`);
    return 1;
  }
  const { listen, tls } = command.config;
  const url = `${tls ? "https" : "http"}://${urlHost(listen.host)}:${listen.port}/healthz`;
  try {
    const status = await probe(url);
    if (status === 200) return 0;
    stderr.write(`healthcheck: ${url} answered ${status}\n`);
  } catch (error) {
    stderr.write(`healthcheck: ${url}: ${(error as Error).message}\n`);
  }
  return 1;
}
