import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ENDPOINTS, type Endpoint } from "../catalog/metrics.js";
import { parseByteSize, parseDuration } from "./duration.js";
import {
  LOG_LEVELS,
  configFileSchema,
  horizonUrl,
  type ConfigFile,
  type EndpointScheduleTexts,
  type LogLevel,
} from "./file-schema.js";
import { rpcTargets, rpcUrlSpecs, type RpcTargetConfig } from "./rpc-targets.js";
import { parseSchedule, type Schedule } from "./schedule.js";
import { loadWebConfig, type WebConfig } from "./web-config.js";

export interface TargetConfig {
  readonly name: string;
  readonly url: string;
  /** Extra request headers; may hold credentials, so never logged or shown. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly schedules: Readonly<Record<Endpoint, Schedule>>;
  /** Requests per hour this Horizon allows; planning above it logs a warning at start. */
  readonly requestBudgetPerHour: number;
}

export interface ExporterConfig {
  readonly targets: readonly TargetConfig[];
  readonly rpcTargets: readonly RpcTargetConfig[];
  readonly listen: { readonly host: string; readonly port: number };
  readonly logLevel: LogLevel;
  readonly retries: number;
  readonly maxBodyBytes: number;
  readonly ledgers: { readonly maxPagesPerPoll: number; readonly backfill: number };
  readonly liquidityPools: { readonly max: number; readonly reserves: readonly string[]; readonly ids: readonly string[] };
  /** An endpoint's gauges leave /metrics when its data is older than this many poll periods. */
  readonly staleAfterIntervals: number;
  readonly configFile?: string;
  /** TLS, basic auth and headers of the HTTP endpoint; absent: plain HTTP, no auth. */
  readonly web?: WebConfig;
}

export const DEFAULT_PORT = 9915;
export const DEFAULTS = {
  listenAddress: `:${DEFAULT_PORT}`,
  pollInterval: "15s",
  timeout: "10s",
  retries: 2,
  maxBodySize: "8MiB",
  maxPagesPerPoll: 10,
  backfill: 0,
  poolsMax: 200,
  /** The public Horizon's hourly request limit. */
  requestBudgetPerHour: 3600,
  staleAfterIntervals: 3,
  logLevel: "info" as LogLevel,
} as const;

/** Every flag, its environment variable and its help line; --help is printed from this list. */
export const FLAGS = {
  "horizon.url": { env: "HORIZON_URL", value: "[NAME=]URL", help: "Horizon to poll; repeatable. NAME (default host[:port]) becomes the `horizon` label. The env var takes a comma-separated list." },
  "rpc.url": { env: "RPC_URL", value: "[NAME=]URL", help: "Stellar RPC to poll (JSON-RPC POSTed to URL as given); repeatable. NAME (default host[:port]) becomes the `rpc` label. The env var takes a comma-separated list." },
  "config.file": { env: "CONFIG_FILE", value: "PATH", help: "YAML configuration file (targets, headers, timeouts, schedules, pools, freshness). Flags override it." },
  "web.config.file": { env: "WEB_CONFIG_FILE", value: "PATH", help: "exporter-toolkit style web config: TLS, basic auth (bcrypt), response headers." },
  "web.listen-address": { env: "WEB_LISTEN_ADDRESS", value: "HOST:PORT", help: `Address to serve /metrics on (default ${DEFAULTS.listenAddress}).` },
  "poll.interval": { env: "POLL_INTERVAL", value: "DURATION", help: `Default schedule of every endpoint, e.g. 15s or 1m (default ${DEFAULTS.pollInterval}).` },
  "pools.max": { env: "POOLS_MAX", value: "N", help: `Liquidity pools to track per Horizon (default ${DEFAULTS.poolsMax}).` },
  "log.level": { env: "LOG_LEVEL", value: "LEVEL", help: `One of ${LOG_LEVELS.join(", ")} (default ${DEFAULTS.logLevel}).` },
  help: { env: undefined, value: undefined, help: "Show this help and exit." },
  version: { env: undefined, value: undefined, help: "Show the version and exit." },
} as const;

export type CommandLine =
  | { kind: "run"; config: ExporterConfig }
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "invalid"; problems: string[] };

type FlagValues = { [K in keyof typeof FLAGS]?: string | string[] | boolean };

