/** A clean shutdown must finish within this, or the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 4_000;

/** How often a process started through npm checks that its parent is still there. */
const PARENT_CHECK_INTERVAL_MS = 500;

type ShutdownReason = NodeJS.Signals | "aborted" | "parent exited";

/** Resolves on the first SIGTERM or SIGINT, or when `stop` aborts (tests stop a command that way). Started through npm,
 * also when the parent goes: npx runs the bin under `sh -c`, and a SIGTERM npm forwards ends that shell, not node. */
export function waitForShutdownSignal(stop?: AbortSignal): Promise<ShutdownReason> {
  return new Promise((resolve) => {
    const parent = process.ppid;
    const checkParent = () => {
      if (process.ppid !== parent) onShutdown("parent exited");
    };
    const startedByNpm = process.env.npm_lifecycle_event !== undefined;
    const parentCheck = startedByNpm ? setInterval(checkParent, PARENT_CHECK_INTERVAL_MS).unref() : undefined;
    const finish = (reason: ShutdownReason) => {
      process.off("SIGTERM", onShutdown);
      process.off("SIGINT", onShutdown);
      clearInterval(parentCheck);
      stop?.removeEventListener("abort", onAbort);
      resolve(reason);
    };
    const onShutdown = (reason: NodeJS.Signals | "parent exited") => {
      // Whatever still hangs after the deadline must not keep the process alive.
      setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
      finish(reason);
    };
    const onAbort = () => finish("aborted");
    process.once("SIGTERM", onShutdown);
    process.once("SIGINT", onShutdown);
    stop?.addEventListener("abort", onAbort, { once: true });
    if (stop?.aborted) onAbort();
  });
}
