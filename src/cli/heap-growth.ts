import { setFlagsFromString } from "node:v8";

/**
 * V8's heap growing factor for the exporter: an old generation that grows to 1.8 times what
 * survived the last full collection, not by V8's own factor (up to four times). V8 keeps the pages
 * it frees in a pool that stays resident until a memory-reducing collection, which a process polling
 * every few seconds rarely gets, so the resident size follows the largest heap ever reached; a
 * first poll of thousands of accounts took it far above what the exporter holds
 * (docs/performance.md, "RSS at 10 000 RPC accounts").
 */
export const HEAP_GROWING_PERCENT = 80;

/**
 * Sets the factor unless the operator chose one on the command line (`node --heap-growing-percent=…`;
 * NODE_OPTIONS refuses this flag). V8 reads it at each full collection, so setting it at start
 * applies to the whole run.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
