import { parseArgs } from "node:util";
import { z } from "zod";
import { ENDPOINTS, type Endpoint, type PollEndpoint } from "../catalog/metrics.js";
import {
  looksLikeSeed,
  namedIdFromFlag,
  rpcWatchedAccounts,
  watchedAccounts,
  withAssets,
  type WatchedAccount,
} from "./accounts.js";
import { watchedAssets, type WatchedAsset } from "./assets.js";
import { watchedContracts } from "./contracts.js";
import { marketEntryFromFlag, watchedMarkets, type WatchedMarket } from "./markets.js";
import { corridorsOf, FASTEST_CORRIDORS, tooFastForCorridors, type CorridorConfig } from "./corridors.js";
import { loadTxProbe, withTxProbe, type TxProbeConfig } from "./tx-probe.js";
import { flagProblem } from "./messages.js";
import { LOG_LEVELS, MAX_POOLS, POOLS_MAX_RANGE, configFileSchema } from "./file-schema.js";
import type { ConfigFile, LogLevel, TargetEntry } from "./file-schema.js";
import type { RpcTargetConfig } from "./rpc-targets.js";
import { targetsOf, type ListSetting, type TargetBasics, type TargetList } from "./targets.js";
import { parseSchedule, type Schedule } from "./schedule.js";
import { loadWebConfig, type WebConfig } from "./web-config.js";
import { inShard, parseShard, WHOLE, type Shard } from "./shard.js";
import { readYamlDocument } from "./yaml-file.js";

export interface TargetConfig extends TargetBasics {
  readonly schedules: Readonly<Record<Endpoint, Schedule>>;
  /** Requests per hour this Horizon allows; planning above it logs a warning at start. */
  readonly requestBudgetPerHour: number;
  readonly accounts: readonly WatchedAccount[];
  readonly assets: readonly WatchedAsset[];
  /** Read on shard 0 only. */
  readonly markets: readonly WatchedMarket[];
  readonly txProbe?: TxProbeConfig;
  /** Config file only. */
  readonly corridors?: readonly CorridorConfig[];
  /** The --poll.interval the corridors' schedule was raised from, to 15 s. */
  readonly corridorsRaisedFrom?: string;
}

export interface ExporterConfig extends Readonly<ReturnType<typeof fileSettings>> {
  readonly targets: readonly TargetConfig[];
  readonly rpcTargets: readonly RpcTargetConfig[];
  readonly listen: { readonly host: string; readonly port: number };
  readonly logLevel: LogLevel;
  /** Which accounts and contracts this replica watches, and whether it exports network-level series (shard 0). */
  readonly shard: Shard;
  readonly configFile?: string;
  /** Re-read on SIGHUP like the config file. */
  readonly webConfigFile?: string;
  /** Absent: plain HTTP, no auth. */
  readonly web?: WebConfig;
}

const HORIZON_TARGETS: TargetList = { label: "target", key: "targets" };
const RPC_TARGETS: TargetList = { label: "Stellar RPC target", key: "rpc_targets" };

const DEFAULT_PORT = 9619;
const DEFAULTS = {
  listenAddress: `:${DEFAULT_PORT}`,
  pollInterval: "15s",
  poolsMax: 200,
  /** The public Horizon's hourly request limit. */
  requestBudgetPerHour: 3600,
  logLevel: "info" as LogLevel,
} as const;

/** Endpoints (Horizon's and Stellar RPC's) polled at a period of their own unless --poll.interval sets every one. */
const OWN_SCHEDULES: Partial<Record<PollEndpoint, string>> = {
  activity: "30s", // three requests an account, and payments are counted whatever the delay
  assets: "1m", // an asset's supply and flags change with its issuer's operations, rarely
  markets: "1m", // a price moves by trade aggregation buckets of a minute or more
  contracts: "1m", // TTLs move by a ledger every 5 to 7 s and matter over days
  events: "30s", // events are read at most 25 contracts a call: twice a minute keeps the backlog short
  corridors: "1m", // path finding is Horizon's most expensive endpoint
};

/** A flag: its environment variable, its value's placeholder (none: a switch), and its help line in pieces. */
function flag<const E extends string | undefined>(env: E, value: string | undefined, help: string[]) {
  return { env, value, help: help.join(""), list: false };
}

/** A repeatable flag; its environment variable takes a comma-separated list. */
function listFlag<const E extends string>(env: E, value: string, help: string[]) {
  return { ...flag(env, value, [...help, " The env var takes a comma-separated list."]), list: true as const };
}

