/**
 * The V8 flags the exporter runs with: a small young generation keeps RSS about 30% lower with
 * tens of thousands of series (README, Performance). V8 sizes the young generation only when the
 * heap is created, so `v8.setFlagsFromString` at run time changes nothing (measured: new space
 * stays 32 MiB); and `#!/usr/bin/env -S node --flag` needs GNU env, which busybox (Alpine) lacks.
 */
export const NODE_FLAGS = ["--max-semi-space-size=4"] as const;

/**
 * The command line that restarts this process with NODE_FLAGS, or undefined when the operator
 * already chose a semi-space size (on node's command line or in NODE_OPTIONS).
 */
export function relaunchCommand(
  execPath: string,
  execArgv: readonly string[],
  argv: readonly string[],
  nodeOptions: string | undefined,
): string[] | undefined {
  const chosen = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((flag) => flag.startsWith("--max-semi-space-size"));
  return chosen ? undefined : [execPath, ...NODE_FLAGS, ...execArgv, ...argv.slice(1)];
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Replaces this process with one running NODE_FLAGS where Node has `process.execve` (22.15+):
 * same process id, so signals and exit codes are untouched and no parent stays behind. Older Node
 * runs on with V8's default young generation; a supervising parent would cost more memory
 * (about 43 MiB RSS) than the flag saves.
 */
export function relaunchWithNodeFlags(): void {
  const execve = (process as { execve?: Execve }).execve;
  const command = relaunchCommand(process.execPath, process.execArgv, process.argv, process.env.NODE_OPTIONS);
  if (typeof execve !== "function" || command === undefined) return;
  try {
    execve.call(process, process.execPath, command, process.env);
  } catch {
    // The flag only saves memory: an exec the system refuses must not keep the exporter from starting.
  }
}
