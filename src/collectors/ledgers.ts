import type { Logger } from "pino";
import type { ExporterConfig } from "../config/config.js";
import { METRICS } from "../catalog/metrics.js";
import { PollError } from "../client/errors.js";
import type { HorizonClient, RawRecords } from "../client/horizon-client.js";
import { ledgerPagingToken, ledgerSchema, type Ledger } from "../client/schemas.js";
import { isUint64Text } from "../client/wire-values.js";
import type { HorizonJobParts, JobTiming, PollContext, PollJob } from "../job/job.js";
import type { NetworkView } from "../job/network.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import { cursorPast, PAGE_LIMIT, rawPagingToken, validRecord } from "../client/paging.js";
import { HistogramData, type CollectorSamples, type Sample } from "../exposition/samples.js";

/** Running totals of every ledger read: counters never go back, whatever Horizon does. */
export class LedgerTotals {
  ledgers = 0;
  successfulTransactions = 0;
  failedTransactions = 0;
  operations = 0;
  txSetOperations = 0;
  skipped = 0;
  resyncs = 0;
  readonly closeIntervals = new HistogramData(METRICS.ledgerCloseInterval.buckets);
  readonly txSetCapacity = new HistogramData(METRICS.ledgerTxSetCapacity.buckets);
}

export function ledgerSamples(totals: LedgerTotals, latest: Ledger | undefined): CollectorSamples<Sample> {
  const persistent: Sample[] = [
    { metric: METRICS.ledgersTotal, value: totals.ledgers },
    { metric: METRICS.transactionsTotal, labels: { result: "successful" }, value: totals.successfulTransactions },
    { metric: METRICS.transactionsTotal, labels: { result: "failed" }, value: totals.failedTransactions },
    { metric: METRICS.operationsTotal, value: totals.operations },
    { metric: METRICS.txSetOperationsTotal, value: totals.txSetOperations },
    { metric: METRICS.ledgersSkippedTotal, value: totals.skipped },
    { metric: METRICS.ledgerResyncsTotal, value: totals.resyncs },
    { metric: METRICS.ledgerCloseInterval, histogram: totals.closeIntervals },
    { metric: METRICS.ledgerTxSetCapacity, histogram: totals.txSetCapacity },
  ];
  if (latest === undefined) return { live: [], persistent };
  const live: Sample[] = [
    { metric: METRICS.ledgerSequence, value: latest.sequence },
    { metric: METRICS.ledgerClosedTimestamp, value: Date.parse(latest.closed_at) / 1000 },
    { metric: METRICS.ledgerBaseFee, value: latest.base_fee_in_stroops },
    { metric: METRICS.ledgerBaseReserve, value: latest.base_reserve_in_stroops },
    { metric: METRICS.ledgerMaxTxSetSize, value: latest.max_tx_set_size },
    { metric: METRICS.ledgerProtocolVersion, value: latest.protocol_version },
    { metric: METRICS.ledgerTotalCoins, value: latest.total_coins },
    { metric: METRICS.ledgerFeePool, value: latest.fee_pool },
  ];
  return { live, persistent };
}

/**
 * A raw record's paging token if it can be the cursor: its sequence shifted left 32 bits, valid record or not. Any
 * other token (`abc`, `..%2F`, a number past the ledgers) would poison the cursor: every later page refused or empty.
 */
function ledgerCursorOf(raw: unknown): bigint | undefined {
  const token = rawPagingToken(raw);
  if (token === undefined || !isUint64Text(token)) return undefined;
  const sequence = (raw as Record<string, unknown>).sequence;
  const whole = typeof sequence === "number" && Number.isSafeInteger(sequence) && sequence >= 0;
  return whole && BigInt(token) === ledgerPagingToken(sequence) ? BigInt(token) : undefined;
}

