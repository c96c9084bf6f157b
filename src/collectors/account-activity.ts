/** What watched accounts do: payments, transactions and operations, each stream counted once from its own cursor. */
import { METRICS } from "../catalog/metrics.js";
import { operationRecordSchema, paymentRecordSchema, transactionRecordSchema } from "../client/activity-schemas.js";
import { isNotFound, isTransient, PollError } from "../client/errors.js";
import { OTHER_TRANSACTION_CODE } from "../client/result-codes.js";
import type { HorizonClient, Query } from "../client/horizon-client.js";
import { readStream, startOver, uint64Place, validRecord, type StreamState } from "../client/paging.js";
import { stroopsToUnits } from "../client/wire-values.js";
import { activityRequestsPerPoll, streamsOf, type Stream } from "../config/account-streams.js";
import type { WatchedAccount } from "../config/accounts.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";
import { Poll, type HorizonJobParts, type PollContext, type PollJob } from "../job/job.js";
import { RestartWatch, type NetworkView } from "../job/network.js";
import { BoundedLabel, OTHER_LABEL } from "./label-text.js";
import { failureCode, paymentMoves, type Direction } from "./payment-records.js";

/** Pages of one stream read in one poll at most; a longer backlog continues at the next poll. */
const MAX_PAGES_PER_STREAM = 5;

/** Operations the StellarAccountUnexpectedOperation alert watches: their series exist from the start, at 0. */
const WATCHED_OPERATION_TYPES = ["set_options", "set_trust_line_flags", "clawback", "account_merge"] as const;
/** Distinct assets an account's payments get series for, `native` and the outflow-limited ones always among them;
 * later ones count as `other` (without an amount: units of different assets do not add up). Spam assets are many. */
export const ASSETS_PER_ACCOUNT = 20;
/** Distinct operation types an account gets series for: Horizon has 27; later ones count as `other`. */
export const OPERATION_TYPES_PER_ACCOUNT = 32;

export type ActivityReader = Pick<HorizonClient, "accountStream">;

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** One watched account's streams and sums. */
class AccountFlow {
  readonly streams = new Map<Stream, StreamState>();
  /** By `direction asset`; series created at 0 exist before anything happens. */
  readonly payments = new Map<string, number>();
  readonly stroops = new Map<string, bigint>();
  readonly lastPayment = new Map<Direction, number>();
  readonly transactions = new Map<string, number>();
  feeStroops = 0n;
  readonly failures = new Map<string, number>();
  readonly operations = new Map<string, number>();
  private readonly assets: BoundedLabel;
  private readonly operationTypes = new BoundedLabel(OPERATION_TYPES_PER_ACCOUNT, WATCHED_OPERATION_TYPES);

  constructor(readonly account: WatchedAccount) {
    this.assets = new BoundedLabel(ASSETS_PER_ACCOUNT, ["native", ...Object.keys(account.maxOutflowPerHour ?? {})]);
    for (const stream of streamsOf(account)) this.streams.set(stream, { started: false });
    if (account.activity === true) {
      this.transactions.set("successful", 0).set("failed", 0);
      for (const asset of Object.keys(account.maxOutflowPerHour ?? {})) {
        this.payments.set(`sent ${asset}`, 0);
        this.stroops.set(`sent ${asset}`, 0n);
      }
    }
    if (account.operations === true) for (const type of WATCHED_OPERATION_TYPES) this.operations.set(type, 0);
  }

  /** Counts one new record of `stream`; false when it is invalid (left out). */
  count(stream: Stream, raw: unknown): boolean {
    if (stream === "payments") return this.payment(raw, true);
    if (stream === "transactions") return this.transaction(raw);
    const record = validRecord(operationRecordSchema, raw);
    if (record === undefined) return false;
    if (record.transaction_successful !== false) increment(this.operations, this.operationTypes.of(record.type));
    return true;
  }

  /** Notes when the account last received or sent and, if `counting` (not the first poll's newest), sums it. */
  payment(raw: unknown, counting: boolean): boolean {
    const record = validRecord(paymentRecordSchema, raw);
    const moves = record === undefined ? undefined : paymentMoves(record, this.account.id);
    if (record === undefined || moves === undefined) return false;
    if (record.transaction_successful === false) return true;
    const createdAt = Date.parse(record.created_at) / 1_000;
    for (const { direction, asset, stroops } of moves) {
      if (createdAt > (this.lastPayment.get(direction) ?? -Infinity)) this.lastPayment.set(direction, createdAt);
      if (!counting) continue;
      const label = this.assets.of(asset);
      const key = `${direction} ${label}`;
      increment(this.payments, key);
      if (stroops !== undefined && label !== OTHER_LABEL)
        this.stroops.set(key, (this.stroops.get(key) ?? 0n) + stroops);
    }
    return true;
  }

  private transaction(raw: unknown): boolean {
    const record = validRecord(transactionRecordSchema, raw);
    if (record === undefined) return false;
    // A failed transaction whose result does not decode is still one: counted, with the code of an unknown failure.
    const code = record.successful ? undefined : (failureCode(record) ?? OTHER_TRANSACTION_CODE);
    const id = this.account.id;
    if (record.source_account === id) {
      increment(this.transactions, record.successful ? "successful" : "failed");
      if (code !== undefined) increment(this.failures, code);
    }
    if ((record.fee_account ?? record.source_account) === id) this.feeStroops += record.fee_charged;
    return true;
  }
}

