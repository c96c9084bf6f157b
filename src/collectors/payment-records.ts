/** What one record of a watched account's streams counts; the activity job (account-activity.ts) keeps the sums. */
import type { xdr } from "@stellar/stellar-base";
import type { PaymentRecord, TransactionRecord } from "../client/activity-schemas.js";
import { assetOf } from "../client/path-schemas.js";
import { amountStroops } from "../client/wire-values.js";
import { stellarBase } from "../stellar-base.js";

const DIRECTIONS = ["received", "sent"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** A movement of one asset from one account to another; an account merge moves no stated amount. */
function movement(from: string | undefined, to: string | undefined, asset: string | undefined, stroops?: bigint) {
  return { from: { account: from, asset, stroops }, to: { account: to, asset, stroops } };
}

/** The movements a payment record makes: what its source sent and its destination received. */
function movements(record: PaymentRecord): ReturnType<typeof movement>[] {
  switch (record.type) {
    case "payment": {
      const asset = assetOf(record.asset_type, record.asset_code, record.asset_issuer);
      return [movement(record.from, record.to, asset, amountStroops(record.amount))];
    }
    case "path_payment_strict_receive":
    case "path_payment_strict_send": {
      const sent = assetOf(record.source_asset_type, record.source_asset_code, record.source_asset_issuer);
      const received = assetOf(record.asset_type, record.asset_code, record.asset_issuer);
      const from = { account: record.from, asset: sent, stroops: amountStroops(record.source_amount) };
      const to = { account: record.to, asset: received, stroops: amountStroops(record.amount) };
      return [{ from, to }];
    }
    case "create_account":
      return [movement(record.funder, record.account, "native", amountStroops(record.starting_balance))];
    case "account_merge":
      return [movement(record.account, record.into, "native")];
    case "invoke_host_function":
      // Transfers move an asset between two holders, mints and clawbacks into or out of one: a burn moves it nowhere.
      return (record.asset_balance_changes ?? [])
        .filter(({ type }) => type === "transfer" || type === "mint" || type === "clawback")
        .map((change) => {
          const asset = assetOf(change.asset_type, change.asset_code, change.asset_issuer);
          return movement(change.from, change.to, asset, amountStroops(change.amount));
        });
    default:
      return [];
  }
}

/** The payments a record counts for `account`: received as the destination, sent as the source, both
 * for a payment to itself. Undefined (an invalid record) when a side it touches lacks an asset's code or issuer. */
export function paymentMoves(record: PaymentRecord, account: string) {
  const moves: { direction: Direction; asset: string; stroops: bigint | undefined }[] = [];
  for (const { from, to } of movements(record)) {
    for (const direction of DIRECTIONS) {
      const side = direction === "received" ? to : from;
      if (side.account !== account) continue;
      if (side.asset === undefined) return undefined;
      moves.push({ direction, asset: side.asset, stroops: side.stroops });
    }
  }
  return moves;
}

/**
 * Horizon's spelling of the transaction and operation codes whose XDR name does not follow the general rule, as
 * Horizon's codes table (stellar-horizon internal/codes) spells them; codes it does not name follow the rule.
 */
export const HORIZON_CODES: Readonly<Record<string, string>> = {
  txNoAccount: "tx_no_source_account",
  txBadMinSeqAgeOrGap: "tx_bad_minseq_age_or_gap",
  opNoAccount: "op_no_source_account",
  createAccountAlreadyExist: "op_already_exists",
  pathPaymentStrictReceiveOfferCrossSelf: "op_cross_self",
  pathPaymentStrictReceiveOverSendmax: "op_over_source_max",
  pathPaymentStrictSendOfferCrossSelf: "op_cross_self",
  pathPaymentStrictSendUnderDestmin: "op_under_dest_min",
  manageSellOfferNotFound: "op_offer_not_found",
  manageBuyOfferNotFound: "op_offer_not_found",
  // Horizon spells these offer codes without the op_ prefix.
  manageSellOfferSellNotAuthorized: "sell_not_authorized",
  manageSellOfferBuyNotAuthorized: "buy_not_authorized",
  manageSellOfferBuyNoIssuer: "buy_no_issuer",
  manageBuyOfferSellNotAuthorized: "sell_not_authorized",
  manageBuyOfferBuyNotAuthorized: "buy_not_authorized",
  manageBuyOfferBuyNoIssuer: "buy_no_issuer",
  // Sic: Horizon spells it "aut", not "auth".
  changeTrustNotAuthMaintainLiabilities: "op_not_aut_maintain_liabilities",
  allowTrustNoTrustLine: "op_no_trust",
  allowTrustTrustNotRequired: "op_not_required",
  accountMergeSeqnumTooFar: "op_seq_num_too_far",
  manageDataNameNotFound: "op_data_name_not_found",
  manageDataInvalidName: "op_data_invalid_name",
  clawbackClaimableBalanceNotIssuer: "op_no_issuer",
  setTrustLineFlagsNoTrustLine: "op_no_trust",
  // Horizon spells the Soroban operations' codes without the op_ prefix.
  invokeHostFunctionTrapped: "function_trapped",
  invokeHostFunctionResourceLimitExceeded: "resource_limit_exceeded",
  invokeHostFunctionEntryArchived: "entry_archived",
  invokeHostFunctionInsufficientRefundableFee: "insufficient_refundable_fee",
  extendFootprintTtlResourceLimitExceeded: "resource_limit_exceeded",
  extendFootprintTtlInsufficientRefundableFee: "insufficient_refundable_fee",
  restoreFootprintResourceLimitExceeded: "resource_limit_exceeded",
  restoreFootprintInsufficientRefundableFee: "insufficient_refundable_fee",
};

/** `txBadSeq` → `tx_bad_seq`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The code of a failed operation in Horizon's spelling (`op_underfunded`), or undefined for a successful one. */
function operationCode(result: xdr.OperationResult): string | undefined {
  const outer = result.switch().name;
  if (outer !== "opInner") return HORIZON_CODES[outer] ?? snakeCase(outer);
  const tr = result.tr();
  const code = (tr.value() as { switch(): { name: string; value: number } }).switch();
  if (code.value === 0) return undefined;
  const known = HORIZON_CODES[code.name];
  if (known !== undefined) return known;
  // A code's name starts with its operation's (`paymentUnderfunded`); a passive offer's codes are manageSellOffer's.
  const type = tr.switch().name;
  const prefix = type === "createPassiveSellOffer" ? "manageSellOffer" : type;
  return `op${snakeCase(code.name.startsWith(prefix) ? code.name.slice(prefix.length) : `_${code.name}`)}`;
}

/** A result's code: the transaction's, or for tx_failed the first failing operation's; a fee bump's inner one's. */
function resultCode(result: xdr.TransactionResultResult | xdr.InnerTransactionResultResult): string | undefined {
  const name = result.switch().name;
  if (name === "txFeeBumpInnerFailed" || name === "txFeeBumpInnerSuccess")
    return resultCode((result as xdr.TransactionResultResult).innerResultPair().result().result());
  if (name !== "txFailed") return HORIZON_CODES[name] ?? snakeCase(name);
  const codes = result.results().map(operationCode);
  return codes.find((code) => code !== undefined);
}

/** A failed transaction's code from `result_xdr`; undefined (invalid) if it does not decode or names no failure. */
export function failureCode(record: Pick<TransactionRecord, "result_xdr">): string | undefined {
  try {
    const code = resultCode(stellarBase().xdr.TransactionResult.fromXDR(record.result_xdr, "base64").result());
    return code === "tx_success" ? undefined : code;
  } catch {
    return undefined;
  }
}
