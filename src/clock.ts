/** Time as the poll path sees it: polls, deadlines, freshness and the client's timeouts all read it, so a test can
 * drive minutes of schedule in milliseconds (test/support/manual-clock.ts). */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // Unreferenced: the server keeps the process alive, a pending deadline or stale timer must not.
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
