/** A clean shutdown must finish within this, or the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 4_000;

/**
 * Resolves on the first SIGTERM or SIGINT with the signal's name, or when `stop` aborts (tests
 * stop a command that way instead of signalling their own process).
 */
export function waitForShutdownSignal(stop?: AbortSignal): Promise<NodeJS.Signals | "aborted"> {
  return new Promise((resolve) => {
    const finish = (reason: NodeJS.Signals | "aborted") => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      stop?.removeEventListener("abort", onAbort);
      resolve(reason);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      // Whatever still hangs after the deadline must not keep the process alive.
      setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
      finish(signal);
    };
    const onAbort = () => finish("aborted");
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    stop?.addEventListener("abort", onAbort, { once: true });
    if (stop?.aborted) onAbort();
  });
}
