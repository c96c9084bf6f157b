import { execFileSync } from "node:child_process";

/**
 * Absolute path of a Prometheus binary (promtool, prometheus) on PATH. CI installs them from
 * Debian's `prometheus` package; a missing one fails the test with that instruction.
 */
export function requireBinary(name: "promtool" | "prometheus"): string {
  try {
    return execFileSync("which", [name], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      `${name} is not on PATH: install it with \`apt-get install prometheus\` (Debian package, 2.42 or later).`,
    );
  }
}

export interface CommandResult {
  readonly code: number;
  readonly output: string;
}

/** Runs a command to completion, capturing stdout and stderr together. */
export function run(binary: string, args: readonly string[], cwd: string): CommandResult {
  try {
    return {
      code: 0,
      output: execFileSync(binary, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    };
  } catch (error) {
    const failure = error as { status?: number; stdout?: string; stderr?: string };
    return { code: failure.status ?? 1, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}
