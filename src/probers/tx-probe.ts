// The transaction-submission probe: proves, on a schedule, that a wallet can get a transaction into a ledger through
// this Horizon now, with a no-op transaction (one BumpSequence to 0, which moves no funds).
import type { Keypair, Transaction } from "@stellar/stellar-base";
import type { Logger } from "pino";
import {
  METRICS,
  TX_PROBE_COMMON_FAILURE_REASONS,
  TX_PROBE_REFUSAL_REASONS,
  type TxProbeRefusal,
} from "../catalog/metrics.js";
import type { Account } from "../client/account-schemas.js";
import { AccountsClient } from "../client/accounts.js";
import { PollError, problemType } from "../client/errors.js";
import { SUBMISSION_TIMEOUT_MS, type HorizonClient } from "../client/horizon-client.js";
import { horizonCodeName, OTHER_TRANSACTION_CODE } from "../client/result-codes.js";
import { transactionFailedExtrasSchema, type TransactionResponse } from "../client/schemas.js";
import { HistogramData, type CollectorSamples, type Sample } from "../exposition/samples.js";
import type { HorizonJobParts, PollContext, ProbeJob } from "../job/job.js";
import type { NetworkView } from "../job/network.js";
import type { Schedule } from "../config/schedule.js";
import { secretFileWarning, type TxProbeConfig } from "../config/tx-probe.js";
import { stellarBase } from "../stellar-base.js";
import { REQUESTS_PER_PROBE_RUN } from "../scheduler/request-plan.js";

/** The issue asked for "stellar-horizon-exporter probe", but a text memo holds at most 28 bytes and that is 30. */
export const PROBE_MEMO = "stellar-horizon-exporter";
/** The transaction is valid until this long after its build time, so a stuck one expires soon. */
const VALIDITY_SECONDS = 30;

/** The probe's account as it stands: its sequence (it exceeds 2^53) and whether the probe's key signs for it. */
export type ProbeAccount = { readonly sequence: bigint; readonly keySigns: boolean };

/** The Horizon calls the probe makes; the same client as the target's polls, so it shares their rate-limit hold. */
export interface ProbeHorizon extends Pick<HorizonClient, "submitTransaction" | "holdingBack"> {
  /** The account, undefined when Horizon does not know it (never funded, or merged away). */
  probeAccount(accountId: string, signal: AbortSignal): Promise<ProbeAccount | undefined>;
}

interface TxProbeOptions {
  readonly settings: Pick<TxProbeConfig, "schedule" | "maxFee" | "allowPubnet">;
  readonly signer: Keypair;
  readonly client: ProbeHorizon;
  readonly network: NetworkView;
  readonly log: Logger;
  readonly now: () => number;
  /** The client's request timeout (http.timeout), when longer than a submission's own. */
  readonly timeoutMs?: number;
}

/** The probe's view of a target's client: the account through the watched-accounts reader. */
function probeHorizon(client: HorizonClient): ProbeHorizon {
  const accounts = new AccountsClient(client);
  return {
    probeAccount: async (accountId, signal) => {
      const lookup = await accounts.account(accountId, signal);
      if (lookup.status === "missing") return undefined;
      return { sequence: lookup.account.sequence, keySigns: keySigns(lookup.account, accountId) };
    },
    submitTransaction: (envelopeXdr, signal) => client.submitTransaction(envelopeXdr, signal),
    holdingBack: () => client.holdingBack(),
  };
}

/** Whether a transaction signed by `key` alone meets the account's low threshold, which a BumpSequence needs: a removed
 * or underweight master key is refused by the network with tx_bad_auth. */
export function keySigns(account: Pick<Account, "signers" | "thresholds">, key: string): boolean {
  const weight = account.signers.find((signer) => signer.key === key)?.weight ?? 0;
  return weight > 0 && weight >= account.thresholds.low;
}

/** The p90 fee charged lately, at least the base fee, at most what the operator allows. */
export function probeFee(fees: { baseFeeStroops: number; feeP90Stroops: number }, maxFee: number): number {
  return Math.min(maxFee, Math.max(fees.baseFeeStroops, fees.feeP90Stroops));
}

let resultCodes: ReadonlySet<string> | undefined;

/** Every transaction result code the SDK knows, as Horizon spells it (`txBadSeq` → `tx_bad_seq`): any other code a
 * Horizon sends is tx_other, so no Horizon can grow the `reason` label's values. Built on first use (stellarBase). */
function transactionResultCodes(): ReadonlySet<string> {
  if (resultCodes !== undefined) return resultCodes;
  // The SDK's enums list their values at run time; its types do not declare it.
  const codes = stellarBase().xdr.TransactionResultCode as unknown as { values(): readonly { name: string }[] };
  resultCodes = new Set(codes.values().map(({ name }) => horizonCodeName(name)));
  return resultCodes;
}