/** The cursor after an ascending page: its last usable token past `cursor`; without one the poll fails (`paging`). */
function ledgerCursorAfter(ascending: RawRecords, cursor: string | undefined): string {
  const after = cursor === undefined ? -1n : BigInt(cursor);
  for (let index = ascending.length - 1; index >= 0; index -= 1) {
    const next = ledgerCursorOf(ascending[index]);
    if (next !== undefined && next > after) return next.toString();
  }
  return cursorPast(undefined, cursor, "ledgers");
}

/**
 * Reads every ledger exactly once, ascending from Horizon's paging cursor, which moves by raw records: an invalid one
 * is counted and skipped once. A gap (pages capped, ledgers missing or invalid) is counted as skipped, never guessed
 * at; a sequence going backwards or a refused cursor (400) restarts from the latest; a broken hash chain is a resync.
 */
export class LedgersCollector implements PollJob {
  readonly role = "poll";
  readonly source = "ledgers";
  readonly schedule: JobTiming["schedule"];
  readonly requestsPerRun: number;
  private readonly totals = new LedgerTotals();
  /** The paging token of the last record read, valid or not; undefined before the first poll. */
  private cursor: string | undefined;
  /** The last valid ledger: the state the gauges show and the hash chain continues from. */
  private latest: Ledger | undefined;
  /** Invalid records read since `latest`, already counted as skipped. */
  private invalidSinceLatest = 0;

  constructor(
    private readonly client: HorizonClient,
    /** `maxPagesPerPoll`: past it a poll skips ahead, counting the gap; `backfill`: ledgers read before the first. */
    private readonly options: ExporterConfig["ledgers"],
    private readonly log: Logger,
    /** Learns each ledger read: its hash, the latest sequence and base reserve. */
    private readonly network: NetworkView | undefined,
    timing: JobTiming,
  ) {
    this.schedule = timing.schedule;
    this.requestsPerRun = timing.requestsPerRun;
  }

  async run(context: PollContext): Promise<void> {
    if (this.cursor === undefined) return this.startFromLatest(context);
    for (let pages = 1; ; pages += 1) {
      const records = await this.pageAfterCursor(context);
      context.progressed();
      if (records === undefined) return this.resynchroniseRefusedCursor(context);
      if (records.length === 0) return this.checkForReset(context);
      this.readPage(records, context);
      if (records.length < PAGE_LIMIT) return;
      if (pages >= this.options.maxPagesPerPoll) return this.skipAhead(context);
    }
  }

  samples(): CollectorSamples<Sample> {
    return ledgerSamples(this.totals, this.latest);
  }

  /** The page after the cursor; undefined when Horizon refuses the cursor (400). */
  private async pageAfterCursor(context: PollContext): Promise<RawRecords | undefined> {
    try {
      return await this.client.ledgers({ order: "asc", limit: PAGE_LIMIT, cursor: this.cursor }, context.signal);
    } catch (error) {
      if (error instanceof PollError && error.details.status === 400) return undefined;
      throw error;
    }
  }

  /** A cursor Horizon refuses would be refused at every poll: it is dropped and reading restarts from the latest. */
  private async resynchroniseRefusedCursor(context: PollContext): Promise<void> {
    this.totals.resyncs += 1;
    this.log.warn({ cursor: this.cursor }, "Horizon refused the ledger cursor; resynchronising from the latest ledger");
    this.cursor = undefined;
    await this.startFromLatest(context);
  }

  private async startFromLatest(context: PollContext): Promise<void> {
    const records = await this.client.ledgers({ order: "desc", limit: this.options.backfill + 1 }, context.signal);
    if (records.length > 0) this.readPage([...records].reverse(), context);
  }