/** Flags, then environment variables, then the config file, then defaults. */
export async function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<CommandLine> {
  let flags: FlagValues;
  try {
    flags = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        Object.entries(FLAGS).map(([name, flag]) => [
          name,
          { type: flag.value === undefined ? "boolean" : "string", multiple: name === "horizon.url" || name === "rpc.url" },
        ]),
      ),
    }).values as FlagValues;
  } catch (error) {
    return { kind: "invalid", problems: [(error as Error).message] };
  }
  if (flags.help) return { kind: "help" };
  if (flags.version) return { kind: "version" };

  const problems: string[] = [];
  const setting = (name: Exclude<keyof typeof FLAGS, "help" | "version" | "horizon.url" | "rpc.url">): { source: string; value: string } | undefined => {
    const flag = flags[name];
    if (typeof flag === "string") return { source: `--${name}`, value: flag };
    const envName = FLAGS[name].env;
    const fromEnv = env[envName];
    return fromEnv !== undefined && fromEnv !== "" ? { source: envName, value: fromEnv } : undefined;
  };

  const configFile = setting("config.file");
  const file = configFile ? await readConfigFile(configFile.value, problems) : {};

  const urlFlags = flags["horizon.url"] as string[] | undefined;
  const urlSpecs = urlFlags?.length
    ? urlFlags.map((value) => ({ source: "--horizon.url", value }))
    : (env.HORIZON_URL ?? "").split(",").map((value) => value.trim()).filter(Boolean).map((value) => ({ source: "HORIZON_URL", value }));

  const pollInterval = setting("poll.interval");
  const defaultScheduleText = pollInterval?.value ?? file.poll_interval ?? DEFAULTS.pollInterval;
  if (pollInterval && typeof parseSchedule(pollInterval.value) === "string") {
    problems.push(`${pollInterval.source}: ${parseSchedule(pollInterval.value) as string}`);
  }
  // An explicit --poll.interval is the operator's latest word, so it beats per-endpoint file schedules.
  const fileSchedules: EndpointScheduleTexts = pollInterval ? {} : (file.schedules ?? {});

  const timeoutMs = parseDuration(file.http?.timeout ?? DEFAULTS.timeout) ?? 0;
  const schedulesFor = (overrides: EndpointScheduleTexts | undefined): Record<Endpoint, Schedule> =>
    Object.fromEntries(
      ENDPOINTS.map((endpoint) => {
        const text = (pollInterval ? undefined : overrides?.[endpoint]) ?? fileSchedules[endpoint] ?? defaultScheduleText;
        const schedule = parseSchedule(text);
        return [endpoint, typeof schedule === "string" ? parseSchedule(DEFAULTS.pollInterval) : schedule];
      }),
    ) as Record<Endpoint, Schedule>;

  const targets: TargetConfig[] = urlSpecs.length
    ? urlSpecs.flatMap(({ source, value }) => {
        const target = targetFromUrlFlag(value);
        if (typeof target === "string") {
          problems.push(`${source}: ${target}`);
          return [];
        }
        return [{ ...target, headers: {}, timeoutMs, schedules: schedulesFor(undefined), requestBudgetPerHour: DEFAULTS.requestBudgetPerHour }];
      })
    : (file.targets ?? []).map((entry) => ({
        name: entry.name ?? defaultTargetName(entry.url),
        url: entry.url,
        headers: entry.headers ?? {},
        timeoutMs: entry.timeout ? (parseDuration(entry.timeout) ?? timeoutMs) : timeoutMs,
        schedules: schedulesFor(entry.schedules),
        requestBudgetPerHour: entry.request_budget_per_hour ?? DEFAULTS.requestBudgetPerHour,
      }));
  const defaultSchedule = parseSchedule(defaultScheduleText);
  const rpc = rpcTargets(
    {
      urlSpecs: rpcUrlSpecs(flags["rpc.url"] as string[] | undefined, env.RPC_URL),
      fileEntries: file.rpc_targets ?? [],
      defaultSchedule: typeof defaultSchedule === "string" ? (parseSchedule(DEFAULTS.pollInterval) as Schedule) : defaultSchedule,
      ...(pollInterval && typeof defaultSchedule !== "string" ? { forcedSchedule: defaultSchedule } : {}),
      timeoutMs,
      parseUrlSpec: targetFromUrlFlag,
      defaultName: defaultTargetName,
    },
    problems,
  );
  if (targets.length === 0 && rpc.length === 0 && problems.length === 0) {
    problems.push(
      "no Horizon or Stellar RPC to poll: give --horizon.url=URL (or HORIZON_URL) or --rpc.url=URL (or RPC_URL), or `targets`/`rpc_targets` in --config.file",
    );
  }
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.name)) problems.push(`target name "${target.name}" is used twice; names must be unique`);
    seen.add(target.name);
  }

  const webConfigFile = setting("web.config.file");
  let web: WebConfig | undefined;
  if (webConfigFile) {
    const loaded = await loadWebConfig(webConfigFile.value);
    if (Array.isArray(loaded)) problems.push(...loaded);
    else web = loaded;
  }

  const listenAddress = setting("web.listen-address");
  const listen = parseListenAddress(listenAddress?.value ?? file.web?.listen_address ?? DEFAULTS.listenAddress);
  if (typeof listen === "string") problems.push(`${listenAddress?.source ?? "web.listen_address"}: ${listen}`);

  const poolsMaxSetting = setting("pools.max");
  let poolsMax = file.liquidity_pools?.max ?? DEFAULTS.poolsMax;
  if (poolsMaxSetting) {
    const parsed = z.coerce.number().int().min(0).max(1_000_000).safeParse(poolsMaxSetting.value);
    if (parsed.success) poolsMax = parsed.data;
    else problems.push(`${poolsMaxSetting.source}: expected a whole number from 0 to 1000000, got "${poolsMaxSetting.value}"`);
  }

  const logLevelSetting = setting("log.level");
  let logLevel: LogLevel = file.log?.level ?? DEFAULTS.logLevel;
  if (logLevelSetting) {
    if ((LOG_LEVELS as readonly string[]).includes(logLevelSetting.value)) logLevel = logLevelSetting.value as LogLevel;
    else problems.push(`${logLevelSetting.source}: expected one of ${LOG_LEVELS.join(", ")}, got "${logLevelSetting.value}"`);
  }

  if (problems.length > 0 || typeof listen === "string") return { kind: "invalid", problems };
  return {
    kind: "run",
    config: {
      targets,
      rpcTargets: rpc,
      listen,
      logLevel,
      retries: file.http?.retries ?? DEFAULTS.retries,
      maxBodyBytes: byteCount(file.http?.max_body_size ?? DEFAULTS.maxBodySize),
      ledgers: {
        maxPagesPerPoll: file.ledgers?.max_pages_per_poll ?? DEFAULTS.maxPagesPerPoll,
        backfill: file.ledgers?.backfill ?? DEFAULTS.backfill,
      },
      liquidityPools: { max: poolsMax, reserves: file.liquidity_pools?.reserves ?? [], ids: file.liquidity_pools?.ids ?? [] },
      staleAfterIntervals: file.freshness?.stale_after_intervals ?? DEFAULTS.staleAfterIntervals,
      ...(configFile ? { configFile: configFile.value } : {}),
      ...(web ? { web } : {}),
    },
  };
}

