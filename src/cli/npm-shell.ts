import { readFileSync } from "node:fs";

/**
 * npm runs a package's bin (`npx`, `npm exec`, a script without `exec`) through `sh -c` and
 * forwards SIGINT and SIGTERM to that shell alone. SIGTERM ends the shell (its parent goes);
 * a SIGINT, a shell waiting for its foreground child holds back until the child ends (dash, and
 * bash when it has not exec'd), so the process would never hear it. Waiting for its child, such a
 * shell sleeps until a signal reaches it: each time it wakes and sleeps again, Linux counts one
 * more voluntary context switch in /proc. Nothing here works without /proc (macOS): there, only
 * the shell's exit is noticed.
 */

/** SIGINT's bit in /proc's SigCgt mask (signal n is bit n − 1). */
const SIGINT_MASK = 1n << 1n;

/** One look at the shell this process runs under. */
export interface ShellSample {
  /** How often the shell went back to sleep: waiting for its only child, it wakes only when signalled. */
  readonly sleeps: number;
  /** Whether this process is the shell's only child: a sibling's exit wakes the shell too. */
  readonly onlyChild: boolean;
  /** When the sample was taken, on the monotonic clock and on the wall clock. */
  readonly monotonicMs: number;
  readonly wallMs: number;
}

type ReadText = (path: string) => string;
const readText: ReadText = (path) => readFileSync(path, "utf8");

/**
 * Whether `ppid` is a shell running a command string (`-c`) that catches SIGINT, that is, one
 * that holds a SIGINT back while it waits: npm's own process forwards signals itself, and a
 * shell that leaves SIGINT at its default dies of it, which the parent check notices.
 */
export function isDeferringShell(ppid: number, read: ReadText = readText): boolean {
  try {
    const argv = read(`/proc/${ppid}/cmdline`).split("\0");
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(read(`/proc/${ppid}/status`))?.[1];
    return argv[1] === "-c" && caught !== undefined && (BigInt(`0x${caught}`) & SIGINT_MASK) !== 0n;
  } catch {
    return false;
  }
}

/** A look at shell `ppid` now, or undefined when /proc does not show it. */
export function sampleShell(ppid: number, pid: number, read: ReadText = readText): ShellSample | undefined {
  try {
    const sleeps = /^voluntary_ctxt_switches:\s*(\d+)$/m.exec(read(`/proc/${ppid}/status`))?.[1];
    if (sleeps === undefined) return undefined;
    let onlyChild = true;
    try {
      onlyChild = read(`/proc/${ppid}/task/${ppid}/children`).trim() === String(pid);
    } catch {
      // Kernels without CONFIG_PROC_CHILDREN do not list children: the shell is npm's, running this alone.
    }
    return { sleeps: Number(sleeps), onlyChild, monotonicMs: performance.now(), wallMs: Date.now() };
  } catch {
    return undefined;
  }
}

/**
 * Judges successive looks at the shell, `intervalMs` apart. A stop and continue (Ctrl+Z, `fg`), a
 * frozen container or a suspended machine wake the shell too, and stop this process as well: a
 * look that comes late on either clock judges nothing, and a wake counts as a signal only when
 * the next look finds that this process was not continued since the wake's interval began
 * (SIGCONT may reach it after a timer that was due). Nor does a look while the shell has other
 * children judge anything.
 */
export class ShellSignalJudge {
  #previous: ShellSample;
  /** When the interval in which the shell woke began, until the next look confirms the wake. */
  #wokeAfter: number | undefined;
  #continuedAt = Number.NEGATIVE_INFINITY;

  constructor(
    first: ShellSample,
    private readonly intervalMs: number,
  ) {
    this.#previous = first;
  }

  /** This process was continued (SIGCONT) at `monotonicMs`. */
  continued(monotonicMs: number): void {
    this.#continuedAt = monotonicMs;
  }

  /** Takes the next look; true once it confirms that the shell was signalled. */
  observe(sample: ShellSample): boolean {
    if (this.#wokeAfter !== undefined && this.#continuedAt < this.#wokeAfter) return true;
    const before = this.#previous;
    const late = Math.max(sample.monotonicMs - before.monotonicMs, sample.wallMs - before.wallMs) > 4 * this.intervalMs;
    // A signal wakes the shell once; a stop and continue of the shell (a cgroup freeze, a
    // checkpoint) twice, without telling this process: only a single wake counts.
    const woke = sample.sleeps === before.sleeps + 1 && before.onlyChild && sample.onlyChild && !late;
    this.#wokeAfter = woke ? before.monotonicMs : undefined;
    this.#previous = sample;
    return false;
  }
}
