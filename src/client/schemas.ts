/** Horizon's wire format as it really is (see test/fixtures/horizon); unknown fields are ignored: newer ones parse. */
import { z } from "zod";
import { FEE_STATS } from "../catalog/metrics.js";
import {
  amount,
  assetName,
  distinct,
  feeText,
  int64String,
  isUint64Text,
  nonNegativeInt,
  poolId,
  recordOf,
  snakeCaseWord,
  timestamp,
  uint64String,
  uint64Text,
} from "./wire-values.js";

/** Horizon's zero time, sent by a node that has not ingested anything yet. */
const ZERO_TIME = "0001-01-01T00:00:00Z";

/** A ledger's paging token: its sequence in the high 32 bits of a 64-bit id (Horizon's TOID). */
export function ledgerPagingToken(sequence: number): bigint {
  return BigInt(sequence) << 32n;
}

export const rootSchema = z
  .object({
    horizon_version: z.string().optional(),
    service_version: z.string().optional(),
    core_version: z.string(),
    ingest_latest_ledger: nonNegativeInt,
    history_latest_ledger: nonNegativeInt,
    history_latest_ledger_closed_at: z.union([z.literal(ZERO_TIME).transform(() => undefined), timestamp]).optional(),
    history_elder_ledger: nonNegativeInt,
    core_latest_ledger: nonNegativeInt,
    network_passphrase: z.string(),
    current_protocol_version: nonNegativeInt,
    supported_protocol_version: nonNegativeInt.optional(),
    core_supported_protocol_version: nonNegativeInt,
  })
  .transform(({ horizon_version, service_version, ...rest }) => ({
    ...rest,
    // Real Horizon says horizon_version; the API specification says service_version.
    horizon_version: horizon_version ?? service_version ?? "",
  }));
export type HorizonRoot = z.output<typeof rootSchema>;

/** A fee in stroops: never negative (a negative bid would reach the probe's fee, and a fee gauge, as sent). */
const feeStatStroops = feeText.transform(Number);
const feeDistribution = z.object(recordOf(FEE_STATS, () => feeStatStroops));

/** A ratio sent as a decimal string, e.g. ledger_capacity_usage "0.97": finite, never negative. */
const ratioString = z
  .string()
  .regex(/^\d{1,6}(\.\d{1,30})?$/, "expected a ratio as a decimal string")
  .transform(Number);

export const feeStatsSchema = z.object({
  last_ledger: uint64String,
  last_ledger_base_fee: feeStatStroops,
  ledger_capacity_usage: ratioString,
  fee_charged: feeDistribution,
  max_fee: feeDistribution,
});
export type FeeStats = z.output<typeof feeStatsSchema>;

export const ledgerSchema = z
  .object({
    id: z.string(),
    // It becomes the cursor: anything but an unsigned 64-bit integer makes the record invalid, not a refused cursor.
    paging_token: uint64Text,
    hash: z.string(),
    prev_hash: z.string(),
    sequence: nonNegativeInt,
    successful_transaction_count: nonNegativeInt,
    failed_transaction_count: nonNegativeInt.nullable(),
    operation_count: nonNegativeInt,
    tx_set_operation_count: nonNegativeInt.nullish(),
    closed_at: timestamp,
    total_coins: amount,
    fee_pool: amount,
    base_fee_in_stroops: nonNegativeInt,
    base_reserve_in_stroops: nonNegativeInt,
    max_tx_set_size: nonNegativeInt,
    protocol_version: nonNegativeInt,
  })
  .refine(
    // Refinements run even after a field's format failed: the token is checked again before reading it.
    (ledger) => isUint64Text(ledger.paging_token) && BigInt(ledger.paging_token) === ledgerPagingToken(ledger.sequence),
    "paging_token is not the ledger's sequence shifted left 32 bits",
  );
export type Ledger = z.output<typeof ledgerSchema>;

/** A pool sent as before stays unvalidated (sentAsBefore, liquidity-pools.ts): what is read here is compared there. */
export const liquidityPoolSchema = z.object({
  id: poolId,
  // Paging tokens exceed 2^53, so they stay strings end to end.
  paging_token: z.string().min(1),
  fee_bp: nonNegativeInt,
  type: snakeCaseWord,
  total_trustlines: int64String,
  total_shares: amount,
  // Two reserves of one asset would be two series with one label set.
  reserves: z
    .array(z.object({ asset: assetName, amount }))
    .min(1)
    .refine((reserves) => distinct(reserves, (reserve) => reserve.asset), "a pool lists one asset twice"),
});
export type LiquidityPool = z.output<typeof liquidityPoolSchema>;

/** A HAL page. Records are validated one by one afterwards, so one bad record fails only itself. */
export const pageSchema = z.object({ _embedded: z.object({ records: z.array(z.unknown()) }) });

/** RFC 7807 problem, as Horizon renders errors. `instance` only appears on pre-2019 Horizons. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  extras: z.record(z.string(), z.unknown()).optional(),
  instance: z.string().optional(),
});
export type Problem = z.output<typeof problemSchema>;

/** A fee in stroops, never negative: strings since Horizon 1.0; numbers on the Horizons before it. */
const feeStroops = z.union([feeText.transform(Number), nonNegativeInt]);

/** `POST /transactions`' success answer: the whole resource, or on Horizon 1.x only hash, ledger and the XDRs. */
export const transactionResponseSchema = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/, "expected a 64-character hex transaction hash"),
  ledger: nonNegativeInt,
  successful: z.boolean().optional(),
  fee_charged: feeStroops.optional(),
  max_fee: feeStroops.optional(),
  envelope_xdr: z.string(),
  result_xdr: z.string(),
});
export type TransactionResponse = z.output<typeof transactionResponseSchema>;

/** The `extras` of Horizon's `transaction_failed` problem (HTTP 400 to `POST /transactions`). */
export const transactionFailedExtrasSchema = z.object({
  envelope_xdr: z.string().optional(),
  result_codes: z.object({ transaction: z.string(), operations: z.array(z.string()).optional() }),
  result_xdr: z.string(),
});