/** Every flag, its environment variable and its help line; --help is printed from this list. */
export const FLAGS = {
  "horizon.url": listFlag("HORIZON_URL", "[NAME=]URL", [
    "Horizon to poll; repeatable. NAME (default host[:port]) becomes the `horizon` label.",
  ]),
  account: listFlag("ACCOUNTS", "[NAME=]ACCOUNT_ID", [
    "Account to watch on every --horizon.url and --rpc.url target; repeatable. NAME (default the id) becomes ",
    "the `account` label.",
  ]),
  "account.asset": listFlag("ACCOUNT_ASSETS", "CODE:ISSUER", [
    "Trustline to read of every --account on the --rpc.url targets (Stellar RPC cannot list them); repeatable.",
  ]),
  "account.activity": flag("ACCOUNT_ACTIVITY", undefined, [
    "Read the payments and own transactions of every --account on the --horizon.url targets (activity: true; ",
    "operations stay off). The env var takes true.",
  ]),
  asset: listFlag("ASSETS", "CODE:ISSUER", [
    "Asset whose supply, holders and flags to watch (Horizon's /assets) on every --horizon.url target; repeatable.",
  ]),
  contract: listFlag("CONTRACTS", "[NAME=]CONTRACT_ID", [
    "Soroban contract whose instance and code to watch on every --rpc.url target; repeatable. NAME (default ",
    "the id) becomes the `contract` label.",
  ]),
  "contract.events": flag("CONTRACT_EVENTS", undefined, [
    "Count the events of every --contract (as `events: true` does in the config file); the env var takes true.",
  ]),
  market: listFlag("MARKETS", "[NAME=]BASE/COUNTER", [
    "DEX market to watch on every --horizon.url target (BASE and COUNTER: native or CODE:ISSUER); repeatable. ",
    "NAME (default BASECODE/COUNTERCODE) becomes the `market` label.",
  ]),
  "rpc.url": listFlag("RPC_URL", "[NAME=]URL", [
    "Stellar RPC to poll (JSON-RPC POSTed to URL as given); repeatable. NAME (default host[:port]) becomes the ",
    "`rpc` label.",
  ]),
  "config.file": flag("CONFIG_FILE", "PATH", [
    "YAML configuration file (targets, headers, timeouts, schedules, pools, freshness). Flags override it.",
  ]),
  "web.config.file": flag("WEB_CONFIG_FILE", "PATH", [
    "exporter-toolkit style web config: TLS, basic auth (bcrypt), response headers.",
  ]),
  "web.listen-address": flag("WEB_LISTEN_ADDRESS", "HOST:PORT", [
    `Address to serve /metrics on (default ${DEFAULTS.listenAddress}).`,
  ]),
  "poll.interval": flag("POLL_INTERVAL", "SCHEDULE", [
    `Schedule of every endpoint: a duration (15s, 1m30s) or a cron pattern ("*/30 * * * * *"); overrides every `,
    `schedule in the config file (default ${DEFAULTS.pollInterval}).`,
  ]),
  "pools.max": flag("POOLS_MAX", "N", [
    `Liquidity pools to track per Horizon, at most ${MAX_POOLS} (default ${DEFAULTS.poolsMax}).`,
  ]),
  shard: flag("SHARD", "INDEX/TOTAL", [
    "Watch only the accounts and contracts whose StrKey's FNV-1a hash is INDEX modulo TOTAL; network-level ",
    "series only on shard 0 (default 0/1).",
  ]),
  "log.level": flag("LOG_LEVEL", "LEVEL", [`One of ${LOG_LEVELS.join(", ")} (default ${DEFAULTS.logLevel}).`]),
  help: flag(undefined, undefined, ["Show this help and exit (also -h)."]),
  version: flag(undefined, undefined, ["Show the version and exit."]),
};

type CommandLine =
  | { kind: "run"; config: ExporterConfig }
  | { kind: "help" | "version" }
  /** `usage` when the command line itself is malformed (an unknown flag, no target), so --help applies. */
  | { kind: "invalid"; problems: string[]; usage?: true };

type ListenCommandLine =
  | { kind: "run"; config: { listen: ExporterConfig["listen"]; tls: boolean } }
  | Exclude<CommandLine, { kind: "run" }>;

