// Resolves on the event loop's next turn, after pending I/O: long work awaits it between slices so a scrape never
// waits for all of it.
export { setImmediate as yieldToEventLoop } from "node:timers/promises";
