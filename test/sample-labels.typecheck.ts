/**
 * Compile-time checks, run by `tsc --noEmit`: a sample's labels are exactly its catalog entry's
 * label tuple. Each @ts-expect-error fails the type check if the mistake below it ever compiles.
 */
import { METRICS } from "../src/catalog/metrics.js";
import type { Sample } from "../src/exposition/samples.js";
// @ts-expect-error a label the catalog does not declare
export const extra: Sample = { metric: METRICS.liquidityPoolShares, labels: { pool_id: "x", asset: "y" }, value: 1 };
// @ts-expect-error a declared label missing
export const missing: Sample = { metric: METRICS.liquidityPoolReserve, labels: { pool_id: "x" }, value: 1 };
// @ts-expect-error labels on a metric that has none
export const none: Sample = { metric: METRICS.up, labels: { pool_id: "x" }, value: 1 };
// @ts-expect-error a histogram given a value
export const hist: Sample = { metric: METRICS.ledgerCloseInterval, value: 1 };
export const ok: Sample = { metric: METRICS.liquidityPoolReserve, labels: { pool_id: "x", asset: "y" }, value: 1 };
