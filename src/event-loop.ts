/**
 * Resolves on the event loop's next turn, after pending I/O: long work calls it between slices so a
 * scrape never waits for all of it.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
