/**
 * `POST /transactions` as Horizon and stellar-core answer it: the envelope is decoded with the
 * SDK and checked in core's order (time bounds, fee, source account, sequence, signatures,
 * balance); an accepted transaction waits for the next ledger to close, and the request is
 * answered only once Horizon has ingested that ledger, or with a 504 after Horizon's 30 s.
 */

import { FeeBumpTransaction, Keypair, StrKey, TransactionBuilder, xdr, type Transaction } from "@stellar/stellar-base";
import type { SimulatedAccount, SimulatedAccounts } from "./accounts.js";
import { BASE_RESERVE_STROOPS } from "./ledgers.js";
import type { Problem } from "./problems.js";
import { formatTimestamp } from "./wire.js";

export type SubmissionAnswer =
  | { readonly status: 200; readonly body: Record<string, unknown> }
  | { readonly problem: Problem };

/** Horizon gives up waiting for a submitted transaction after this long and answers 504 (the default). */
export const SUBMISSION_TIMEOUT_MS = 30_000;

const PROBLEM_TYPE_PREFIX = "https://stellar.org/horizon-errors/";
const TRANSACTION_FAILED_DETAIL =
  "The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this " +
  "response contains further details.  Descriptions of each code can be found at: " +
  "https://www.stellar.org/developers/guides/concepts/list-of-operations.html";

interface Pending {
  readonly transaction: Transaction;
  readonly envelopeXdr: string;
  readonly fee: bigint;
  readonly submittedAtMs: number;
  /** The base URL the request came to, for the response's links. */
  readonly baseUrl: string;
  readonly answer: (answer: SubmissionAnswer) => void;
  /** Set when a ledger closed with it; answered once Horizon has ingested that ledger. */
  included?: { readonly ledger: number; readonly closedAtMs: number; readonly index: number };
}

/** `txBadSeq` → `tx_bad_seq`, as Horizon spells result codes. */
function resultCodeName(code: string): string {
  return code.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function transactionResult(fee: bigint, result: xdr.TransactionResultResult): string {
  return new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString(fee.toString()),
    result,
    ext: new xdr.TransactionResultExt(0),
  }).toXDR("base64");
}

function transactionFailed(envelopeXdr: string, fee: bigint, result: xdr.TransactionResultResult): SubmissionAnswer {
  return {
    problem: {
      type: `${PROBLEM_TYPE_PREFIX}transaction_failed`,
      title: "Transaction Failed",
      status: 400,
      detail: TRANSACTION_FAILED_DETAIL,
      extras: {
        envelope_xdr: envelopeXdr,
        result_codes: { transaction: resultCodeName(result.switch().name) },
        result_xdr: transactionResult(fee, result),
      },
    },
  };
}

function malformed(envelopeXdr: string): SubmissionAnswer {
  return {
    problem: {
      type: `${PROBLEM_TYPE_PREFIX}transaction_malformed`,
      title: "Transaction Malformed",
      status: 400,
      detail:
        "Horizon could not decode the transaction envelope in this request. A transaction should be an XDR " +
        "TransactionEnvelope struct encoded using base64.  The envelope read from this request is echoed in " +
        "the `extras.envelope_xdr` field of this response for your convenience.",
      extras: { envelope_xdr: envelopeXdr },
    },
  };
}

function submissionTimeout(hash: string, envelopeXdr: string): SubmissionAnswer {
  return {
    problem: {
      type: `${PROBLEM_TYPE_PREFIX}transaction_submission_timeout`,
      title: "Transaction Submission Timeout",
      status: 504,
      detail:
        "Timeout. Please resubmit your transaction to receive submission status. More info: " +
        "https://developers.stellar.org/api/errors/http-status-codes/horizon-specific/timeout",
      extras: { envelope_xdr: envelopeXdr, hash },
    },
  };
}

/** The weight of the distinct account keys that signed, as core counts it. */
function signatureWeight(transaction: Transaction, account: SimulatedAccount): number {
  const hash = transaction.hash();
  let weight = 0;
  for (const { key: address, type, weight: keyWeight } of account.signers) {
    if (type !== "ed25519_public_key" || keyWeight === 0) continue;
    const key = Keypair.fromPublicKey(address);
    const hint = key.signatureHint();
    const signed = transaction.signatures.some(
      (signature) => signature.hint().equals(hint) && key.verify(hash, signature.signature()),
    );
    if (signed) weight += keyWeight;
  }
  return weight;
}

/** The submission queue of one simulated network. */
export class TransactionSubmissions {
  readonly #pending: Pending[] = [];
  /** When the last ledger closed, as core last closed it: core judges a transaction's minTime against it. */
  #lastClosedAtMs: number | undefined;

