import { parseArgs } from "node:util";
import { z } from "zod";
import { ENDPOINTS, type Endpoint } from "../catalog/metrics.js";
import { namedIdFromFlag, watchedAccounts, type WatchedAccount } from "./accounts.js";
import { watchedAssets, type WatchedAsset } from "./assets.js";
import { watchedContracts, type WatchedContract } from "./contracts.js";
import { marketEntryFromFlag, watchedMarkets, type MarketEntry, type WatchedMarket } from "./markets.js";
import { corridorsOf, corridorsSchedule, type CorridorConfig } from "./corridors.js";
import { loadTxProbe, withProbeAccount, type TxProbeConfig } from "./tx-probe.js";
import { parseByteSize, parseDuration } from "./duration.js";
import { flagProblem } from "./messages.js";
import {
  LOG_LEVELS,
  MAX_POOLS,
  POOLS_MAX_RANGE,
  configFileSchema,
  type ConfigFile,
  type EndpointScheduleTexts,
  type LogLevel,
} from "./file-schema.js";
import { rpcTargets, type RpcTargetConfig } from "./rpc-targets.js";
import { targetsOf, type TargetBasics } from "./targets.js";
import { parseSchedule, type Schedule } from "./schedule.js";
import { loadWebConfig, type WebConfig } from "./web-config.js";
import { inShard, parseShard, WHOLE, type Shard } from "./shard.js";
import { readYamlDocument } from "./yaml-file.js";

export interface TargetConfig extends TargetBasics {
  readonly schedules: Readonly<Record<Endpoint, Schedule>>;
  /** Requests per hour this Horizon allows; planning above it logs a warning at start. */
  readonly requestBudgetPerHour: number;
  readonly accounts: readonly WatchedAccount[];
  /** Assets whose supply, holders and flags `/assets` is asked for. */
  readonly assets: readonly WatchedAsset[];
  /** DEX markets whose price, trades and makers' offers are read (shard 0 only). */
  readonly markets: readonly WatchedMarket[];
  /** The transaction-submission probe, when configured. */
  readonly txProbe?: TxProbeConfig;
  /** Payment corridors to probe with path finding (config file only). */
  readonly corridors?: readonly CorridorConfig[];
  /** The --poll.interval the corridors' schedule was raised from, to 15 s. */
  readonly corridorsRaisedFrom?: string;
}

export interface ExporterConfig {
  readonly targets: readonly TargetConfig[];
  readonly rpcTargets: readonly RpcTargetConfig[];
  readonly listen: { readonly host: string; readonly port: number };
  readonly logLevel: LogLevel;
  readonly retries: number;
  readonly maxBodyBytes: number;
  readonly ledgers: { readonly maxPagesPerPoll: number; readonly backfill: number };
  readonly liquidityPools: {
    readonly max: number;
    readonly reserves: readonly string[];
    readonly ids: readonly string[];
  };
  /** An endpoint's gauges leave /metrics when its data is older than this many poll periods. */
  readonly staleAfterIntervals: number;
  /** Which accounts and contracts this replica watches, and whether it exports network-level series (shard 0). */
  readonly shard: Shard;
  readonly configFile?: string;
  /** Re-read on SIGHUP like the config file. */
  readonly webConfigFile?: string;
  /** TLS, basic auth and headers of the HTTP endpoint; absent: plain HTTP, no auth. */
  readonly web?: WebConfig;
}