/** A Horizon's activity poll: each stream of each account, ascending from its cursor, MAX_PAGES_PER_STREAM a poll. */
export class AccountActivityJob extends Poll implements PollJob {
  readonly source = "activity";
  private readonly flows: AccountFlow[];
  private readonly restarts: RestartWatch;

  constructor(
    private readonly client: ActivityReader,
    accounts: readonly WatchedAccount[],
    schedule: Schedule,
    network?: NetworkView,
  ) {
    super({ schedule, requestsPerRun: activityRequestsPerPoll(accounts) });
    this.flows = accounts.filter((account) => streamsOf(account).length > 0).map((account) => new AccountFlow(account));
    this.restarts = new RestartWatch(network);
  }

  /** Every stream is read though one fails for itself (a bad record, a 404): the others keep counting, and the poll
   * still fails, with the first failure. An abort, or a failure of the whole Horizon (down, rate-limited), ends it at
   * once: asking every other stream would only hammer it. */
  async run(context: PollContext): Promise<void> {
    if (this.restarts.restarted()) for (const flow of this.flows) flow.streams.forEach(startOver);
    let failure: unknown;
    for (const flow of this.flows)
      for (const [stream, state] of flow.streams)
        await this.read(flow, stream, state, context).catch((error: unknown) => {
          const wholeHorizon = error instanceof PollError && (isTransient(error) || error.reason === "rate_limited");
          if (context.signal.aborted || wholeHorizon) throw error;
          failure ??= error;
        });
    if (failure !== undefined) throw failure;
  }

  /** One stream's poll: its newest record the first time (the last payment's time), else its pages since the cursor. */
  private read(flow: AccountFlow, stream: Stream, state: StreamState, context: PollContext): Promise<void> {
    return readStream(state, context, {
      endpoint: "activity",
      stream: `${flow.account.name} ${stream}`,
      maxPages: MAX_PAGES_PER_STREAM,
      page: (query) => this.page(flow, stream, state, query, context.signal),
      place: uint64Place,
      count: (raw, usable) => usable && flow.count(stream, raw),
      sawNewest: (raw) => stream !== "payments" || flow.payment(raw, false),
    });
  }

  /** A page of the stream; a 404 before any record is no stream yet (undefined), else a poll error. No stream leaves a
   * first poll unstarted: a transient 404 (not ingested yet, a proxy) must not start the cursor before history. */
  private async page(flow: AccountFlow, stream: Stream, state: StreamState, query: Query, signal: AbortSignal) {
    // Failed transactions too; successful payments and operations only.
    const filtered = { ...query, include_failed: String(stream === "transactions") };
    return this.client.accountStream(flow.account.id, stream, filtered, signal).catch((error: unknown) => {
      if (isNotFound(error) && state.cursor === undefined) return undefined;
      throw error;
    });
  }

  samples(): CollectorSamples {
    const persistent: Sample[] = [];
    const live: Sample[] = [];
    for (const flow of this.flows) {
      const { name: account, expectPaymentWithinSeconds: within, maxOutflowPerHour } = flow.account;
      for (const [key, value] of flow.payments) {
        const [direction = "", asset = ""] = key.split(" ");
        persistent.push({ metric: METRICS.accountPaymentsTotal, labels: { account, direction, asset }, value });
      }
      for (const [key, stroops] of flow.stroops) {
        const [direction = "", asset = ""] = key.split(" ");
        const labels = { account, direction, asset };
        persistent.push({ metric: METRICS.accountPaymentAmountTotal, labels, value: stroopsToUnits(stroops) });
      }
      for (const [result, value] of flow.transactions)
        persistent.push({ metric: METRICS.accountTransactionsTotal, labels: { account, result }, value });
      if (flow.account.activity === true) {
        const value = Number(flow.feeStroops);
        persistent.push({ metric: METRICS.accountFeeChargedStroopsTotal, labels: { account }, value });
      }
      for (const [code, value] of flow.failures)
        persistent.push({ metric: METRICS.accountTransactionFailuresTotal, labels: { account, code }, value });
      for (const [type, value] of flow.operations)
        persistent.push({ metric: METRICS.accountOperationsTotal, labels: { account, type }, value });
      for (const [direction, value] of flow.lastPayment)
        live.push({ metric: METRICS.accountLastPaymentTimestamp, labels: { account, direction }, value });
      if (within !== undefined)
        live.push({ metric: METRICS.accountPaymentExpectedWithin, labels: { account }, value: within });
      for (const [asset, value] of Object.entries(maxOutflowPerHour ?? {}))
        live.push({ metric: METRICS.accountOutflowLimitPerHour, labels: { account, asset }, value });
    }
    return { live, persistent };
  }
}

export function activityWatched(target: { readonly accounts: readonly WatchedAccount[] }): boolean {
  return target.accounts.some((account) => account.activity === true || account.operations === true);
}

export function activityJob({ client, target, network }: HorizonJobParts): AccountActivityJob {
  return new AccountActivityJob(client, target.accounts, target.schedules.activity, network);
}
