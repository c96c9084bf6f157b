/**
 * What the simulated accounts did, as Horizon's history serves it per account: the transactions
 * the ledgers carry (real envelopes and result XDR built with the SDK, failed ones included) and
 * their operations and payments, under TOID paging tokens (ledger << 32 | transaction << 12 |
 * operation). A bounded ring per account and stream keeps the newest records.
 */
import { Account, Asset, Operation, TransactionBuilder, xdr } from "@stellar/stellar-base";
import { assetFields } from "./wire.js";
import { Ring } from "./ring.js";
import { formatTimestamp } from "./wire.js";

/** A ledger and when it closed. */
export interface LedgerPoint {
  readonly ledger: number;
  readonly closedAtMs: number;
}

/** Records kept per account and stream: far more than a poll reads between two. */
const HISTORY_CAPACITY = 2_000;
const STROOPS = 10_000_000n;

/** A movement or change a simulated transaction makes; assets are `native` or `CODE:ISSUER`. */
export type SimulatedOperation =
  | { readonly type: "payment"; readonly to: string; readonly asset: string; readonly amount: bigint }
  | {
      readonly type: "path_payment_strict_send";
      readonly to: string;
      readonly sourceAsset: string;
      readonly sourceAmount: bigint;
      readonly asset: string;
      readonly amount: bigint;
    }
  | { readonly type: "create_account"; readonly account: string; readonly startingBalance: bigint }
  | { readonly type: "account_merge"; readonly into: string }
  | { readonly type: "set_options" };

/** Why a simulated transaction failed: a transaction code, or its first operation's. */
export type SimulatedFailure = "tx_bad_seq" | "tx_insufficient_fee" | "op_underfunded";

export interface SimulatedTransaction {
  readonly source: string;
  readonly sequence: bigint;
  readonly fee: bigint;
  readonly operations: readonly SimulatedOperation[];
  readonly failure?: SimulatedFailure;
}

type Json = Record<string, unknown>;
export type HistoryStream = "payments" | "transactions" | "operations";
const OPERATION_TYPE_I: Readonly<Record<SimulatedOperation["type"], number>> = {
  create_account: 0,
  payment: 1,
  set_options: 5,
  account_merge: 8,
  path_payment_strict_send: 13,
};
const PAYMENT_TYPES: ReadonlySet<string> = new Set([
  "payment",
  "path_payment_strict_send",
  "create_account",
  "account_merge",
]);

function sdkAsset(asset: string): Asset {
  if (asset === "native") return Asset.native();
  const [code = "", issuer = ""] = asset.split(":");
  return new Asset(code, issuer);
}

function amountText(stroops: bigint): string {
  return `${stroops / STROOPS}.${(stroops % STROOPS).toString().padStart(7, "0")}`;
}

function sdkOperation(operation: SimulatedOperation): xdr.Operation {
  switch (operation.type) {
    case "payment":
      return Operation.payment({
        destination: operation.to,
        asset: sdkAsset(operation.asset),
        amount: amountText(operation.amount),
      });
    case "path_payment_strict_send":
      return Operation.pathPaymentStrictSend({
        sendAsset: sdkAsset(operation.sourceAsset),
        sendAmount: amountText(operation.sourceAmount),
        destination: operation.to,
        destAsset: sdkAsset(operation.asset),
        destMin: amountText(operation.amount),
        path: [],
      });
    case "create_account":
      return Operation.createAccount({
        destination: operation.account,
        startingBalance: amountText(operation.startingBalance),
      });
    case "account_merge":
      return Operation.accountMerge({ destination: operation.into });
    case "set_options":
      return Operation.setOptions({});
  }
}