export const DEFAULT_PORT = 9619;
export const DEFAULTS = {
  listenAddress: `:${DEFAULT_PORT}`,
  pollInterval: "15s",
  /** A watched account's flow: three requests an account, and payments are counted whatever the delay. */
  activityInterval: "30s",
  /** Contract TTLs move by a ledger every 5 to 7 s and matter over days: a minute is plenty. */
  contractsInterval: "1m",
  /** An asset's supply and flags change with its issuer's operations, rarely: a minute is plenty. */
  assetsInterval: "1m",
  /** A contract's events are read at most 25 contracts a call: twice a minute keeps the backlog short. */
  eventsInterval: "30s",
  /** A market's price moves by trade aggregation buckets of a minute or more. */
  marketsInterval: "1m",
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

/** Endpoints polled at a period of their own unless --poll.interval sets every one. */
const OWN_DEFAULT_SCHEDULES: Partial<Record<Endpoint, string>> = {
  activity: DEFAULTS.activityInterval,
  assets: DEFAULTS.assetsInterval,
  markets: DEFAULTS.marketsInterval,
};

/** Every flag, its environment variable and its help line; --help is printed from this list. */
export const FLAGS = {
  "horizon.url": {
    env: "HORIZON_URL",
    value: "[NAME=]URL",
    help:
      "Horizon to poll; repeatable. NAME (default host[:port]) becomes the `horizon` label. The env var takes a " +
      "comma-separated list.",
  },
  account: {
    env: "ACCOUNTS",
    value: "[NAME=]ACCOUNT_ID",
    help:
      "Account to watch on every --horizon.url and --rpc.url target; repeatable. NAME (default the id) becomes " +
      "the `account` label. The env var takes a comma-separated list.",
  },
  "account.asset": {
    env: "ACCOUNT_ASSETS",
    value: "CODE:ISSUER",
    help:
      "Trustline to read of every --account on the --rpc.url targets (Stellar RPC cannot list them); repeatable. " +
      "The env var takes a comma-separated list.",
  },
  "account.activity": {
    env: "ACCOUNT_ACTIVITY",
    value: undefined,
    help:
      "Read the payments and own transactions of every --account on the --horizon.url targets (activity: true; " +
      "operations stay off). The env var takes true.",
  },
  asset: {
    env: "ASSETS",
    value: "CODE:ISSUER",
    help:
      "Asset whose supply, holders and flags to watch (Horizon's /assets) on every --horizon.url target; " +
      "repeatable. The env var takes a comma-separated list.",
  },
  contract: {
    env: "CONTRACTS",
    value: "[NAME=]CONTRACT_ID",
    help:
      "Soroban contract whose instance and code to watch on every --rpc.url target; repeatable. NAME (default " +
      "the id) becomes the `contract` label. The env var takes a comma-separated list.",
  },
  "contract.events": {
    env: "CONTRACT_EVENTS",
    value: undefined,
    help: "Count the events of every --contract (as `events: true` does in the config file); the env var takes true.",
  },
  market: {
    env: "MARKETS",
    value: "[NAME=]BASE/COUNTER",
    help:
      "DEX market to watch on every --horizon.url target (BASE and COUNTER: native or CODE:ISSUER); repeatable. " +
      "NAME (default BASECODE/COUNTERCODE) becomes the `market` label. The env var takes a comma-separated list.",
  },
  "rpc.url": {
    env: "RPC_URL",
    value: "[NAME=]URL",
    help:
      "Stellar RPC to poll (JSON-RPC POSTed to URL as given); repeatable. NAME (default host[:port]) becomes the " +
      "`rpc` label. The env var takes a comma-separated list.",
  },
  "config.file": {
    env: "CONFIG_FILE",
    value: "PATH",
    help: "YAML configuration file (targets, headers, timeouts, schedules, pools, freshness). Flags override it.",
  },
  "web.config.file": {
    env: "WEB_CONFIG_FILE",
    value: "PATH",
    help: "exporter-toolkit style web config: TLS, basic auth (bcrypt), response headers.",
  },
  "web.listen-address": {
    env: "WEB_LISTEN_ADDRESS",
    value: "HOST:PORT",
    help: `Address to serve /metrics on (default ${DEFAULTS.listenAddress}).`,
  },
  "poll.interval": {
    env: "POLL_INTERVAL",
    value: "SCHEDULE",
    help:
      `Schedule of every endpoint: a duration (15s, 1m30s) or a cron pattern ("*/30 * * * * *"); overrides every ` +
      `schedule in the config file (default ${DEFAULTS.pollInterval}).`,
  },
  "pools.max": {
    env: "POOLS_MAX",
    value: "N",
    help: `Liquidity pools to track per Horizon, at most ${MAX_POOLS} (default ${DEFAULTS.poolsMax}).`,
  },
  shard: {
    env: "SHARD",
    value: "INDEX/TOTAL",
    help:
      "Watch only the accounts and contracts whose StrKey's FNV-1a hash is INDEX modulo TOTAL; network-level " +
      "series only on shard 0 (default 0/1).",
  },
  "log.level": {
    env: "LOG_LEVEL",
    value: "LEVEL",
    help: `One of ${LOG_LEVELS.join(", ")} (default ${DEFAULTS.logLevel}).`,
  },
  help: { env: undefined, value: undefined, help: "Show this help and exit (also -h)." },
  version: { env: undefined, value: undefined, help: "Show the version and exit." },
} as const;

export type CommandLine =
  | { kind: "run"; config: ExporterConfig }
  | { kind: "help" }
  | { kind: "version" }
  /** `usage` when the command line itself is malformed (an unknown flag, no target), so --help applies. */
  | { kind: "invalid"; problems: string[]; usage?: true };

type FlagValues = { [K in keyof typeof FLAGS]?: string | string[] | boolean };
type UrlFlag = "horizon.url" | "rpc.url";
type WatchFlag = "account" | "asset" | "contract" | "market";
type ListFlag = WatchFlag | "account.asset";
const REPEATABLE: ReadonlySet<string> = new Set<UrlFlag | ListFlag>([
  "horizon.url",
  "rpc.url",
  "account",
  "account.asset",
  "asset",
  "contract",
  "market",
]);
type ValueFlag = Exclude<
  keyof typeof FLAGS,
  "help" | "version" | "account.activity" | "contract.events" | UrlFlag | ListFlag
>;
/** What reading a flag needs: the flags, the environment, and the problems found so far. */
interface FlagContext {
  readonly flags: FlagValues;
  readonly env: NodeJS.ProcessEnv;
  readonly problems: string[];
}

/** A value and where it came from (`--flag` or `ENV_VAR`), so a problem names its source. */
interface Setting {
  readonly source: string;
  readonly value: string;
}
/** Per-endpoint schedules of a target, from its own overrides, the file's and the default. */
type SchedulesFor = ((overrides: EndpointScheduleTexts | undefined) => Record<Endpoint, Schedule>) & {
  /** The --poll.interval the corridors' schedule was raised from, to its 15 s floor. */
  readonly corridorsRaisedFrom?: string;
};

/** Flags, then environment variables, then the config file, then defaults. */
export async function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<CommandLine> {
  const flags = parseFlags(argv);
  if (typeof flags === "string") return { kind: "invalid", problems: [flags], usage: true };
  if (flags.help) return { kind: "help" };
  if (flags.version) return { kind: "version" };

  const problems: string[] = [];
  const context: FlagContext = { flags, env, problems };
  const setting = (name: ValueFlag): Setting | undefined => settingOf(name, flags, env);
  const configFile = setting("config.file");
  const file = configFile ? await readConfigFile(configFile.value, problems) : {};
  const { targets, rpc } = await allTargets(context, { file, path: configFile?.value ?? "" }, setting("poll.interval"));
  const noTarget = targets.length === 0 && rpc.length === 0 && problems.length === 0;
  if (noTarget) {
    problems.push(
      "no Horizon or Stellar RPC to poll: give --horizon.url=URL (or HORIZON_URL) or --rpc.url=URL (or " +
        "RPC_URL), or `targets`/`rpc_targets` in --config.file",
    );
  }
  const webConfigFile = setting("web.config.file");
  const web = await webConfigOf(webConfigFile, problems);
  const listen = listenAddressOf(setting("web.listen-address"), file, problems);
  const poolsMax = poolsMaxOf(setting("pools.max"), file, problems);
  const logLevel = logLevelOf(setting("log.level"), file, problems);
  const shard = shardOf(setting("shard"), problems);
  if (problems.length > 0 || listen === undefined)
    return { kind: "invalid", problems, ...(noTarget ? { usage: true as const } : {}) };
  return {
    kind: "run",
    config: {
      ...watchedBy(shard, targets, rpc),
      ...fileSettings(file, poolsMax),
      listen,
      logLevel,
      shard,
      ...(configFile ? { configFile: configFile.value } : {}),
      ...(webConfigFile ? { webConfigFile: webConfigFile.value } : {}),
      ...(web ? { web } : {}),
    },
  };
}

/** The Horizon and Stellar RPC targets, from the URL flags (and the watches flags give them) or the file. */
async function allTargets(
  context: FlagContext,
  { file, path }: { file: ConfigFile; path: string },
  pollInterval: Setting | undefined,
): Promise<{ targets: TargetConfig[]; rpc: RpcTargetConfig[] }> {
  const { flags, env, problems } = context;
  const timeoutMs = parseDuration(file.http?.timeout ?? DEFAULTS.timeout) ?? 0;
  const urls = urlSettings("horizon.url", flags, env);
  const rpcUrls = urlSettings("rpc.url", flags, env);
  const flagAccounts = flagAccountsOf(context, urls.length + rpcUrls.length);
  const schedulesFor = scheduleResolver(pollInterval, file, problems);
  const targets = buildTargets(
    urls,
    {
      accounts: flagAccounts,
      assets: flagAssetsOf(context, urls.length),
      markets: flagMarketsOf(context, urls.length),
    },
    { file, path },
    schedulesFor,
    timeoutMs,
    problems,
  );
  if (urls.length === 0) await attachTxProbes(targets, file.targets ?? [], env, problems);
  const rpc = rpcTargets(
    {
      urlSpecs: rpcUrls,
      fileEntries: file.rpc_targets ?? [],
      ...rpcSchedules(pollInterval, file),
      accountsSchedule: schedulesFor(undefined).accounts,
      flagAccounts,
      flagAssets: listSetting("account.asset", flags, env),
      flagContracts: flagContractsOf(context, rpcUrls.length),
      timeoutMs,
    },
    problems,
  );
  return { targets, rpc };
}

/** The settings the config file alone gives, or their defaults. */
function fileSettings(
  file: ConfigFile,
  poolsMax: number,
): Pick<ExporterConfig, "retries" | "maxBodyBytes" | "ledgers" | "liquidityPools" | "staleAfterIntervals"> {
  return {
    retries: file.http?.retries ?? DEFAULTS.retries,
    maxBodyBytes: byteCount(file.http?.max_body_size ?? DEFAULTS.maxBodySize),
    ledgers: {
      maxPagesPerPoll: file.ledgers?.max_pages_per_poll ?? DEFAULTS.maxPagesPerPoll,
      backfill: file.ledgers?.backfill ?? DEFAULTS.backfill,
    },
    liquidityPools: {
      max: poolsMax,
      reserves: file.liquidity_pools?.reserves ?? [],
      ids: file.liquidity_pools?.ids ?? [],
    },
    staleAfterIntervals: file.freshness?.stale_after_intervals ?? DEFAULTS.staleAfterIntervals,
  };
}

/** `-h` is `--help`; an unknown or malformed flag is a one-line problem. */
function parseFlags(argv: readonly string[]): FlagValues | string {
  try {
    return parseArgs({
      args: argv.map((argument) => (argument === "-h" ? "--help" : argument)),
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        Object.entries(FLAGS).map(([name, flag]) => [
          name,
          {
            type: flag.value === undefined ? "boolean" : "string",
            multiple: REPEATABLE.has(name),
          },
        ]),
      ),
    }).values as FlagValues;
  } catch (error) {
    return flagProblem((error as Error).message, Object.keys(FLAGS));
  }
}

