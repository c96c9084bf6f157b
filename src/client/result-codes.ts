// Result codes as Horizon spells them: an account's failed transactions (collectors) and the probe's failures (probers)
// both name them so.

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

/** The code of a failure whose code is not one of Stellar's, or cannot be read: one bounded label value for all. */
export const OTHER_TRANSACTION_CODE = "tx_other";

/** `txBadSeq` → `tx_bad_seq`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A transaction or operation result code's XDR name as Horizon spells it. */
export function horizonCodeName(name: string): string {
  return HORIZON_CODES[name] ?? snakeCase(name);
}