type Flag = keyof typeof FLAGS;
type FlagValues = { [K in Flag]?: string | string[] | boolean };
type ListFlag = { [K in Flag]: (typeof FLAGS)[K]["list"] extends true ? K : never }[Flag];
type WatchFlag = "account" | "account.asset" | "asset" | "contract" | "market";
type SwitchFlag = "account.activity" | "contract.events";
type ValueFlag = Exclude<Flag, "help" | "version" | SwitchFlag | ListFlag>;

type FlagContext = { readonly flags: FlagValues; readonly env: NodeJS.ProcessEnv; readonly problems: string[] };
/** A value and where it came from (`--flag` or `ENV_VAR`), so a problem names its source. */
type Setting = { readonly source: string; readonly value: string };
/** What every kind of target is built from: the flags, the file (at `path`), --poll.interval (`forced`), defaults. */
type TargetOptions = FlagContext & {
  readonly file: ConfigFile;
  readonly path: string;
  readonly forced: Schedule | undefined;
  readonly timeoutMs: number;
  /** --account's or ACCOUNTS', checked once for both kinds of target. */
  readonly flagAccounts: readonly WatchedAccount[];
};

const NO_TARGET =
  "no Horizon or Stellar RPC to poll: give --horizon.url=URL (or HORIZON_URL) or --rpc.url=URL (or RPC_URL), or " +
  "`targets`/`rpc_targets` in --config.file";

/** The parsed flags, or what ends the command line before any file is read: a malformed one, help or version. */
function commandFlags(argv: readonly string[]): FlagValues | Exclude<CommandLine, { kind: "run" }> {
  const flags = parseFlags(argv);
  if (typeof flags === "string") return { kind: "invalid", problems: [flags], usage: true };
  if (flags.help) return { kind: "help" };
  if (flags.version) return { kind: "version" };
  return flags;
}

/** Flags, then environment variables, then the config file, then defaults. */
export async function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<CommandLine> {
  const flags = commandFlags(argv);
  if ("kind" in flags) return flags;

  const problems: string[] = [];
  const context: FlagContext = { flags, env, problems };
  const setting = (name: ValueFlag) => settingOf(flags, env, name);
  const configFile = setting("config.file");
  const file =
    (configFile && (await readYamlDocument(configFile.value, "config file", configFileSchema, problems))) ?? {};
  const urls = listSetting("horizon.url", context);
  const rpcUrls = listSetting("rpc.url", context);
  const flagAccounts = flagAccountsOf(context, urls.values.length + rpcUrls.values.length);
  const forced = parsed(setting("poll.interval"), parseSchedule, problems);
  const timeoutMs = file.http?.timeout ?? 10_000;
  const options: TargetOptions = { ...context, file, path: configFile?.value ?? "", forced, timeoutMs, flagAccounts };
  const targets = buildTargets(urls, options);
  if (urls.values.length === 0) await attachTxProbes(targets, options);
  const rpc = buildRpcTargets(rpcUrls, options);
  problems.push(...seedsAsNames(targets, rpc));
  const noTarget = targets.length === 0 && rpc.length === 0 && problems.length === 0;
  if (noTarget) problems.push(NO_TARGET);
  const webConfigFile = setting("web.config.file");
  const web = webConfigFile ? await loadWebConfig(webConfigFile.value, problems) : undefined;
  const fileListen = { source: "web.listen_address", value: file.web?.listen_address ?? DEFAULTS.listenAddress };
  const listen = parsed(setting("web.listen-address") ?? fileListen, parseListenAddress, problems);
  const poolsMax = parsed(setting("pools.max"), poolsMaxOf, problems) ?? file.liquidity_pools?.max ?? DEFAULTS.poolsMax;
  const logLevel = parsed(setting("log.level"), logLevelOf, problems)?.level ?? file.log?.level ?? DEFAULTS.logLevel;
  const shard = parsed(setting("shard"), parseShard, problems) ?? WHOLE;
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
      configFile: configFile?.value,
      webConfigFile: webConfigFile?.value,
      web,
    },
  };
}

/** Names become labels (`horizon`, `rpc`, `account`, `contract`, `market`, `corridor`): a seed pasted as one would be
 * shown on /metrics. Each is refused without being quoted. */