function settingOf(name: ValueFlag, flags: FlagValues, env: NodeJS.ProcessEnv): Setting | undefined {
  const flag = flags[name];
  if (typeof flag === "string") return { source: `--${name}`, value: flag };
  const envName = FLAGS[name].env;
  const fromEnv = env[envName];
  return fromEnv !== undefined && fromEnv !== "" ? { source: envName, value: fromEnv } : undefined;
}

/** Every --horizon.url (--rpc.url), or else HORIZON_URL's (RPC_URL's) comma-separated list. */
function urlSettings(name: UrlFlag, flags: FlagValues, env: NodeJS.ProcessEnv): Setting[] {
  const { source, values } = listSetting(name, flags, env);
  return values.map((value) => ({ source, value }));
}

/**
 * A Stellar RPC's status schedule: --poll.interval beats the file's, else the file's default, else
 * ours. Its contracts poll: --poll.interval, else the file's `schedules.contracts`, else 1m.
 */
function rpcSchedules(
  pollInterval: Setting | undefined,
  file: ConfigFile,
): { defaultSchedule: Schedule; forcedSchedule?: Schedule; contractsSchedule: Schedule; eventsSchedule: Schedule } {
  const fallback = parseSchedule(DEFAULTS.pollInterval) as Schedule;
  const forced = pollInterval ? parseSchedule(pollInterval.value) : undefined;
  if (typeof forced === "object")
    return { defaultSchedule: forced, forcedSchedule: forced, contractsSchedule: forced, eventsSchedule: forced };
  const fromFile = parseSchedule(file.poll_interval ?? DEFAULTS.pollInterval);
  const contracts = parseSchedule(file.schedules?.contracts ?? DEFAULTS.contractsInterval);
  const events = parseSchedule(file.schedules?.events ?? DEFAULTS.eventsInterval);
  return {
    defaultSchedule: typeof fromFile === "string" ? fallback : fromFile,
    contractsSchedule:
      typeof contracts === "string" ? (parseSchedule(DEFAULTS.contractsInterval) as Schedule) : contracts,
    eventsSchedule: typeof events === "string" ? (parseSchedule(DEFAULTS.eventsInterval) as Schedule) : events,
  };
}

