/**
 * Polls `probe` until it returns something other than undefined, and fails naming `what` once
 * `timeoutMs` has passed. Errors thrown by the probe count as "not yet" (a server still
 * starting), and the last one is reported on timeout. The pause only paces the polling.
 */
export async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const description = typeof what === "string" ? what : what();
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${description}${lastError ? ` (last error: ${String(lastError)})` : ""}`,
      );
    }
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}
