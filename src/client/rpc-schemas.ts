/** Stellar RPC's JSON-RPC wire format as it really is (see test/fixtures/stellar-rpc); unknown fields are ignored. */
import { z } from "zod";
import { FEE_STATS } from "../catalog/metrics.js";
import { nonNegativeInt, recordOf, uint64String } from "./wire-values.js";

/** One response of a call or of a batch; `result` is checked per method afterwards. */
export const jsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    // JSON-RPC 2.0 allows a string or a number as `id`; servers echo what they were sent.
    id: z.union([z.string(), z.number()]).nullable(),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .refine((response) => response.error !== undefined || response.result !== undefined, "neither result nor error");
export type JsonRpcResponse = z.output<typeof jsonRpcResponseSchema>;

export const healthSchema = z.object({
  status: z.string(),
  latestLedger: nonNegativeInt,
  latestLedgerCloseTime: uint64String.optional(),
  oldestLedger: nonNegativeInt,
  oldestLedgerCloseTime: uint64String.optional(),
  ledgerRetentionWindow: nonNegativeInt,
});

export const latestLedgerSchema = z.object({
  id: z.string(),
  sequence: nonNegativeInt,
  protocolVersion: nonNegativeInt,
  /** Absent on RPCs older than the close-time addition. */
  closeTime: uint64String.optional(),
});

const feeDistribution = z.object({
  ...recordOf(FEE_STATS, () => uint64String),
  transactionCount: uint64String,
  ledgerCount: nonNegativeInt,
});
export type RpcFeeDistribution = z.output<typeof feeDistribution>;

export const feeStatsSchema = z.object({
  sorobanInclusionFee: feeDistribution,
  inclusionFee: feeDistribution,
  latestLedger: nonNegativeInt,
});

export const networkSchema = z.object({
  passphrase: z.string().min(1),
  friendbotUrl: z.string().optional(),
  // stellar-rpc sends a number; a hand-edited capture sends "20", which costs nothing to accept.
  protocolVersion: z.union([nonNegativeInt, uint64String]),
});

/** snake_case keys up to v21, both spellings in v22, camelCase since v23: the camelCase value wins. */
export const versionInfoSchema = z
  .object({
    version: z.string(),
    commitHash: z.string().optional(),
    commit_hash: z.string().optional(),
    buildTimestamp: z.string().optional(),
    build_time_stamp: z.string().optional(),
    captiveCoreVersion: z.string().optional(),
    captive_core_version: z.string().optional(),
    protocolVersion: nonNegativeInt.optional(),
    protocol_version: nonNegativeInt.optional(),
  })
  .transform((info) => ({
    version: info.version,
    commitHash: info.commitHash ?? info.commit_hash ?? "",
    buildTimestamp: info.buildTimestamp ?? info.build_time_stamp ?? "",
    captiveCoreVersion: info.captiveCoreVersion ?? info.captive_core_version ?? "",
    protocolVersion: info.protocolVersion ?? info.protocol_version,
  }));

/** Base64 XDR, only non-empty: the SDK rejects the rest, and a regex over 10 000 entries a poll costs more. */
const base64Xdr = z.string().min(1);

/** A getLedgerEntries entry; `liveUntilLedgerSeq` only on those with a TTL (contract data and code), 0 archived. */
const ledgerEntrySchema = z.object({
  key: base64Xdr,
  xdr: base64Xdr,
  lastModifiedLedgerSeq: nonNegativeInt,
  liveUntilLedgerSeq: nonNegativeInt.optional(),
});
export type RpcLedgerEntry = z.output<typeof ledgerEntrySchema>;

/** getLedgerEntries' result: keys not found are left out, and `entries` is never null. */
export const ledgerEntriesSchema = z.object({ entries: z.array(ledgerEntrySchema), latestLedger: nonNegativeInt });
export type RpcLedgerEntries = z.output<typeof ledgerEntriesSchema>;