function seedsAsNames(targets: readonly TargetConfig[], rpc: readonly RpcTargetConfig[]): string[] {
  const names = [
    ...[...targets, ...rpc].flatMap(({ name, accounts }) => [
      ["a target", name],
      ...accounts.map((account) => ["an account", account.name]),
    ]),
    ...targets.flatMap(({ markets, corridors }) => [
      ...markets.map((market) => ["a market", market.name]),
      ...(corridors ?? []).map((corridor) => ["a corridor", corridor.name]),
    ]),
    ...rpc.flatMap(({ contracts }) => contracts.map((contract) => ["a contract", contract.name])),
  ];
  return names
    .filter(([, name]) => looksLikeSeed(name ?? ""))
    .map(([what]) => `${what}'s name is a secret seed (S...), which a label would show: choose another name`);
}

/** A value flag, else its environment variable. */
function settingOf(flags: FlagValues, env: NodeJS.ProcessEnv, name: ValueFlag): Setting | undefined {
  const flag = flags[name];
  if (typeof flag === "string") return { source: `--${name}`, value: flag };
  const fromEnv = env[FLAGS[name].env];
  return fromEnv ? { source: FLAGS[name].env, value: fromEnv } : undefined;
}

/** Of the files, the keys `healthcheck` reads; the others are not checked. */
const listenFileSchema = z.object({ web: z.object({ listen_address: z.string().optional() }).nullish() });
const tlsFileSchema = z.object({ tls_server_config: z.unknown() });

/** Where the exporter listens, and whether over TLS: all `healthcheck` needs (/healthz asks no credentials). The rest
 * of the files goes unchecked: after an edit a reload refused, the exporter runs on as it was and answers /healthz. */
export async function loadListenConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<ListenCommandLine> {
  const flags = commandFlags(argv);
  if ("kind" in flags) return flags;
  const problems: string[] = [];
  const setting = (name: ValueFlag) => settingOf(flags, env, name);
  const configFile = setting("config.file");
  const fileListen = async (): Promise<Setting> => {
    const file = configFile && (await readYamlDocument(configFile.value, "config file", listenFileSchema, problems));
    return { source: "web.listen_address", value: file?.web?.listen_address ?? DEFAULTS.listenAddress };
  };
  // --web.listen-address overrides the file's: the file is then not read.
  const listen = parsed(setting("web.listen-address") ?? (await fileListen()), parseListenAddress, problems);
  const webConfigFile = setting("web.config.file");
  const web =
    webConfigFile && (await readYamlDocument(webConfigFile.value, "web config file", tlsFileSchema, problems));
  if (problems.length > 0 || listen === undefined) return { kind: "invalid", problems };
  return { kind: "run", config: { listen, tls: web?.tls_server_config != null } };
}

/** The settings the config file alone gives, or their defaults. */
function fileSettings({ http, ledgers, liquidity_pools: pools, freshness }: ConfigFile, poolsMax: number) {
  return {
    retries: http?.retries ?? 2,
    maxBodyBytes: http?.max_body_size ?? 8 * 1024 ** 2,
    ledgers: { maxPagesPerPoll: ledgers?.max_pages_per_poll ?? 10, backfill: ledgers?.backfill ?? 0 },
    liquidityPools: { max: poolsMax, reserves: pools?.reserves ?? [], ids: pools?.ids ?? [] },
    /** An endpoint's gauges leave /metrics when its data is older than this many poll periods. */
    staleAfterIntervals: freshness?.stale_after_intervals ?? 3,
  };
}

/** `-h` is `--help`; an unknown or malformed flag is a one-line problem. */
function parseFlags(argv: readonly string[]): FlagValues | string {
  try {
    return parseArgs({
      args: argv.map((argument) => (argument === "-h" ? "--help" : argument)),
      options: Object.fromEntries(
        Object.entries(FLAGS).map(([name, { value, list }]) => [
          name,
          { type: value === undefined ? "boolean" : "string", multiple: list },
        ]),
      ),
    }).values as FlagValues;
  } catch (error) {
    return flagProblem((error as Error).message, Object.keys(FLAGS));
  }
}

/** A setting parsed; undefined when it is unset, or when it does not parse, with a problem naming its source. */
function parsed<T extends object | number>(
  setting: Setting | undefined,
  parse: (text: string) => T | string,
  problems: string[],
): T | undefined {
  if (!setting) return undefined;
  const value = parse(setting.value);
  if (typeof value !== "string") return value;
  problems.push(`${setting.source}: ${value}`);
  return undefined;
}

