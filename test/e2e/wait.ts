import { setTimeout as delay } from "node:timers/promises";

/**
 * Polls `check` until it returns a value other than undefined, or fails with `describe()` once
 * `timeoutMs` has passed. The pause between checks paces the polling; it never stands in for a
 * condition.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; describe: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${options.timeoutMs} ms: ${options.describe()}`);
    await delay(options.intervalMs ?? 1000);
  }
}