/** The operation's result when its transaction succeeds. */
function successResult(operation: SimulatedOperation): xdr.OperationResult {
  const tr = xdr.OperationResultTr;
  switch (operation.type) {
    case "payment":
      return xdr.OperationResult.opInner(tr.payment(xdr.PaymentResult.paymentSuccess()));
    case "path_payment_strict_send": {
      const last = new xdr.SimplePaymentResult({
        destination: xdr.PublicKey.publicKeyTypeEd25519(Buffer.alloc(32)),
        asset: sdkAsset(operation.asset).toXDRObject(),
        amount: xdr.Int64.fromString(operation.amount.toString()),
      });
      const success = new xdr.PathPaymentStrictSendResultSuccess({ offers: [], last });
      return xdr.OperationResult.opInner(
        tr.pathPaymentStrictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSuccess(success)),
      );
    }
    case "create_account":
      return xdr.OperationResult.opInner(tr.createAccount(xdr.CreateAccountResult.createAccountSuccess()));
    case "account_merge":
      return xdr.OperationResult.opInner(
        tr.accountMerge(xdr.AccountMergeResult.accountMergeSuccess(xdr.Int64.fromString("0"))),
      );
    case "set_options":
      return xdr.OperationResult.opInner(tr.setOptions(xdr.SetOptionsResult.setOptionsSuccess()));
  }
}

function transactionResult(transaction: SimulatedTransaction): string {
  const { failure, operations } = transaction;
  const result =
    failure === "tx_bad_seq"
      ? xdr.TransactionResultResult.txBadSeq()
      : failure === "tx_insufficient_fee"
        ? xdr.TransactionResultResult.txInsufficientFee()
        : failure === "op_underfunded"
          ? xdr.TransactionResultResult.txFailed([
              xdr.OperationResult.opInner(xdr.OperationResultTr.payment(xdr.PaymentResult.paymentUnderfunded())),
            ])
          : xdr.TransactionResultResult.txSuccess(operations.map(successResult));
  return new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString(transaction.fee.toString()),
    result,
    ext: new xdr.TransactionResultExt(0),
  }).toXDR("base64");
}

/** Who an operation touches besides its source: the accounts whose streams list it. */
function participants(source: string, operation: SimulatedOperation): string[] {
  const other =
    operation.type === "create_account"
      ? operation.account
      : operation.type === "account_merge"
        ? operation.into
        : operation.type === "set_options"
          ? source
          : operation.to;
  return other === source ? [source] : [source, other];
}

/** The type-specific fields of an operation record. */
function operationFields(source: string, operation: SimulatedOperation): Json {
  switch (operation.type) {
    case "payment":
      return { ...assetFields(operation.asset), from: source, to: operation.to, amount: amountText(operation.amount) };
    case "path_payment_strict_send":
      return {
        ...assetFields(operation.asset),
        from: source,
        to: operation.to,
        amount: amountText(operation.amount),
        path: [],
        source_amount: amountText(operation.sourceAmount),
        destination_min: amountText(operation.amount),
        ...assetFields(operation.sourceAsset, "source_"),
      };
    case "create_account":
      return { starting_balance: amountText(operation.startingBalance), funder: source, account: operation.account };
    case "account_merge":
      return { account: source, into: operation.into };
    case "set_options":
      return {};
  }
}

/** The simulated network's history per account: its transactions, operations and payments. */
export class AccountHistory {
  /** Set by the simulator to its network's: transaction hashes depend on it. */
  networkPassphrase = "Test SDF Network ; September 2015";
  readonly #streams = new Map<string, Record<HistoryStream, Ring<Json>>>();
  #ledger = 0;
  #transactionsInLedger = 0;

  /** A network reset: Horizon's history starts again with the new chain, every account unknown until it acts. */
  forget(): void {
    this.#streams.clear();
    this.#ledger = 0;
    this.#transactionsInLedger = 0;
  }

  /** Whether Horizon's history has any record of the account: else its streams answer 404. */
  knows(account: string): boolean {
    return this.#streams.has(account);
  }

  /** The account's records of a stream, oldest first, without `_links` (they depend on the request's host). */
  records(account: string, stream: HistoryStream): HistoryRecord[] {
    const ring = this.#streams.get(account)?.[stream];
    if (ring === undefined) return [];
    return Array.from({ length: ring.length }, (_, index) => ring.at(index) as HistoryRecord);
  }