/** A switch (--account.activity, --contract.events): its flag, or its environment variable's true or false. */
function switchOf(name: SwitchFlag, { flags, env, problems }: FlagContext): boolean {
  const text = env[FLAGS[name].env];
  const fromEnv = text ? text.trim().toLowerCase() : "false";
  if (fromEnv !== "true" && fromEnv !== "false")
    problems.push(`${FLAGS[name].env}: expected true or false, got ${JSON.stringify(text)}`);
  return flags[name] === true || fromEnv === "true";
}

/** Every value of a repeatable flag, or else its environment variable's comma-separated list. */
function listSetting(name: ListFlag, { flags, env }: FlagContext): ListSetting {
  const values = flags[name] as string[] | undefined;
  if (values?.length) return { source: `--${name}`, values };
  const envName = FLAGS[name].env;
  const list = (env[envName] ?? "").split(",").map((value) => value.trim());
  return { source: envName, values: list.filter(Boolean) };
}

/** A watch flag's values, with a problem when no URL flag (`appliesTo`) names a target for them; the file lists them
 * under each target's `key` (default the flag's name, plural). */
function watchList(name: WatchFlag, appliesTo: string, urlCount: number, context: FlagContext, key = `${name}s`) {
  const specs = listSetting(name, context);
  const what = key.replace("_", " ");
  if (specs.values.length > 0 && urlCount === 0)
    context.problems.push(
      `${specs.source}: applies to targets given with ${appliesTo}; with --config.file, list ${what} under ` +
        `each target's \`${key}:\``,
    );
  return specs;
}

/** Every --account, or else ACCOUNTS' list; --account.activity reads their flow. */
function flagAccountsOf(context: FlagContext, urlCount: number): WatchedAccount[] {
  const { source, values } = watchList("account", "--horizon.url or --rpc.url", urlCount, context);
  const accounts = watchedAccounts(values.map(namedIdFromFlag), source, context.problems, () => source);
  return switchOf("account.activity", context) ? accounts.map((account) => ({ ...account, activity: true })) : accounts;
}

/** --poll.interval (`forced`), the operator's latest word; else the one `written`, its own, the file's, ours. */
function scheduleOf({ forced, file }: TargetOptions, endpoint: PollEndpoint, written: string | undefined): Schedule {
  const text = written ?? OWN_SCHEDULES[endpoint] ?? file.poll_interval ?? DEFAULTS.pollInterval;
  return forced ?? (parseSchedule(text) as Schedule); // the file's schema checked its texts
}

/** A Horizon target's schedules: its own, else the file's. */
function schedulesOf(options: TargetOptions, overrides?: TargetEntry["schedules"]): Record<Endpoint, Schedule> {
  const schedules = ENDPOINTS.map((endpoint) => {
    const schedule = scheduleOf(options, endpoint, overrides?.[endpoint] ?? options.file.schedules?.[endpoint]);
    const raised = endpoint === "corridors" && tooFastForCorridors(schedule);
    return [endpoint, raised ? FASTEST_CORRIDORS : schedule];
  });
  return Object.fromEntries(schedules) as Record<Endpoint, Schedule>;
}

/** Horizon targets from --horizon.url when given (they replace the file's), else from the file; names unique. */
function buildTargets(urls: ListSetting, options: TargetOptions): TargetConfig[] {
  const { file, forced, problems } = options;
  const assets = watchList("asset", "--horizon.url", urls.values.length, options);
  const flagAssets = watchedAssets(assets.values, assets.source, problems);
  const markets = watchList("market", "--horizon.url", urls.values.length, options);
  const parse = (value: string) => parsed({ source: markets.source, value }, marketEntryFromFlag, problems) ?? [];
  const flagMarkets = watchedMarkets(markets.values.flatMap(parse), markets.source, problems);
  const corridorsRaisedFrom = forced && tooFastForCorridors(forced) ? forced.text : undefined;
  return targetsOf(options, HORIZON_TARGETS, urls, file.targets ?? [], (basics, entry, where): TargetConfig => {
    const requestBudgetPerHour = entry?.request_budget_per_hour ?? DEFAULTS.requestBudgetPerHour;
    if (entry === undefined) {
      const flagWatched = { accounts: options.flagAccounts, assets: flagAssets, markets: flagMarkets };
      return { ...basics, ...flagWatched, schedules: schedulesOf(options), requestBudgetPerHour };
    }
    const keyPath = (index: number, key: string) => `${where}.accounts[${index}].${key}`;
    return {
      ...basics,
      schedules: schedulesOf(options, entry.schedules),
      requestBudgetPerHour,
      accounts: watchedAccounts(entry.accounts ?? [], `target "${basics.name}"`, problems, keyPath),
      assets: watchedAssets(entry.assets ?? [], `${where}.assets`, problems),
      markets: watchedMarkets(entry.markets ?? [], `target "${basics.name}"`, problems),
      ...(entry.corridors?.length
        ? { corridors: corridorsOf(entry.corridors, `${where}.corridors`, problems), corridorsRaisedFrom }
        : {}),
    };
  });
}