async function readConfigFile(path: string, problems: string[]): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    problems.push(`config file ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return {};
  }
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (error) {
    problems.push(`config file ${path}: not valid YAML: ${(error as Error).message.split("\n")[0]}`);
    return {};
  }
  const parsed = configFileSchema.safeParse(document);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
    problems.push(`config file ${path}: ${where}: ${issue.message}`);
  }
  return {};
}

/** `URL` or `NAME=URL`; a name cannot contain `/`, `?` or `:`, so a URL's own `=` is never mistaken for one. */
function targetFromUrlFlag(value: string): { name: string; url: string } | string {
  const named = /^([^=/?:]+)=(.+)$/.exec(value);
  const url = named?.[2] ?? value;
  if (!horizonUrl.safeParse(url).success) return `"${redactUrl(url)}" is not an http:// or https:// URL`;
  return { name: named?.[1] ?? defaultTargetName(url), url };
}

function defaultTargetName(url: string): string {
  return new URL(url).host;
}

/** A URL with any credentials masked, safe for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = parsed.username ? "REDACTED" : "";
      parsed.password = parsed.password ? "REDACTED" : "";
    }
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//REDACTED@");
  }
}

/** `HOST:PORT`, `:PORT` (all interfaces) or `[IPv6]:PORT`; an error message when malformed. */
export function parseListenAddress(text: string): { host: string; port: number } | string {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65_535) return `"${text}" is not HOST:PORT (e.g. :${DEFAULT_PORT}, 127.0.0.1:${DEFAULT_PORT}, [::1]:${DEFAULT_PORT})`;
  return { host: match[1] ?? (match[2] || "0.0.0.0"), port };
}

function byteCount(value: number | string): number {
  return typeof value === "number" ? value : (parseByteSize(value) ?? 0);
}
