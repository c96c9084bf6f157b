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
    let shuttingDown = false;
    const finish = (reason: ShutdownReason) => {
      clearInterval(parentCheck);
      stop?.removeEventListener("abort", onAbort);
      resolve(reason);
    };
    // Listening on while shutting down: a second SIGTERM or SIGINT must not end the process before its clean exit.
    const onShutdown = (reason: NodeJS.Signals | "parent exited") => {
      if (shuttingDown) return;
      shuttingDown = true;
      // Whatever still hangs after the deadline must not keep the process alive.
      setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
      finish(reason);
    };
    const onAbort = () => {
      process.off("SIGTERM", onShutdown);
      process.off("SIGINT", onShutdown);
      finish("aborted");
    };
    process.on("SIGTERM", onShutdown);
    process.on("SIGINT", onShutdown);
    stop?.addEventListener("abort", onAbort, { once: true });
    if (stop?.aborted) onAbort();
  });
}

/** SIGHUP's default action ends the process; the exporter takes it as "reload" from its first line on. */
let reloadHandler: (() => void) | undefined;
let reloadHeld = false;
let holding = false;

/** From now on SIGHUP never ends the process: one arriving before the exporter can reload is held for it. */
export function holdReloadSignals(): void {
  if (holding) return;
  holding = true;
  process.on("SIGHUP", () => {
    if (reloadHandler === undefined) reloadHeld = true;
    else reloadHandler();
  });
}

/** Where SIGHUPs go from now on, a held one at once; undefined ignores them (while shutting down). */
export function routeReloadSignals(handler: (() => void) | undefined): void {
  holdReloadSignals();
  reloadHandler = handler;
  if (handler !== undefined && reloadHeld) {
    reloadHeld = false;
    handler();
  }
}