  constructor(
    private readonly options: {
      readonly networkPassphrase: string;
      readonly accounts: SimulatedAccounts;
      readonly timeoutMs: number;
    },
  ) {}

  /** Transactions waiting for a ledger or for Horizon's answer. */
  get waiting(): number {
    return this.#pending.length;
  }

  /** Validates and queues a submission; the promise settles once it is answered. */
  submit(
    envelopeXdr: string,
    request: { nowMs: number; minimumFeePerOperation: number; baseUrl: string },
  ): Promise<SubmissionAnswer> {
    const { nowMs, minimumFeePerOperation, baseUrl } = request;
    let transaction: Transaction | FeeBumpTransaction;
    try {
      transaction = TransactionBuilder.fromXDR(envelopeXdr, this.options.networkPassphrase);
    } catch {
      return Promise.resolve(malformed(envelopeXdr));
    }
    const fee = BigInt(transaction.fee);
    if (transaction instanceof FeeBumpTransaction) {
      return Promise.resolve(transactionFailed(envelopeXdr, fee, xdr.TransactionResultResult.txNotSupported()));
    }
    const rejection = this.#rejection(transaction, fee, nowMs, minimumFeePerOperation);
    if (rejection !== undefined) return Promise.resolve(transactionFailed(envelopeXdr, fee, rejection));
    return new Promise((answer) => {
      this.#pending.push({ transaction, envelopeXdr, fee, submittedAtMs: nowMs, baseUrl, answer });
    });
  }

  /**
   * Called as a ledger closes: every queued transaction goes into it (unless `including` is
   * false); returns how many did, for the ledger's counts.
   */
  closeLedger(ledger: number, closedAtMs: number, including: boolean): number {
    this.#lastClosedAtMs = closedAtMs;
    if (!including) return 0;
    let index = 0;
    for (const pending of this.#pending) {
      if (pending.included !== undefined || pending.submittedAtMs > closedAtMs) continue;
      const { source, sequence, operations } = pending.transaction;
      const bumpedTo = operations.map((operation) =>
        operation.type === "bumpSequence" ? BigInt(operation.bumpTo) : 0n,
      );
      const highestBump = bumpedTo.reduce((highest, bumpTo) => (bumpTo > highest ? bumpTo : highest), 0n);
      const at = { ledger, closedAtMs };
      this.options.accounts.bumpSequence(source, at, highestBump > BigInt(sequence) ? highestBump : undefined);
      this.options.accounts.chargeFee(source, pending.fee, at);
      index += 1;
      pending.included = { ledger, closedAtMs, index };
    }
    return index;
  }

