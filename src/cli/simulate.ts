import { parseListenAddress } from "../config/config.js";
import { parseDuration } from "../config/duration.js";
import { argumentShown, didYouMean } from "../config/messages.js";
import { MAX_NETWORK_START_AGE_MS, SCENARIOS, startSimulator, type StartOptions } from "../simulator/index.js";
import { waitForShutdownSignal } from "./signals.js";
import { reportProblems, versionLine, type CommandIo } from "./usage.js";

const DEFAULT_LISTEN_ADDRESS = "127.0.0.1:8000";
const MAX_POOLS = 100_000;
const MAX_LEDGER_SEQUENCE = 0xffff_ffff;
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const USAGE = `Usage: stellar-horizon-exporter simulate [flags]

Runs a simulated Horizon (Stellar's API server) that speaks Horizon's wire format
and can be told to misbehave. Runs until SIGINT or SIGTERM.

Flags (--flag=value or --flag value):
  --web.listen-address=HOST:PORT  where to listen (default ${DEFAULT_LISTEN_ADDRESS}; port 0 picks a free one)
  --scenario=NAME                 scenario at start (default healthy); one of:
                                  ${SCENARIOS.join(", ")}
  --ledger-interval=DURATION      fixed time between ledgers, e.g. 6s, 250ms, 1m (default: random 5-7s)
  --pools=N                       number of liquidity pools (default 50)
  --seed=N                        seed of every random choice (default 1)
  --network-passphrase=TEXT       network passphrase (default pubnet's)
  --network-start=TIME            when the network's history starts being served, RFC 3339, within the
                                  last day (default: now); simulators with the same seed, scenario,
                                  ledger interval and network start serve the same ledgers
  --fork-at=SEQ                   serve a fork from ledger SEQ on: other hashes than the network's
  --disable-path-finding          serve no /paths routes (they answer 404), as Horizon started with it
  --help, -h                      show this help
  --version                       show the version

Control endpoints: POST /_sim/scenario/NAME switches scenario, GET /_sim/state shows the model.
`;

/** A whole-number flag's parser: the option `key` set to the value from `min` to `max`, or that it is not `what`. */
function wholeNumber(key: "pools" | "seed" | "forkAt", min: number, max: number, what: string) {
  return (text: string): StartOptions | string => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    return value >= min && value <= max ? { [key]: value } : `"${text}" is not ${what}`;
  };
}

/** Each value flag's parser: the options its value sets, or what is wrong with it (checked in this order). */
const VALUE_FLAGS: Readonly<Record<string, (text: string) => StartOptions | string>> = {
  "web.listen-address": parseListenAddress,
  scenario: (text) =>
    (SCENARIOS as readonly string[]).includes(text)
      ? { scenario: text }
      : `unknown scenario "${text}" (known: ${SCENARIOS.join(", ")})`,
  "ledger-interval": (text) => {
    const ledgerIntervalMs = parseDuration(text) ?? 0;
    if (ledgerIntervalMs < 1) return `"${text}" is not a duration of at least 1ms (e.g. 6s, 250ms)`;
    return { ledgerIntervalMs };
  },
  pools: wholeNumber("pools", 0, MAX_POOLS, `a whole number from 0 to ${MAX_POOLS}`),
  seed: wholeNumber("seed", 0, Number.MAX_SAFE_INTEGER, "a non-negative whole number"),
  "network-passphrase": (text) => (text === "" ? "must not be empty" : { networkPassphrase: text }),
  "network-start": (text) => {
    const startMs = RFC_3339.test(text) ? Date.parse(text) : Number.NaN;
    const ageMs = Date.now() - startMs;
    if (Number.isNaN(startMs)) return `"${text}" is not an RFC 3339 time (e.g. 2026-01-02T03:04:05Z)`;
    if (!(ageMs >= 0 && ageMs <= MAX_NETWORK_START_AGE_MS)) return `${text} is not within the last day`;
    return { networkStartMs: startMs };
  },
  "fork-at": wholeNumber("forkAt", 1, MAX_LEDGER_SEQUENCE, `a ledger sequence from 1 to ${MAX_LEDGER_SEQUENCE}`),
};

const SWITCHES = new Map<string, "help" | "version" | "disablePathFinding">([
  ["--help", "help"],
  ["-h", "help"],
  ["--version", "version"],
  ["--disable-path-finding", "disablePathFinding"],
]);

function splitArguments(argv: readonly string[]) {
  const values: Record<string, string> = { "web.listen-address": DEFAULT_LISTEN_ADDRESS };
  const parsed = { values, disablePathFinding: false, help: false, version: false, problems: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i] ?? "";
    const switched = SWITCHES.get(argument);
    const equals = argument.indexOf("=");
    const name = argument.slice(2, equals < 0 ? undefined : equals);
    if (switched !== undefined) parsed[switched] = true;
    else if (!argument.startsWith("--")) parsed.problems.push(`unexpected argument ${argumentShown(argument)}`);
    else if (!Object.hasOwn(VALUE_FLAGS, name)) {
      const known = [...Object.keys(VALUE_FLAGS), "disable-path-finding", "help", "version"];
      parsed.problems.push(`unknown flag --${name}${didYouMean(name, known, "--")}`);
    } else if (equals >= 0) parsed.values[name] = argument.slice(equals + 1);
    else if (i + 1 < argv.length && !(argv[i + 1] ?? "").startsWith("--")) parsed.values[name] = argv[++i]!;
    else parsed.problems.push(`--${name} needs a value`);
  }
  return parsed;
}

/** `io.stop` stops the simulator like a signal would (tests use it instead of signalling the process). */
export async function runSimulateCommand(argv: string[], io: CommandIo & { stop?: AbortSignal } = {}): Promise<number> {
  const { stdout = process.stdout, stderr = process.stderr } = io;
  const parsed = splitArguments(argv);
  if (parsed.help || parsed.version) {
    stdout.write(parsed.help ? USAGE : versionLine());
    return 0;
  }
  const problems = [...parsed.problems];
  const options: StartOptions = parsed.disablePathFinding ? { disablePathFinding: true } : {};
  for (const [name, parse] of Object.entries(VALUE_FLAGS)) {
    const text = parsed.values[name];
    const result = text === undefined ? {} : parse(text);
    if (typeof result === "string") problems.push(`--${name}: ${result}`);
    else Object.assign(options, result);
  }
  if (problems.length > 0) {
    reportProblems(stderr, "simulate", problems, parsed.problems.length > 0);
    return 2;
  }

  const running = await startSimulator(options).catch((error: Error) => {
    reportProblems(stderr, "simulate", [error.message], false);
  });
  if (!running) return 1;
  const { scenario, pools, seed, networkStart, forkAt, historyLatestLedger } = running.simulator.state();
  const forked = forkAt === null ? "" : `, forked from ledger ${forkAt}`;
  stdout.write(
    `Horizon simulator listening on ${running.url} (scenario ${scenario}, ${pools} pools, seed ${seed}${forked})\n` +
      `  network: ledger ${historyLatestLedger} now; another simulator with --seed=${seed} ` +
      `--network-start=${networkStart} serves the same ledgers\n` +
      `  state: GET ${running.url}/_sim/state   switch scenario: POST ${running.url}/_sim/scenario/NAME\n`,
  );
  await waitForShutdownSignal(io.stop);
  await running.close();
  return 0;
}