/** The `reason` label of a failed submission. */
export function failureReason(error: unknown): string {
  if (!(error instanceof PollError)) return "internal";
  const problem = error.details.problem;
  const type = problemType(error);
  if (type === "transaction_failed") {
    const extras = transactionFailedExtrasSchema.safeParse(problem?.extras);
    const code = extras.success ? extras.data.result_codes.transaction : "";
    return transactionResultCodes().has(code) ? code : OTHER_TRANSACTION_CODE;
  }
  // Horizon answers 504 when the transaction was not in a ledger in time; it may still get in.
  if (error.details.status === 504 || type === "transaction_submission_timeout") return "timeout";
  return error.reason;
}

/** Stopped (shutdown, or a reload that removed or changed the target), not at the run's deadline (a PollError): not a
 * failure of Horizon's. */
function stopped(signal: AbortSignal): boolean {
  return signal.aborted && !(signal.reason instanceof PollError);
}

/** The client refused the request without sending it, holding back as Horizon asked (a 429 carries its status). */
function heldBack(error: unknown): boolean {
  return error instanceof PollError && error.reason === "rate_limited" && error.details.status === undefined;
}

/** Horizon 1.x did not send fee_charged; the result XDR always holds it. Undefined when that XDR does not decode or
 * holds a negative fee (an int64 there), which no ledger charges. */
function feeCharged({ fee_charged, result_xdr }: TransactionResponse): number | undefined {
  if (fee_charged !== undefined) return fee_charged;
  try {
    const fee = stellarBase().xdr.TransactionResult.fromXDR(result_xdr, "base64").feeCharged().toBigInt();
    return fee < 0n ? undefined : Number(fee);
  } catch {
    return undefined;
  }
}

/** A target's probe: one run at a time, the first a period after start, once the polls taught it network and fees. */
export class TxProbe implements ProbeJob {
  readonly role = "probe";
  readonly source = "tx_probe";
  readonly requestsPerRun = REQUESTS_PER_PROBE_RUN;
  readonly schedule: Schedule;
  /** A submission waits for its ledger longer than a poll's request budget may be: the run's deadline lets it. */
  readonly requestTimeoutMs: number;
  private submissions = 0;
  private readonly failures = new Map<string, number>(TX_PROBE_COMMON_FAILURE_REASONS.map((reason) => [reason, 0]));
  private readonly durations = new HistogramData(METRICS.txProbeDuration.buckets);
  private readonly inclusionLedgers = new HistogramData(METRICS.txProbeInclusionLedgers.buckets);
  private lastFeeCharged: number | undefined;
  private lastSuccessSeconds: number | undefined;
  private refusal: TxProbeRefusal | undefined;

  constructor(private readonly options: TxProbeOptions) {
    this.schedule = options.settings.schedule;
    this.requestTimeoutMs = Math.max(options.timeoutMs ?? 0, SUBMISSION_TIMEOUT_MS);
  }

  /** Never rejects: each outcome is counted in the probe's own series. */
  run(context: PollContext): Promise<void> {
    return this.runOnce(context).catch((error: unknown) => {
      this.options.log.error({ error: String(error) }, "transaction probe run failed unexpectedly");
    });
  }

  samples(): CollectorSamples {
    const persistent: Sample[] = [
      { metric: METRICS.txProbeSubmissions, value: this.submissions },
      ...TX_PROBE_REFUSAL_REASONS.map((reason) => ({
        metric: METRICS.txProbeRefused,
        labels: { reason },
        value: this.refusal === reason ? 1 : 0,
      })),
      ...[...this.failures].map(([reason, value]) => ({ metric: METRICS.txProbeFailures, labels: { reason }, value })),
      { metric: METRICS.txProbeDuration, histogram: this.durations },
      { metric: METRICS.txProbeInclusionLedgers, histogram: this.inclusionLedgers },
    ];
    if (this.lastFeeCharged !== undefined)
      persistent.push({ metric: METRICS.txProbeFeeCharged, value: this.lastFeeCharged });
    if (this.lastSuccessSeconds !== undefined)
      persistent.push({ metric: METRICS.txProbeLastSuccess, value: this.lastSuccessSeconds });
    return { live: [], persistent };
  }