  /** Answers what Horizon has ingested, and times out what waited too long. */
  settle(ingestedLedger: number, nowMs: number): void {
    for (let i = this.#pending.length - 1; i >= 0; i--) {
      const pending = this.#pending[i]!;
      const hash = pending.transaction.hash().toString("hex");
      let answer: SubmissionAnswer | undefined;
      if (pending.included !== undefined && pending.included.ledger <= ingestedLedger)
        answer = { status: 200, body: this.#response(pending) };
      else if (pending.included === undefined && nowMs - pending.submittedAtMs >= this.options.timeoutMs)
        answer = submissionTimeout(hash, pending.envelopeXdr);
      if (answer === undefined) continue;
      this.#pending.splice(i, 1);
      pending.answer(answer);
    }
  }

  /** When the oldest waiting transaction times out, if any waits. */
  nextDeadlineMs(): number | undefined {
    const waiting = this.#pending.filter((pending) => pending.included === undefined);
    return waiting.length === 0
      ? undefined
      : Math.min(...waiting.map((pending) => pending.submittedAtMs)) + this.options.timeoutMs;
  }

  /** Core's checks before a transaction may enter the queue; undefined when it may. */
  #rejection(
    transaction: Transaction,
    fee: bigint,
    nowMs: number,
    minimumFeePerOperation: number,
  ): xdr.TransactionResultResult | undefined {
    const results = xdr.TransactionResultResult;
    const nowSeconds = BigInt(Math.floor(nowMs / 1000));
    // Core's isTooEarly: minTime after the last closed ledger's close time; the clock until a first close is seen.
    const closedSeconds = BigInt(Math.floor((this.#lastClosedAtMs ?? nowMs) / 1000));
    const bounds = transaction.timeBounds;
    if (bounds !== undefined && BigInt(bounds.minTime) > closedSeconds) return results.txTooEarly();
    if (bounds !== undefined && bounds.maxTime !== "0" && BigInt(bounds.maxTime) < nowSeconds)
      return results.txTooLate();
    if (transaction.operations.length === 0) return results.txMissingOperation();
    // The simulated ledger applies bump-sequence operations only (what the probe sends).
    if (transaction.operations.some((operation) => operation.type !== "bumpSequence")) return results.txNotSupported();
    if (fee < BigInt(minimumFeePerOperation) * BigInt(transaction.operations.length))
      return results.txInsufficientFee();
    if (!StrKey.isValidEd25519PublicKey(transaction.source)) return results.txNoAccount();
    const account = this.options.accounts.get(transaction.source);
    if (account === undefined) return results.txNoAccount();
    if (BigInt(transaction.sequence) !== this.#nextSequence(transaction.source, account)) return results.txBadSeq();
    // A wrong network passphrase changes the hash, so its signatures fail here too, as in core.
    if (signatureWeight(transaction, account) < Math.max(1, account.thresholds.low)) return results.txBadAuth();
    if (account.balance - account.nativeSellingLiabilities - fee < this.#minimumBalance(account))
      return results.txInsufficientBalance();
    return undefined;
  }

  /** The reserve an account must keep: (2 + subentries + sponsoring − sponsored) base reserves. */
  #minimumBalance(account: SimulatedAccount): bigint {
    const entries = 2 + this.options.accounts.subentries(account.id) + account.numSponsoring - account.numSponsored;
    return BigInt(entries) * BigInt(BASE_RESERVE_STROOPS);
  }

  /** The account's sequence after the transactions already queued for it. */
  #nextSequence(source: string, account: SimulatedAccount): bigint {
    let sequence = account.sequence;
    for (const pending of this.#pending) {
      if (pending.included === undefined && pending.transaction.source === source) {
        const queued = BigInt(pending.transaction.sequence);
        if (queued > sequence) sequence = queued;
      }
    }
    return sequence + 1n;
  }

  /** Horizon's transaction resource, in its key order (see tx_submit_success-stellar-docs.json). */
  #response(pending: Pending): Record<string, unknown> {
    const { transaction, envelopeXdr, fee } = pending;
    const included = pending.included!;
    const base = pending.baseUrl;
    const hash = transaction.hash().toString("hex");
    // A TOID: ledger in the high 32 bits, the transaction's 1-based index in the next 20.
    const pagingToken = ((BigInt(included.ledger) << 32n) | (BigInt(included.index) << 12n)).toString();
    const memoValue =
      transaction.memo.type === "text" ? Buffer.from(transaction.memo.value as Buffer | string) : undefined;
    const self = `${base}/transactions/${hash}`;
    const operationResults = transaction.operations.map(() =>
      xdr.OperationResult.opInner(xdr.OperationResultTr.bumpSequence(xdr.BumpSequenceResult.bumpSequenceSuccess())),
    );
    const bounds = transaction.timeBounds;
    return {
      ...(memoValue ? { memo: memoValue.toString("utf8"), memo_bytes: memoValue.toString("base64") } : {}),
      _links: {
        self: { href: self },
        account: { href: `${base}/accounts/${transaction.source}` },
        ledger: { href: `${base}/ledgers/${included.ledger}` },
        operations: { href: `${self}/operations{?cursor,limit,order}`, templated: true },
        effects: { href: `${self}/effects{?cursor,limit,order}`, templated: true },
        precedes: { href: `${base}/transactions?order=asc&cursor=${pagingToken}` },
        succeeds: { href: `${base}/transactions?order=desc&cursor=${pagingToken}` },
        transaction: { href: self },
      },
      id: hash,
      paging_token: pagingToken,
      successful: true,
      hash,
      ledger: included.ledger,
      created_at: formatTimestamp(included.closedAtMs),
      source_account: transaction.source,
      source_account_sequence: transaction.sequence,
      fee_account: transaction.source,
      fee_charged: fee.toString(),
      max_fee: fee.toString(),
      operation_count: transaction.operations.length,
      envelope_xdr: envelopeXdr,
      result_xdr: transactionResult(fee, xdr.TransactionResultResult.txSuccess(operationResults)),
      result_meta_xdr: new xdr.TransactionMeta(0, []).toXDR("base64"),
      // OperationMeta is a struct holding only a LedgerEntryChanges: empty, it encodes as empty changes.
      fee_meta_xdr: new xdr.OperationMeta({ changes: [] }).toXDR("base64"),
      memo_type: transaction.memo.type,
      signatures: transaction.signatures.map((signature) => signature.signature().toString("base64")),
      ...(bounds ? { preconditions: { timebounds: { min_time: bounds.minTime, max_time: bounds.maxTime } } } : {}),
    };
  }
}
