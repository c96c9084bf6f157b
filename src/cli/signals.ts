/** A clean shutdown must finish within this, or the process exits anyway. */
export const SHUTDOWN_DEADLINE_MS = 4_000;

/** Resolves on the first SIGTERM or SIGINT, with the signal's name. */
export function waitForShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      // Whatever still hangs after the deadline must not keep the process alive.
      setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
      resolve(signal);
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  });
}
