// Failed-transaction codes are promised in Horizon's spelling. The expectations below are every code of
// stellar-horizon's table (internal/codes/main.go: String and ForOperationResult) whose spelling differs from the
// snake-cased XDR name (`op_` and the name without its operation's prefix for an operation's code).
import { xdr } from "@stellar/stellar-base";
import { describe, expect, it } from "vitest";
import { failureCode } from "../src/collectors/payment-records.js";

function resultXdr(result: xdr.TransactionResultResult): string {
  return new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString("100"),
    result,
    ext: new xdr.TransactionResultExt(0),
  }).toXDR("base64");
}

const failedWith = (...operations: xdr.OperationResult[]) =>
  resultXdr(xdr.TransactionResultResult.txFailed(operations));

/** The value of the XDR union `union` with the arm `name` (`xdr.ManageDataResult`, `manageDataNameNotFound`). */
function arm<T>(union: unknown, name: string, value?: unknown): T {
  const factories = union as Record<string, ((value?: unknown) => T) | undefined>;
  if (factories[name] === undefined) throw new Error(`no XDR arm ${name}`);
  return factories[name](value);
}

/** An operation of `type` that failed with `code`, both as the XDR names them (`manageData`, `manageDataNameNotFound`). */
function failedOperation(type: string, code: string): xdr.OperationResult {
  // A passive offer's result is a manageSellOffer's.
  const resultType =
    type === "createPassiveSellOffer" ? "ManageSellOffer" : type.charAt(0).toUpperCase() + type.slice(1);
  const result = arm(xdr[`${resultType}Result` as keyof typeof xdr], code);
  return xdr.OperationResult.opInner(arm<xdr.OperationResultTr>(xdr.OperationResultTr, type, result));
}

describe("failureCode in Horizon's spelling", () => {
  it.each([
    ["txNoAccount", "tx_no_source_account"],
    ["txBadMinSeqAgeOrGap", "tx_bad_minseq_age_or_gap"],
  ])("transaction code %s is %s", (code, horizonCode) => {
    const result = arm<xdr.TransactionResultResult>(xdr.TransactionResultResult, code);
    expect(failureCode({ result_xdr: resultXdr(result) })).toBe(horizonCode);
  });

  it("operation code opNoAccount is op_no_source_account", () => {
    expect(failureCode({ result_xdr: failedWith(xdr.OperationResult.opNoAccount()) })).toBe("op_no_source_account");
  });

  it.each([
    ["createAccount", "createAccountAlreadyExist", "op_already_exists"],
    ["pathPaymentStrictReceive", "pathPaymentStrictReceiveOfferCrossSelf", "op_cross_self"],
    ["pathPaymentStrictReceive", "pathPaymentStrictReceiveOverSendmax", "op_over_source_max"],
    ["manageBuyOffer", "manageBuyOfferSellNotAuthorized", "sell_not_authorized"],
    ["manageBuyOffer", "manageBuyOfferBuyNotAuthorized", "buy_not_authorized"],
    ["manageBuyOffer", "manageBuyOfferBuyNoIssuer", "buy_no_issuer"],
    ["manageBuyOffer", "manageBuyOfferNotFound", "op_offer_not_found"],
    ["manageSellOffer", "manageSellOfferSellNotAuthorized", "sell_not_authorized"],
    ["manageSellOffer", "manageSellOfferBuyNotAuthorized", "buy_not_authorized"],
    ["manageSellOffer", "manageSellOfferBuyNoIssuer", "buy_no_issuer"],
    ["manageSellOffer", "manageSellOfferNotFound", "op_offer_not_found"],
    ["createPassiveSellOffer", "manageSellOfferSellNotAuthorized", "sell_not_authorized"],
    ["createPassiveSellOffer", "manageSellOfferBuyNotAuthorized", "buy_not_authorized"],
    ["createPassiveSellOffer", "manageSellOfferBuyNoIssuer", "buy_no_issuer"],
    ["createPassiveSellOffer", "manageSellOfferNotFound", "op_offer_not_found"],
    ["changeTrust", "changeTrustNotAuthMaintainLiabilities", "op_not_aut_maintain_liabilities"],
    ["allowTrust", "allowTrustNoTrustLine", "op_no_trust"],
    ["allowTrust", "allowTrustTrustNotRequired", "op_not_required"],
    ["accountMerge", "accountMergeSeqnumTooFar", "op_seq_num_too_far"],
    ["manageData", "manageDataNameNotFound", "op_data_name_not_found"],
    ["manageData", "manageDataInvalidName", "op_data_invalid_name"],
    ["pathPaymentStrictSend", "pathPaymentStrictSendOfferCrossSelf", "op_cross_self"],
    ["pathPaymentStrictSend", "pathPaymentStrictSendUnderDestmin", "op_under_dest_min"],
    ["clawbackClaimableBalance", "clawbackClaimableBalanceNotIssuer", "op_no_issuer"],
    ["setTrustLineFlags", "setTrustLineFlagsNoTrustLine", "op_no_trust"],
    // Every failed Soroban contract call (a trap) fails this way.
    ["invokeHostFunction", "invokeHostFunctionTrapped", "function_trapped"],
    ["invokeHostFunction", "invokeHostFunctionResourceLimitExceeded", "resource_limit_exceeded"],
    ["invokeHostFunction", "invokeHostFunctionEntryArchived", "entry_archived"],
    ["invokeHostFunction", "invokeHostFunctionInsufficientRefundableFee", "insufficient_refundable_fee"],
    ["extendFootprintTtl", "extendFootprintTtlResourceLimitExceeded", "resource_limit_exceeded"],
    ["extendFootprintTtl", "extendFootprintTtlInsufficientRefundableFee", "insufficient_refundable_fee"],
    ["restoreFootprint", "restoreFootprintResourceLimitExceeded", "resource_limit_exceeded"],
    ["restoreFootprint", "restoreFootprintInsufficientRefundableFee", "insufficient_refundable_fee"],
  ])("%s code %s is %s", (type, code, horizonCode) => {
    expect(failureCode({ result_xdr: failedWith(failedOperation(type, code)) })).toBe(horizonCode);
  });

  it.each([
    // Codes newer than Horizon's table keep the general rule.
    ["txFrozenKeyAccessed", resultXdr(xdr.TransactionResultResult.txFrozenKeyAccessed()), "tx_frozen_key_accessed"],
    ["opTooManySponsoring", failedWith(xdr.OperationResult.opTooManySponsoring()), "op_too_many_sponsoring"],
    [
      "liquidityPoolDepositTrustlineFrozen",
      failedWith(failedOperation("liquidityPoolDeposit", "liquidityPoolDepositTrustlineFrozen")),
      "op_trustline_frozen",
    ],
    // Codes Horizon's table spells by the general rule.
    ["paymentSrcNoTrust", failedWith(failedOperation("payment", "paymentSrcNoTrust")), "op_src_no_trust"],
    [
      "accountMergeHasSubEntries",
      failedWith(failedOperation("accountMerge", "accountMergeHasSubEntries")),
      "op_has_sub_entries",
    ],
  ])("%s keeps the general rule (%#)", (_name, result, code) => {
    expect(failureCode({ result_xdr: result })).toBe(code);
  });
});
