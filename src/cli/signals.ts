import { isDeferringShell, sampleShell, ShellSignalJudge } from "./npm-shell.js";

/** A clean shutdown must finish within this, or the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 4_000;

/** How often a process started through npm checks that its parent is still there, and not signalled. */
const PARENT_CHECK_INTERVAL_MS = 500;

export type ShutdownReason = NodeJS.Signals | "aborted" | "parent exited" | "parent shell signalled";

/** The judge of the shell npm ran this process through, when it is one that holds SIGINT back. */
function shellJudge(parent: number): ShellSignalJudge | undefined {
  const first = isDeferringShell(parent) ? sampleShell(parent, process.pid) : undefined;
  return first === undefined ? undefined : new ShellSignalJudge(first, PARENT_CHECK_INTERVAL_MS);
}

/**
 * Resolves on the first SIGTERM or SIGINT with the signal's name, or when `stop` aborts (tests
 * stop a command that way instead of signalling their own process). Started through npm
 * (`npm start`, `npx ...`), it also resolves when the parent process goes: `npx` runs the bin
 * under `sh -c`, and a SIGTERM that npm forwards ends that shell without reaching node; and when
 * that shell is signalled while it holds a SIGINT back (npm-shell.ts).
 */
export function waitForShutdownSignal(stop?: AbortSignal): Promise<ShutdownReason> {
  return new Promise((resolve) => {
    const parent = process.ppid;
    const startedByNpm = process.env.npm_lifecycle_event !== undefined;
    const judge = startedByNpm ? shellJudge(parent) : undefined;
    const onContinue = () => judge?.continued(performance.now());
    const checkParent = () => {
      if (process.ppid !== parent) return onShutdown("parent exited");
      if (judge === undefined) return;
      const sample = sampleShell(parent, process.pid);
      if (sample !== undefined && judge.observe(sample)) onShutdown("parent shell signalled");
    };
    const parentCheck = startedByNpm ? setInterval(checkParent, PARENT_CHECK_INTERVAL_MS).unref() : undefined;
    const finish = (reason: ShutdownReason) => {
      process.off("SIGTERM", onShutdown);
      process.off("SIGINT", onShutdown);
      process.off("SIGCONT", onContinue);
      clearInterval(parentCheck);
      stop?.removeEventListener("abort", onAbort);
      resolve(reason);
    };
    const onShutdown = (reason: NodeJS.Signals | "parent exited" | "parent shell signalled") => {
      // Whatever still hangs after the deadline must not keep the process alive.
      setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
      finish(reason);
    };
    const onAbort = () => finish("aborted");
    process.once("SIGTERM", onShutdown);
    process.once("SIGINT", onShutdown);
    if (judge !== undefined) process.on("SIGCONT", onContinue);
    stop?.addEventListener("abort", onAbort, { once: true });
    if (stop?.aborted) onAbort();
  });
}
