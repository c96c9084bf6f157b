/** What one record of a watched account's streams counts; the activity job (account-activity.ts) keeps the sums. */
import type { xdr } from "@stellar/stellar-base";
import type { PaymentRecord, TransactionRecord } from "../client/activity-schemas.js";
import { assetOf } from "../client/path-schemas.js";
import { amountStroops } from "../client/wire-values.js";
import { HORIZON_CODES, horizonCodeName, snakeCase } from "../client/result-codes.js";
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

/** The code of a failed operation in Horizon's spelling (`op_underfunded`), or undefined for a successful one. */
function operationCode(result: xdr.OperationResult): string | undefined {
  const outer = result.switch().name;
  if (outer !== "opInner") return horizonCodeName(outer);
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
  if (name !== "txFailed") return horizonCodeName(name);
  const codes = result.results().map(operationCode);
  return codes.find((code) => code !== undefined);
}

/** A failed transaction's code from `result_xdr`; undefined if it does not decode or names no failure. */
export function failureCode(record: Pick<TransactionRecord, "result_xdr">): string | undefined {
  try {
    const code = resultCode(stellarBase().xdr.TransactionResult.fromXDR(record.result_xdr, "base64").result());
    return code === "tx_success" ? undefined : code;
  } catch {
    return undefined;
  }
}
