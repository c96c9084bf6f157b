/** The records of a watched account's payments, transactions and operations: the fields the activity job counts. */
import { z } from "zod";
import { stellarBase } from "../stellar-base.js";
import {
  amountText,
  assetFields,
  assetType,
  feeText,
  nonNegativeInt,
  snakeCaseWord,
  timestamp,
  uint64Text,
} from "./wire-values.js";

const recordFields = {
  paging_token: uint64Text,
  created_at: timestamp,
  /** Absent from Horizons before include_failed existed: their streams held successful records only. */
  transaction_successful: z.boolean().optional(),
};

/** A holder on a record, checked by the SDK's StrKey: an account (G...), a contract (C...) in a balance change, or a
 * muxed account (M...), read as the G... account it belongs to: the one a watched account's id names. */
const address = z.string().transform((text, context) => {
  const { StrKey, MuxedAccount } = stellarBase();
  if (StrKey.isValidEd25519PublicKey(text) || StrKey.isValidContract(text)) return text;
  if (StrKey.isValidMed25519PublicKey(text)) return MuxedAccount.fromAddress(text, "0").baseAccount().accountId();
  context.addIssue({ code: "custom", message: "expected a G..., C... or M... address" });
  return z.NEVER;
});

const assetShape = assetFields("", assetType);

const payment = z.object({
  ...recordFields,
  type: z.literal("payment"),
  from: address,
  to: address,
  amount: amountText,
  ...assetShape,
});

const pathPayment = payment.extend({
  type: z.enum(["path_payment_strict_receive", "path_payment_strict_send"]),
  source_amount: amountText,
  ...assetFields("source_", assetType),
});

const createAccount = z.object({
  ...recordFields,
  type: z.literal("create_account"),
  funder: address,
  account: address,
  starting_balance: amountText,
});

const accountMerge = z.object({ ...recordFields, type: z.literal("account_merge"), account: address, into: address });

const balanceChange = z.object({
  ...assetShape,
  type: snakeCaseWord,
  from: address.or(z.literal("")).optional(),
  to: address.or(z.literal("")).optional(),
  amount: amountText,
});

const invokeHostFunction = z.object({
  ...recordFields,
  type: z.literal("invoke_host_function"),
  asset_balance_changes: z.array(balanceChange).nullish(),
});

const counted = [payment, pathPayment, createAccount, accountMerge, invokeHostFunction] as const;

/** A record of a kind the payments stream does not count (none today): kept only to move the cursor. */
const otherPayment = z
  .object({
    ...recordFields,
    type: snakeCaseWord.refine((type) => !counted.some((kind) => kind.shape.type.safeParse(type).success)),
  })
  .transform((record) => ({ ...record, type: "other" as const }));

export const paymentRecordSchema = z.union([...counted, otherPayment]);
export type PaymentRecord = z.output<typeof paymentRecordSchema>;
export type BalanceChange = z.output<typeof balanceChange>;

/** A transaction of `/accounts/{id}/transactions?include_failed=true`. */
export const transactionRecordSchema = z.object({
  paging_token: uint64Text,
  created_at: timestamp,
  successful: z.boolean(),
  source_account: address,
  /** The fee-bump's fee source, or the source account; Horizons before fee bumps omit it. */
  fee_account: address.optional(),
  /** A string since Horizon 1.0, a number before. */
  fee_charged: z.union([feeText, nonNegativeInt]).transform((fee) => BigInt(fee)),
  /** Read only for a failed transaction's code: one that does not decode is still counted, as tx_other. */
  result_xdr: z.string(),
});
export type TransactionRecord = z.output<typeof transactionRecordSchema>;

export const operationRecordSchema = z.object({ ...recordFields, type: snakeCaseWord });
