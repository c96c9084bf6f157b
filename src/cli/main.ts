import { pino } from "pino";
import { FLAGS, loadConfig } from "../config/config.js";
import { argumentShown, didYouMean } from "../config/messages.js";
import { scrubSecrets } from "../config/secret.js";
import { routeReloadSignals, waitForShutdownSignal } from "./signals.js";
import { answeredHelp, COMMANDS, describeRejection, reportProblems } from "./usage.js";

function usage(): string {
  const flags = Object.entries(FLAGS).map(([name, flag]) => {
    const spec = flag.value ? `--${name}=${flag.value}` : `--${name}`;
    return `  ${spec.padEnd(32)} ${flag.help}${flag.env ? ` [${flag.env}]` : ""}\n`;
  });
  return `Usage: stellar-horizon-exporter [FLAGS]
       stellar-horizon-exporter simulate [FLAGS]   (a Horizon simulator; see simulate --help)
       stellar-horizon-exporter demo [FLAGS]       (the simulator plus an exporter polling it; see demo --help)
       stellar-horizon-exporter healthcheck [FLAGS] (exit 0 when the exporter answers /healthz; see healthcheck --help)
       stellar-horizon-exporter help [COMMAND]     (this help, or a command's)

Prometheus exporter for Stellar's Horizon API.

Flags (each also settable by the environment variable shown):
${flags.join("")}`;
}

async function runExporter(argv: string[]): Promise<number> {
  const command = await loadConfig(argv, process.env);
  if (answeredHelp(command, usage(), process.stdout)) return 0;
  if (command.kind === "invalid") {
    reportProblems(process.stderr, undefined, command.problems, command.usage);
    return 2;
  }
  // Every line passes the scrubber: no secret the process holds reaches a log, whatever carried it.
  const logger = pino({ level: command.config.logLevel, hooks: { streamWrite: scrubSecrets } });
  // Loaded only to run: --help, --version and a mistyped flag answer without loading the exporter.
  const exporter = await import("../exporter.js")
    .then(({ startExporter }) => startExporter(command.config, { logger }))
    .catch((error: Error) => {
      logger.fatal({ error: error.message }, "cannot start");
      // The log line goes to stdout as JSON; a person at a terminal reads stderr.
      process.stderr.write(`stellar-horizon-exporter: ${error.message}\n`);
    });
  if (!exporter) return 1;
  const { configFile, webConfigFile } = command.config;
  const onReloadSignal = () => {
    if (configFile === undefined && webConfigFile === undefined) {
      logger.warn("SIGHUP: nothing to reload without --config.file or --web.config.file");
      return;
    }
    // Flags and environment are read again too, but they are what they were at start.
    logger.info({ configFile, webConfigFile }, "SIGHUP: reloading the configuration");
    void exporter.reload(async () => {
      const reloaded = await loadConfig(argv, process.env);
      return reloaded.kind === "run"
        ? reloaded.config
        : { problems: reloaded.kind === "invalid" ? reloaded.problems : [] };
    });
  };
  routeReloadSignals(onReloadSignal);
  const signal = await waitForShutdownSignal();
  routeReloadSignals(undefined);
  logger.info({ signal }, "shutting down");
  await exporter.close();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  // A first word that is no flag names a command: one that does not exist is a typo, not a target.
  const command = argv[0] === "help" ? argv[1] : argv[0];
  if (command !== undefined && !command.startsWith("-") && !COMMANDS.includes(command)) {
    // A URL given without its flag lands here: it is described, never echoed with its keys.
    const problem = `unknown command ${argumentShown(command)}${didYouMean(command, COMMANDS)}`;
    reportProblems(process.stderr, undefined, [problem], true);
    return 2;
  }
  // `help` and `help COMMAND` are `--help` and `COMMAND --help`.
  if (argv[0] === "help") return main(argv[1] === undefined ? ["--help"] : [argv[1], "--help"]);
  switch (argv[0]) {
    case "simulate":
      return (await import("./simulate.js")).runSimulateCommand(argv.slice(1));
    case "demo":
      return (await import("./demo.js")).runDemoCommand(argv.slice(1));
    case "healthcheck":
      return (await import("./healthcheck.js")).runHealthcheckCommand(argv.slice(1));
    default:
      return runExporter(argv);
  }
}

process.on("unhandledRejection", (reason) => {
  process.stderr.write(`stellar-horizon-exporter: unhandled rejection: ${describeRejection(reason)}\n`);
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`stellar-horizon-exporter: ${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  },
);
