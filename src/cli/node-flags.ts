import { setFlagsFromString } from "node:v8";

/**
 * The V8 flags the exporter starts with: a small young generation keeps RSS about 30% lower with
 * tens of thousands of series (docs/performance.md). V8 sizes the young generation only when the
 * heap is created, so `v8.setFlagsFromString` at run time changes nothing (measured: new space
 * stays 32 MiB); and `#!/usr/bin/env -S node --flag` needs GNU env, which busybox (Alpine) lacks.
 */
export const NODE_FLAGS = ["--max-semi-space-size=4"] as const;

/**
 * The V8 flags set once running: V8 reads its heap growing factor after every major collection.
 * The heap may grow to 1.8 times what the last collection kept, where V8's own factor let it
 * reach 2.3 times with 10 000 pools (it allows up to 4 with plenty of memory): the garbage of past
 * polls is freed sooner: about 40 MiB less RSS with 10 000 pools, for up to a quarter more CPU per
 * poll, within this machine's noise (docs/performance.md).
 * Unlike a lower `--max-old-space-size`, it sets no limit a large configuration could run into.
 */
export const RUNTIME_V8_FLAGS = ["--heap-growing-percent=80"] as const;

/** A flag's name, with V8's underscores read as dashes: `--max_semi_space_size=1` is `--max-semi-space-size`. */
const flagName = (flag: string) => flag.split("=")[0]!.replaceAll("_", "-");

/** Those of `flags` the operator has not set, on node's command line or in NODE_OPTIONS. */
function unset(flags: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const chosen = new Set([...execArgv, ...(nodeOptions ?? "").split(/\s+/)].map(flagName));
  return flags.filter((flag) => !chosen.has(flagName(flag)));
}

/**
 * What the exporter's environment sets where the operator set nothing: glibc's malloc, tuned for
 * a process whose large buffers (pages, rendered pieces, gzip members) are replaced every poll.
 * By default each thread that allocates gets an arena of its own (V8's compiler and garbage-
 * collector threads, libuv's pool compressing gzip members), and a freed mapped buffer raises the
 * size above which malloc maps buffers of their own, so buffers of a few hundred kilobytes end up
 * in the arenas and what they free stays there in fragments. One arena, and buffers from 1 MiB
 * up always mapped and unmapped on their own: RSS 10 to 30 MiB lower with 10 000 pools (docs/performance.md). Not lower: from 128 KiB, every page (280 KiB), piece and zlib state of a poll was a
 * mapping of its own, its memory faulted in afresh and unmapped again, for 1.5 ms more CPU per
 * 1 000 pools polled. One arena rather than two takes back the 4 MiB that costs, at no measurable
 * CPU: the threads that allocate much (libuv's, compressing) do so a few times a poll.
 * musl (Alpine) ignores both.
 */
export const NODE_ENVIRONMENT = { MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "1048576" } as const;

/** `env` with NODE_ENVIRONMENT's values for the variables it leaves unset. */
export function withNodeEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...NODE_ENVIRONMENT, ...env };
}

/** How a restarted process runs: its command line and its environment. */
export interface Relaunch {
  readonly args: string[];
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The command line and environment that restart this process with NODE_FLAGS and
 * NODE_ENVIRONMENT, or undefined when the operator already chose them.
 */
export function relaunchCommand(
  execPath: string,
  execArgv: readonly string[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Relaunch | undefined {
  const missing = unset(NODE_FLAGS, execArgv, env.NODE_OPTIONS);
  const environmentChosen = Object.keys(NODE_ENVIRONMENT).every((name) => env[name] !== undefined);
  if (missing.length === 0 && environmentChosen) return undefined;
  return { args: [execPath, ...missing, ...execArgv, ...argv.slice(1)], env: withNodeEnvironment(env) };
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Replaces this process with one running NODE_FLAGS and NODE_ENVIRONMENT where Node has
 * `process.execve` (22.15+): same process id, so signals and exit codes are untouched and no
 * parent stays behind. Node 22.12 to 22.14, still supported, run on with V8's default young
 * generation and glibc's defaults; a supervising parent would cost more memory than they save.
 */
export function relaunchWithNodeFlags(): void {
  const execve = (process as { execve?: Execve }).execve;
  const relaunch = relaunchCommand(process.execPath, process.execArgv, process.argv, process.env);
  if (typeof execve !== "function" || relaunch === undefined) return;
  try {
    execve.call(process, process.execPath, relaunch.args, relaunch.env);
  } catch {
    // The flags only save memory: an exec the system refuses must not keep the exporter from starting.
  }
}

/** Sets those of RUNTIME_V8_FLAGS the operator has not set; returns the ones it set. */
export function applyRuntimeV8Flags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS,
): string[] {
  const missing = unset(RUNTIME_V8_FLAGS, execArgv, nodeOptions);
  for (const flag of missing) setFlagsFromString(flag);
  return missing;
}
