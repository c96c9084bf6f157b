/** Time as the poll path sees it: polls, deadlines, freshness and the client's timeouts all read it, so a test can
 * drive minutes of schedule in milliseconds (test/support/manual-clock.ts). */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node fires a timer of more than this after 1 ms; a longer wait (a monthly schedule's freshness) goes in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

type SystemTimer = { timer?: NodeJS.Timeout };

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle: SystemTimer = {};
    const arm = (left: number) => {
      const step = Math.min(left, LONGEST_TIMER_MS);
      // Unreferenced: the server keeps the process alive, a pending deadline or stale timer must not.
      handle.timer = setTimeout(() => (left > step ? arm(left - step) : callback()), step).unref();
    };
    arm(ms);
    return handle;
  },
  clearTimeout: (handle) => clearTimeout((handle as SystemTimer | undefined)?.timer),
};