/** getNetwork and getVersionInfo change only on upgrades: polled this often, or at the status schedule if rarer. */
const RPC_VERSIONS_SCHEDULE = parseSchedule("10m") as Schedule;

/** Stellar RPC targets from --rpc.url when given (they replace the file's), else from the file; names unique. */
function buildRpcTargets(urls: ListSetting, options: TargetOptions): RpcTargetConfig[] {
  const { file, flagAccounts, problems } = options;
  const shared = {
    accounts: scheduleOf(options, "accounts", file.schedules?.accounts),
    contracts: scheduleOf(options, "contracts", file.schedules?.contracts),
    events: scheduleOf(options, "events", file.schedules?.events),
  };
  const schedulesFor = (text?: string): RpcTargetConfig["schedules"] => {
    const status = scheduleOf(options, "status", text);
    const versions = status.periodMs > RPC_VERSIONS_SCHEDULE.periodMs ? status : RPC_VERSIONS_SCHEDULE;
    return { status, versions, ...shared };
  };
  const flagAssets = watchList("account.asset", "--rpc.url", urls.values.length, options, "account_assets");
  const contracts = watchList("contract", "--rpc.url", urls.values.length, options);
  const watched = watchedContracts(contracts.values.map(namedIdFromFlag), contracts.source, problems);
  const flagContracts = switchOf("contract.events", options)
    ? watched.map((contract) => ({ ...contract, events: true }))
    : watched;
  // The flag accounts were checked with the Horizon targets': only their assets are new here, checked even unused.
  const flagReads = withAssets(flagAccounts, flagAssets.values, flagAssets.source, problems);
  return targetsOf(options, RPC_TARGETS, urls, file.rpc_targets ?? [], (basics, entry): RpcTargetConfig => {
    if (entry === undefined)
      return { ...basics, schedules: schedulesFor(), accounts: flagReads, contracts: flagContracts };
    const where = `Stellar RPC target "${basics.name}"`;
    return {
      ...basics,
      schedules: schedulesFor(entry.schedule),
      accounts: rpcWatchedAccounts(entry.accounts ?? [], entry.account_assets ?? [], where, problems),
      contracts: watchedContracts(entry.contracts ?? [], where, problems),
    };
  });
}

/** Digits only: Number() reads "" as 0 pools, and takes "1e3" or "0x10". */
function poolsMaxOf(text: string): number | string {
  const max = Number(text.trim());
  return /^\d+$/.test(text.trim()) && max <= MAX_POOLS ? max : `"${text}" is not ${POOLS_MAX_RANGE}`;
}

function logLevelOf(text: string): { level: LogLevel } | string {
  const level = LOG_LEVELS.find((name) => name === text);
  return level ? { level } : `expected one of ${LOG_LEVELS.join(", ")}, got "${text}"`;
}

/** This shard's accounts and contracts; the tx probe on shard 0 alone (two on one account race for its sequence). */
function watchedBy(shard: Shard, targets: readonly TargetConfig[], rpc: readonly RpcTargetConfig[]) {
  if (shard.total === 1) return { targets, rpcTargets: rpc };
  const mine = <A extends { readonly id: string }>(accounts: readonly A[]) =>
    accounts.filter((account) => inShard(shard, account.id));
  return {
    targets: targets.map((target) => ({
      ...target,
      accounts: mine(target.accounts),
      txProbe: shard.index === 0 ? target.txProbe : undefined,
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

/** Each file target's `tx_probe:`, its seed read now; its account joins the watched ones. */
async function attachTxProbes(targets: TargetConfig[], { file, env, problems }: TargetOptions): Promise<void> {
  for (const [index, entry] of (file.targets ?? []).entries()) {
    const target = targets[index];
    if (entry.tx_probe === undefined || target === undefined) continue;
    const txProbe = await loadTxProbe(entry.tx_probe, target, env);
    if (typeof txProbe === "string") problems.push(txProbe);
    else targets[index] = withTxProbe(target, txProbe);
  }
}
