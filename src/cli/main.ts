#!/usr/bin/env node
import { pino } from "pino";
import { FLAGS, loadConfig } from "../config/config.js";
import { startExporter } from "../exporter.js";
import { VERSION } from "../version.js";

/** A clean shutdown must finish within this, or the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 4_000;

function usage(): string {
  const lines = [
    "Usage: stellar-horizon-exporter [FLAGS]",
    "       stellar-horizon-exporter simulate [FLAGS]   (a Horizon simulator; see simulate --help)",
    "",
    "Prometheus exporter for Stellar's Horizon API.",
    "",
    "Flags (each also settable by the environment variable shown):",
  ];
  for (const [name, flag] of Object.entries(FLAGS)) {
    const spec = flag.value ? `--${name}=${flag.value}` : `--${name}`;
    lines.push(`  ${spec.padEnd(32)} ${flag.help}${flag.env ? ` [${flag.env}]` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

async function runExporter(argv: string[]): Promise<number> {
  const command = await loadConfig(argv, process.env);
  switch (command.kind) {
    case "help":
      process.stdout.write(usage());
      return 0;
    case "version":
      process.stdout.write(`stellar-horizon-exporter ${VERSION} (node ${process.version})\n`);
      return 0;
    case "invalid":
      for (const problem of command.problems) process.stderr.write(`stellar-horizon-exporter: ${problem}\n`);
      process.stderr.write("Run with --help for usage.\n");
      return 2;
  }
  const logger = pino({ level: command.config.logLevel });
  let exporter;
  try {
    exporter = await startExporter(command.config, { logger });
  } catch (error) {
    logger.fatal({ error: (error as Error).message }, "cannot start");
    return 1;
  }
  const running = exporter;
  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "shutting down");
      setTimeout(() => {
        logger.error("shutdown took too long; exiting anyway");
        resolve(0);
      }, SHUTDOWN_DEADLINE_MS).unref();
      running.close().then(() => resolve(0), () => resolve(0));
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "simulate") {
    const { runSimulateCommand } = await import("./simulate.js");
    return runSimulateCommand(argv.slice(1));
  }
  return runExporter(argv);
}

process.on("unhandledRejection", (reason) => {
  process.stderr.write(`stellar-horizon-exporter: unhandled rejection: ${String(reason)}\n`);
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`stellar-horizon-exporter: ${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  },
);