  /** An empty page means caught up, or that the network restarted below our cursor. */
  private async checkForReset(context: PollContext): Promise<void> {
    const [raw] = await this.client.ledgers({ order: "desc", limit: 1 }, context.signal);
    // An invalid newest ledger was counted when paging reached it; it cannot tell a reset.
    const newest = validRecord(ledgerSchema, raw);
    const latest = this.latest;
    if (newest === undefined || latest === undefined || newest.sequence >= latest.sequence) return;
    this.totals.resyncs += 1;
    this.log.warn({ from: latest.sequence, to: newest.sequence }, "ledger sequence went backwards; resynchronising");
    this.latest = undefined;
    this.invalidSinceLatest = 0;
    this.read(newest);
    this.cursor = newest.paging_token;
  }

  /** The page cap was hit: jump to the latest ledger and count what lies between as skipped. */
  private async skipAhead(context: PollContext): Promise<void> {
    const records = await this.client.ledgers({ order: "desc", limit: 1 }, context.signal);
    const newest = validRecord(ledgerSchema, records[0]);
    const behind = newest !== undefined && this.latest !== undefined && newest.sequence <= this.latest.sequence;
    if (behind || ledgerCursorOf(records[0]) === undefined || rawPagingToken(records[0]) === this.cursor) return;
    this.log.warn(
      { from: this.latest?.sequence, to: newest?.sequence, maxPagesPerPoll: this.options.maxPagesPerPoll },
      "ledger catch-up hit its page cap; skipping ahead",
    );
    this.readPage(records, context);
  }

  private readPage(records: RawRecords, context: PollContext): void {
    // Found first: a page that cannot move the cursor fails the poll before anything is counted.
    const next = ledgerCursorAfter(records, this.cursor);
    let invalid = 0;
    for (const raw of records) {
      const ledger = validRecord(ledgerSchema, raw);
      if (ledger !== undefined) this.read(ledger);
      else {
        invalid += 1;
        this.totals.skipped += 1;
        this.invalidSinceLatest += 1;
      }
    }
    if (invalid > 0) context.invalidRecords(invalid);
    this.cursor = next;
  }

  private read(ledger: Ledger): void {
    const previous = this.latest;
    if (previous !== undefined && ledger.sequence <= previous.sequence) return;
    const consecutive = previous !== undefined && ledger.sequence === previous.sequence + 1;
    if (consecutive && ledger.prev_hash !== previous.hash) {
      this.totals.resyncs += 1;
      this.log.warn(
        { sequence: ledger.sequence },
        "ledger hash chain broken (network reset?); counted as a resync, reading on from this ledger",
      );
    } else if (consecutive) {
      const intervalSeconds = (Date.parse(ledger.closed_at) - Date.parse(previous.closed_at)) / 1000;
      if (intervalSeconds >= 0) this.totals.closeIntervals.observe(intervalSeconds);
    } else if (previous !== undefined) {
      // Invalid records in the gap were counted as skipped when they were read.
      this.totals.skipped += Math.max(0, ledger.sequence - previous.sequence - 1 - this.invalidSinceLatest);
    }
    this.invalidSinceLatest = 0;
    const totals = this.totals;
    totals.ledgers += 1;
    totals.successfulTransactions += ledger.successful_transaction_count;
    totals.failedTransactions += ledger.failed_transaction_count ?? 0;
    totals.operations += ledger.operation_count;
    if (ledger.tx_set_operation_count != null) {
      totals.txSetOperations += ledger.tx_set_operation_count;
      if (ledger.max_tx_set_size > 0)
        totals.txSetCapacity.observe(ledger.tx_set_operation_count / ledger.max_tx_set_size);
    }
    this.latest = ledger;
    this.network?.ledgerHash(ledger.sequence, ledger.hash);
    this.network?.learn({ baseReserveStroops: ledger.base_reserve_in_stroops });
  }
}

export function ledgersJob({ client, config, target, log, network }: HorizonJobParts): LedgersCollector {
  const timing = { schedule: target.schedules.ledgers, requestsPerRun: requestsPerPoll("ledgers", target, config) };
  return new LedgersCollector(client, config.ledgers, log.child({ endpoint: "ledgers" }), network, timing);
}