/** A switch (--account.activity, --contract.events): its flag, or its environment variable's true or false. */
function switchOf(
  name: "account.activity" | "contract.events",
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  problems: string[],
): boolean {
  const envName = FLAGS[name].env;
  const text = env[envName];
  const fromEnv = text === undefined || text === "" ? "false" : text.trim().toLowerCase();
  if (fromEnv !== "true" && fromEnv !== "false")
    problems.push(`${envName}: expected true or false, got ${JSON.stringify(text)}`);
  return flags[name] === true || fromEnv === "true";
}

/**
 * Every value of a repeatable flag, or else its environment variable's comma-separated list, with where they came from.
 */
function listSetting(
  name: UrlFlag | ListFlag,
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
): { readonly source: string; readonly values: string[] } {
  const values = flags[name] as string[] | undefined;
  if (values?.length) return { source: `--${name}`, values };
  const envName = FLAGS[name].env;
  return {
    source: envName,
    values: (env[envName] ?? "")
      .split(",")
      .map((value) => value.trim())
      .filter(Boolean),
  };
}

/**
 * A watch flag's values (or its environment variable's list), with a problem when no URL flag
 * (`appliesTo`) names a target for them.
 */
function watchList(
  name: WatchFlag,
  appliesTo: string,
  urlCount: number,
  { flags, env, problems }: FlagContext,
): { readonly source: string; readonly values: string[] } {
  const specs = listSetting(name, flags, env);
  if (specs.values.length > 0 && urlCount === 0) {
    problems.push(
      `${specs.source}: applies to targets given with ${appliesTo}; with --config.file, list ${name}s under ` +
        `each target's \`${name}s:\``,
    );
  }
  return specs;
}