  private async runOnce({ signal, progressed }: PollContext): Promise<void> {
    const { settings, signer, client, network, log } = this.options;
    const { passphrase, baseFeeStroops, feeP90Stroops } = network.current;
    if (this.refusal === "pubnet") return;
    if (passphrase === undefined || baseFeeStroops === undefined || feeP90Stroops === undefined)
      return log.debug("transaction probe waits for the first root and fee_stats polls");
    const { Account, Memo, Networks, Operation, TransactionBuilder } = stellarBase();
    if (passphrase === Networks.PUBLIC && !settings.allowPubnet)
      return this.refuse(
        "pubnet",
        "this Horizon serves pubnet, where the transaction probe spends real lumens: " +
          "it will not submit unless tx_probe.allow_pubnet is true",
      );
    if (client.holdingBack()) return log.debug("transaction probe skips a run: Horizon asked us to hold back");
    const accountId = signer.publicKey();
    let account: ProbeAccount | undefined;
    try {
      // Read afresh every run: after tx_bad_seq, a 504 or a lost answer the local guess may be wrong.
      account = await client.probeAccount(accountId, signal);
      progressed();
    } catch (error) {
      const failure = { account: accountId, error: error instanceof Error ? error.message : String(error) };
      if (stopped(signal)) return log.debug(failure, "transaction probe account read cancelled");
      return log.warn(failure, "transaction probe cannot read its account's sequence; not submitting");
    }
    if (account === undefined)
      return this.refuse("unfunded", `the transaction probe's account ${accountId} does not exist: fund it`);
    if (!account.keySigns)
      return this.refuse(
        "no_key",
        `the transaction probe's key no longer signs for its account ${accountId} ` +
          "(master key removed or below the low threshold)",
      );
    this.refuse(undefined);
    const nowSeconds = Math.floor(this.options.now() / 1000);
    const transaction = new TransactionBuilder(new Account(accountId, account.sequence.toString()), {
      fee: String(probeFee({ baseFeeStroops, feeP90Stroops }, settings.maxFee)),
      networkPassphrase: passphrase,
      // No lower bound, as the SDK's setTimeout: core refuses (tx_too_early) a minTime after the last ledger's close
      // time, which is a few seconds behind our clock.
      timebounds: { minTime: 0, maxTime: nowSeconds + VALIDITY_SECONDS },
    })
      .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
      .addMemo(Memo.text(PROBE_MEMO))
      .build();
    transaction.sign(signer);
    await this.submit(transaction, signal);
  }

  /** Submits `transaction` and counts its outcome: a success, or one failure under its reason. */
  private async submit(transaction: Transaction, signal: AbortSignal): Promise<void> {
    const { client, network, log } = this.options;
    // The account read's answer may have exhausted the rate limit: the client would refuse to send the submission.
    if (client.holdingBack()) return log.debug("transaction probe does not submit: Horizon asked us to hold back");
    const latestLedger = network.current.latestLedger;
    const started = this.options.now();
    let reason: string;
    let detail: string;
    try {
      const response = await client.submitTransaction(transaction.toXDR(), signal);
      this.submissions += 1;
      // Read before anything is recorded: an answer that cannot be read is one failure, not a success and a failure.
      const fee = feeCharged(response);
      if (response.successful !== false && fee !== undefined)
        return this.succeeded(response, fee, started, latestLedger);
      // Horizons answer a failed transaction with a 400 problem; an included failure is still one.
      [reason, detail] =
        response.successful === false
          ? ["tx_failed", `included in ledger ${response.ledger} as failed`]
          : [
              "schema",
              "Horizon's transactions: a success answer without fee_charged whose result_xdr holds no fee charged",
            ];
    } catch (error) {
      // A hold another request's answer set meanwhile: nothing was sent, so nothing is counted.
      if (heldBack(error)) return log.debug("transaction probe does not submit: Horizon asked us to hold back");
      this.submissions += 1;
      if (stopped(signal))
        return log.debug({ hash: transaction.hash().toString("hex") }, "transaction probe submission cancelled");
      reason = failureReason(error);
      detail = error instanceof Error ? error.message : String(error);
    }
    this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
    log.warn(
      { reason, hash: transaction.hash().toString("hex"), error: detail },
      "transaction probe submission failed",
    );
  }

  /** Records why the probe does not submit, logging once when that changes rather than every run. */
  private refuse(reason: TxProbeRefusal | undefined, why?: string): void {
    const previous = this.refusal;
    if (reason === previous) return;
    this.refusal = reason;
    if (reason !== undefined) this.options.log.warn({ reason }, `transaction probe refuses to submit: ${why}`);
    else this.options.log.info({ was: previous }, "transaction probe submits again");
  }

  private succeeded(response: TransactionResponse, fee: number, startedMs: number, latestLedger: number | undefined) {
    const nowMs = this.options.now();
    this.durations.observe(Math.max(0, nowMs - startedMs) / 1000);
    if (latestLedger !== undefined) this.inclusionLedgers.observe(Math.max(0, response.ledger - latestLedger));
    this.lastFeeCharged = fee;
    this.lastSuccessSeconds = nowMs / 1000;
    this.options.log.debug({ hash: response.hash, ledger: response.ledger }, "transaction probe succeeded");
  }
}

/** A Horizon's transaction probe, as its job table builds it, with a warning when its seed file is open to others. */
export function txProbeJob({ target, client, network, log: targetLog, clock }: HorizonJobParts): TxProbe {
  // The job table builds it only for a target with a probe.
  const config = target.txProbe!;
  const log = targetLog.child({ prober: "tx_probe" });
  if (config.secretFile !== undefined)
    void secretFileWarning(config.secretFile).then((warning) => warning && log.warn(warning));
  log.info(
    { account: config.accountId, schedule: config.schedule.text, maxFee: config.maxFee },
    "transaction probe configured",
  );
  const signer = config.signer.reveal();
  return new TxProbe({
    settings: config,
    signer,
    client: probeHorizon(client),
    network,
    log,
    now: () => clock.now(),
    timeoutMs: target.timeoutMs,
  });
}
