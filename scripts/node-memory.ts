/**
 * Node's memory settings where operators set them: the npm scripts, the Dockerfile, the systemd
 * unit (checked against these by test/deploy), and the exporters the bench starts. A small young
 * generation and glibc's malloc tuned for buffers replaced every poll keep RSS lower with many
 * series (docs/performance.md); musl (Alpine) ignores the malloc variables.
 */
export const NODE_FLAGS = ["--max-semi-space-size=4"] as const;

export const NODE_ENVIRONMENT = { MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "1048576" } as const;

/** `env` with NODE_ENVIRONMENT's values for the variables it leaves unset. */
export function withNodeEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...NODE_ENVIRONMENT, ...env };
}