/** Every --account, or else ACCOUNTS' list; --account.activity reads their flow. */
function flagAccountsOf(context: FlagContext, urlCount: number): WatchedAccount[] {
  const { source, values } = watchList("account", "--horizon.url or --rpc.url", urlCount, context);
  const accounts = watchedAccounts(values.map(namedIdFromFlag), source, context.problems, () => source);
  const activity = switchOf("account.activity", context.flags, context.env, context.problems);
  return activity ? accounts.map((account) => ({ ...account, activity: true })) : accounts;
}

/** Every --contract, or else CONTRACTS' list; --contract.events counts their events. */
function flagContractsOf(context: FlagContext, urlCount: number): WatchedContract[] {
  const { source, values } = watchList("contract", "--rpc.url", urlCount, context);
  const contracts = watchedContracts(values.map(namedIdFromFlag), source, context.problems);
  const events = switchOf("contract.events", context.flags, context.env, context.problems);
  return events ? contracts.map((contract) => ({ ...contract, events: true })) : contracts;
}

/** Every --asset, or else ASSETS' list. */
function flagAssetsOf(context: FlagContext, urlCount: number): WatchedAsset[] {
  const { source, values } = watchList("asset", "--horizon.url", urlCount, context);
  return watchedAssets(values, source, context.problems);
}

/** Every --market, or else MARKETS' list. */
function flagMarketsOf(context: FlagContext, urlCount: number): WatchedMarket[] {
  const { source, values } = watchList("market", "--horizon.url", urlCount, context);
  const entries: MarketEntry[] = [];
  for (const value of values) {
    const entry = marketEntryFromFlag(value);
    if (typeof entry === "string") context.problems.push(`${source}: ${entry}`);
    else entries.push(entry);
  }
  return watchedMarkets(entries, source, context.problems);
}

function shardOf(shard: Setting | undefined, problems: string[]): Shard {
  if (!shard) return WHOLE;
  const parsed = parseShard(shard.value);
  if (typeof parsed === "object") return parsed;
  problems.push(`${shard.source}: ${parsed}`);
  return WHOLE;
}