  /** Records a transaction closed in ledger `at`, with its operations; failed ones are kept too, as Horizon does. */
  record(transaction: SimulatedTransaction, at: LedgerPoint): void {
    if (at.ledger !== this.#ledger) {
      this.#ledger = at.ledger;
      this.#transactionsInLedger = 0;
    }
    this.#transactionsInLedger += 1;
    const base = (BigInt(at.ledger) << 32n) | (BigInt(this.#transactionsInLedger) << 12n);
    const { source, sequence, fee, operations, failure } = transaction;
    const builder = new TransactionBuilder(new Account(source, (sequence - 1n).toString()), {
      fee: (fee / BigInt(Math.max(operations.length, 1))).toString(),
      networkPassphrase: this.networkPassphrase,
    });
    for (const operation of operations) builder.addOperation(sdkOperation(operation));
    const built = builder.setTimeout(0).build();
    const hash = built.hash().toString("hex");
    const successful = failure === undefined;
    const createdAt = formatTimestamp(at.closedAtMs);
    const touched = new Set([source]);
    const transactionRecord: Json = {
      id: hash,
      paging_token: base.toString(),
      successful,
      hash,
      ledger: at.ledger,
      created_at: createdAt,
      source_account: source,
      source_account_sequence: sequence.toString(),
      fee_account: source,
      fee_charged: fee.toString(),
      max_fee: fee.toString(),
      operation_count: operations.length,
      envelope_xdr: built.toEnvelope().toXDR("base64"),
      result_xdr: transactionResult(transaction),
      memo_type: "none",
      signatures: [],
    };
    for (const [index, operation] of operations.entries()) {
      const id = (base | BigInt(index + 1)).toString();
      const record: Json = {
        id,
        paging_token: id,
        transaction_successful: successful,
        source_account: source,
        type: operation.type,
        type_i: OPERATION_TYPE_I[operation.type],
        created_at: createdAt,
        transaction_hash: hash,
        ...operationFields(source, operation),
      };
      for (const account of participants(source, operation)) {
        touched.add(account);
        this.#push(account, "operations", record);
        if (PAYMENT_TYPES.has(operation.type)) this.#push(account, "payments", record);
      }
    }
    for (const account of touched) this.#push(account, "transactions", transactionRecord);
  }

  #push(account: string, stream: HistoryStream, record: Json): void {
    let streams = this.#streams.get(account);
    if (streams === undefined) {
      streams = {
        payments: new Ring(HISTORY_CAPACITY),
        transactions: new Ring(HISTORY_CAPACITY),
        operations: new Ring(HISTORY_CAPACITY),
      };
      this.#streams.set(account, streams);
    }
    streams[stream].push(record);
  }
}

/** A history record as kept: a transaction's or an operation's fields, without links. */
export type HistoryRecord = Json & { readonly paging_token: string };

/** A record with Horizon's `_links` first, for a request to `base`. */
export function historyRecordWithLinks(base: string, stream: HistoryStream, record: HistoryRecord): HistoryRecord {
  const token = record.paging_token;
  if (stream === "transactions") {
    const self = `${base}/transactions/${String(record.hash)}`;
    return {
      _links: {
        self: { href: self },
        account: { href: `${base}/accounts/${String(record.source_account)}` },
        ledger: { href: `${base}/ledgers/${String(record.ledger)}` },
        operations: { href: `${self}/operations{?cursor,limit,order}`, templated: true },
        effects: { href: `${self}/effects{?cursor,limit,order}`, templated: true },
        precedes: { href: `${base}/transactions?order=asc&cursor=${token}` },
        succeeds: { href: `${base}/transactions?order=desc&cursor=${token}` },
        transaction: { href: self },
      },
      ...record,
    };
  }
  return {
    _links: {
      self: { href: `${base}/operations/${token}` },
      transaction: { href: `${base}/transactions/${String(record.transaction_hash)}` },
      effects: { href: `${base}/operations/${token}/effects` },
      succeeds: { href: `${base}/effects?order=desc&cursor=${token}` },
      precedes: { href: `${base}/effects?order=asc&cursor=${token}` },
    },
    ...record,
  };
}
