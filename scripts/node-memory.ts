/**
 * Node's memory settings where operators set them: the npm scripts, the Dockerfile, the systemd
 * unit (checked against these by test/deploy), and the exporters the bench starts. A small young
 * generation and glibc's malloc tuned for buffers replaced every poll keep RSS lower with many
 * series (docs/performance.md); musl (Alpine) ignores the malloc variables.
 */
export const NODE_OPTIONS_FLAGS = ["--max-semi-space-size=4"] as const;

/**
 * V8 flags NODE_OPTIONS refuses, given on node's command line only. A heap growing factor of 1.5:
 * V8's page pool keeps the largest heap ever reached resident, and its own factor let a first poll
 * of 10 000 accounts reach three times what survives; 2 let RSS pass 200 MiB there, 1.25 cost the
 * pools poll half again its CPU (docs/performance.md, "Rendering in slices").
 */
export const COMMAND_LINE_FLAGS = ["--heap-growing-percent=50"] as const;

export const NODE_FLAGS = [...NODE_OPTIONS_FLAGS, ...COMMAND_LINE_FLAGS] as const;

export const NODE_ENVIRONMENT = { MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "1048576" } as const;

/** `env` with NODE_ENVIRONMENT's values for the variables it leaves unset. */
export function withNodeEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...NODE_ENVIRONMENT, ...env };
}