function scheduleResolver(pollInterval: Setting | undefined, file: ConfigFile, problems: string[]): SchedulesFor {
  if (pollInterval) {
    const schedule = parseSchedule(pollInterval.value);
    if (typeof schedule === "string") problems.push(`${pollInterval.source}: ${schedule}`);
  }
  const defaultText = pollInterval?.value ?? file.poll_interval ?? DEFAULTS.pollInterval;
  // An explicit --poll.interval is the operator's latest word, so it beats per-endpoint file schedules.
  const fileSchedules: EndpointScheduleTexts = pollInterval ? {} : (file.schedules ?? {});
  const { raisedFrom } = corridorsSchedule(undefined, pollInterval?.value);
  const resolve = (overrides: EndpointScheduleTexts | undefined) =>
    Object.fromEntries(
      ENDPOINTS.map((endpoint) => {
        if (endpoint === "corridors")
          return [
            endpoint,
            corridorsSchedule(overrides?.corridors ?? fileSchedules.corridors, pollInterval?.value).schedule,
          ];
        // Some endpoints have a period of their own unless --poll.interval says otherwise; the file's
        // poll_interval is for the rest.
        const fallback = (pollInterval ? undefined : OWN_DEFAULT_SCHEDULES[endpoint]) ?? defaultText;
        const text = (pollInterval ? undefined : overrides?.[endpoint]) ?? fileSchedules[endpoint] ?? fallback;
        const schedule = parseSchedule(text);
        return [endpoint, typeof schedule === "string" ? parseSchedule(DEFAULTS.pollInterval) : schedule];
      }),
    ) as Record<Endpoint, Schedule>;
  return raisedFrom === undefined ? resolve : Object.assign(resolve, { corridorsRaisedFrom: raisedFrom });
}

/** Horizon targets from --horizon.url when given (they replace the file's), else from the file; names unique. */
function buildTargets(
  urls: readonly Setting[],
  flagWatched: {
    readonly accounts: readonly WatchedAccount[];
    readonly assets: readonly WatchedAsset[];
    readonly markets: readonly WatchedMarket[];
  },
  { file, path }: { file: ConfigFile; path: string },
  schedulesFor: SchedulesFor,
  timeoutMs: number,
  problems: string[],
): TargetConfig[] {
  return targetsOf<NonNullable<ConfigFile["targets"]>[number], TargetConfig>(
    { urls, entries: file.targets ?? [], timeoutMs },
    {
      label: "target",
      fromUrl: (basics) => ({
        ...basics,
        schedules: schedulesFor(undefined),
        requestBudgetPerHour: DEFAULTS.requestBudgetPerHour,
        accounts: flagWatched.accounts,
        assets: flagWatched.assets,
        markets: flagWatched.markets,
      }),
      fromEntry: (basics, entry, targetIndex) => ({
        ...basics,
        schedules: schedulesFor(entry.schedules),
        requestBudgetPerHour: entry.request_budget_per_hour ?? DEFAULTS.requestBudgetPerHour,
        accounts: watchedAccounts(
          entry.accounts ?? [],
          `target "${basics.name}"`,
          problems,
          (index, key) => `${path}: targets[${targetIndex}].accounts[${index}].${key}`,
        ),
        assets: watchedAssets(entry.assets ?? [], `${path}: targets[${targetIndex}].assets`, problems),
        markets: watchedMarkets(entry.markets ?? [], `target "${basics.name}"`, problems),
        ...corridorSettings(entry, `${path}: targets[${targetIndex}].corridors`, schedulesFor, problems),
      }),
    },
    problems,
  );
}

/** A file target's corridors, and whether --poll.interval was raised to their 15 s floor. */
function corridorSettings(
  entry: NonNullable<ConfigFile["targets"]>[number],
  where: string,
  schedulesFor: SchedulesFor,
  problems: string[],
): Pick<TargetConfig, "corridors" | "corridorsRaisedFrom"> {
  if (entry.corridors === undefined || entry.corridors.length === 0) return {};
  const corridors = corridorsOf(entry.corridors, where, problems);
  const raised = schedulesFor.corridorsRaisedFrom;
  return { corridors, ...(raised !== undefined ? { corridorsRaisedFrom: raised } : {}) };
}

