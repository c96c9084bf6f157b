import { scrubSecrets } from "../config/secret.js";
import { VERSION } from "../version.js";

/** The commands, each named by the first word of a command line; the exporter itself has none. */
export const COMMANDS: readonly string[] = ["simulate", "demo", "healthcheck", "help"];

type Output = { write(text: string): unknown };
export type CommandIo = { stdout?: Output; stderr?: Output };
type Asked = { kind: "help" | "version" };

/** What `--version` prints, for the exporter and each subcommand alike. */
export const versionLine = () => `stellar-horizon-exporter ${VERSION} (node ${process.version})\n`;

/** Writes `usage` for --help, the version line for --version; whether the command line asked for either. */
export function answeredHelp(command: { kind: string }, usage: string, stdout: Output): command is Asked {
  if (command.kind !== "help" && command.kind !== "version") return false;
  stdout.write(command.kind === "help" ? usage : versionLine());
  return true;
}

/** One line per problem, named after the command as typed, then a pointer to --help for a malformed command line. */
export function reportProblems(stderr: Output, command: string | undefined, problems: string[], usage = false): void {
  const prefix = command === undefined ? "stellar-horizon-exporter" : `stellar-horizon-exporter ${command}`;
  for (const problem of problems) stderr.write(`${prefix}: ${problem}\n`);
  if (usage) stderr.write("Run with --help for usage.\n");
}

/** An unhandled rejection as written to stderr: an error's stack, and its cause's; secrets masked as in every log. */
export function describeRejection(reason: unknown): string {
  let text = reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
  if (reason instanceof Error && reason.cause !== undefined) text += `\nCaused by: ${describeRejection(reason.cause)}`;
  return scrubSecrets(text);
}