async function webConfigOf(webConfigFile: Setting | undefined, problems: string[]): Promise<WebConfig | undefined> {
  if (!webConfigFile) return undefined;
  const loaded = await loadWebConfig(webConfigFile.value);
  if (!Array.isArray(loaded)) return loaded;
  problems.push(...loaded);
  return undefined;
}

function listenAddressOf(
  listenAddress: Setting | undefined,
  file: ConfigFile,
  problems: string[],
): ExporterConfig["listen"] | undefined {
  const listen = parseListenAddress(listenAddress?.value ?? file.web?.listen_address ?? DEFAULTS.listenAddress);
  if (typeof listen !== "string") return listen;
  problems.push(`${listenAddress?.source ?? "web.listen_address"}: ${listen}`);
  return undefined;
}

function poolsMaxOf(poolsMax: Setting | undefined, file: ConfigFile, problems: string[]): number {
  const fromFile = file.liquidity_pools?.max ?? DEFAULTS.poolsMax;
  if (!poolsMax) return fromFile;
  const parsed = z.coerce.number().int().min(0).max(MAX_POOLS).safeParse(poolsMax.value);
  if (parsed.success) return parsed.data;
  problems.push(`${poolsMax.source}: "${poolsMax.value}" is not ${POOLS_MAX_RANGE}`);
  return fromFile;
}

function logLevelOf(logLevel: Setting | undefined, file: ConfigFile, problems: string[]): LogLevel {
  const fromFile = file.log?.level ?? DEFAULTS.logLevel;
  if (!logLevel) return fromFile;
  if ((LOG_LEVELS as readonly string[]).includes(logLevel.value)) return logLevel.value as LogLevel;
  problems.push(`${logLevel.source}: expected one of ${LOG_LEVELS.join(", ")}, got "${logLevel.value}"`);
  return fromFile;
}

async function readConfigFile(path: string, problems: string[]): Promise<ConfigFile> {
  const loaded = await readYamlDocument(path, "config file", configFileSchema);
  if ("value" in loaded) return loaded.value;
  problems.push(...loaded.problems);
  return {};
}

/**
 * The targets as this shard watches them: only its share of each target's accounts and contracts
 * (shard 0 reads the state-archival settings wherever any shard watches contracts), and the
 * transaction probe on shard 0 alone (two replicas probing one account would race for its sequence).
 */
function watchedBy(
  shard: Shard,
  targets: readonly TargetConfig[],
  rpc: readonly RpcTargetConfig[],
): Pick<ExporterConfig, "targets" | "rpcTargets"> {
  if (shard.total === 1) return { targets, rpcTargets: rpc };
  const mine = <A extends { readonly id: string }>(accounts: readonly A[]) =>
    accounts.filter((account) => inShard(shard, account.id));
  return {
    targets: targets.map(({ txProbe, ...target }) => ({
      ...target,
      accounts: mine(target.accounts),
      ...(txProbe !== undefined && shard.index === 0 ? { txProbe } : {}),
    })),
    rpcTargets: rpc.map((target) => ({
      ...target,
      accounts: mine(target.accounts),
      contracts: mine(target.contracts),
      contractsWatched: target.contracts.length > 0,
    })),
  };
}

/** `HOST:PORT`, `:PORT` (all interfaces) or `[IPv6]:PORT`; an error message when malformed. */
export function parseListenAddress(text: string): { host: string; port: number } | string {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65_535)
    return `"${text}" is not HOST:PORT (e.g. :${DEFAULT_PORT}, 127.0.0.1:${DEFAULT_PORT}, [::1]:${DEFAULT_PORT})`;
  return { host: match[1] ?? (match[2] || "0.0.0.0"), port };
}

function byteCount(value: number | string): number {
  return typeof value === "number" ? value : (parseByteSize(value) ?? 0);
}

/** Each file target's `tx_probe:`, its seed read now; its account joins the watched ones. */
async function attachTxProbes(
  targets: TargetConfig[],
  entries: NonNullable<ConfigFile["targets"]>,
  env: NodeJS.ProcessEnv,
  problems: string[],
): Promise<void> {
  for (const [index, entry] of entries.entries()) {
    const target = targets[index];
    if (entry.tx_probe === undefined || target === undefined) continue;
    const txProbe = await loadTxProbe(entry.tx_probe, target, env);
    if (typeof txProbe === "string") problems.push(txProbe);
    else targets[index] = { ...target, txProbe, accounts: withProbeAccount(target.accounts, txProbe.accountId) };
  }
}
