import type { Logger } from "pino";
import { METRICS } from "../catalog/metrics.js";
import type { HorizonClient } from "../client/horizon-client.js";
import type { Ledger } from "../client/schemas.js";
import type { Collector, PollResult } from "./collector.js";
import { HistogramData, type CollectorSamples, type Sample } from "./samples.js";

/** Horizon's maximum page size. */
const LEDGER_PAGE_LIMIT = 200;

export interface LedgerCatchUpOptions {
  /** Pages read per poll at most; beyond that the collector skips ahead and counts the gap. */
  readonly maxPagesPerPoll: number;
  /** Ledgers before the latest to read on the first poll (0: start at the latest ledger). */
  readonly backfill: number;
}

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

export function ledgerSamples(totals: LedgerTotals, latest: Ledger | undefined): CollectorSamples {
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
 * Reads every ledger exactly once by following Horizon's paging cursor in ascending order.
 * A gap (pages capped, ledgers missing or invalid) is counted as skipped, never guessed at; a
 * sequence that goes backwards or a broken hash chain (a network reset) restarts from the latest.
 */
export class LedgersCollector implements Collector {
  readonly endpoint = "ledgers";
  readonly totals = new LedgerTotals();
  private latest: Ledger | undefined;

  constructor(
    private readonly client: HorizonClient,
    private readonly options: LedgerCatchUpOptions,
    private readonly log: Logger,
  ) {}

  async poll(): Promise<PollResult> {
    if (this.latest === undefined) return this.startFromLatest(this.options.backfill);
    let invalidRecords = 0;
    for (let pages = 1; ; pages += 1) {
      const cursor: Ledger = this.latest;
      const page = await this.client.ledgers({ order: "asc", limit: LEDGER_PAGE_LIMIT, cursor: cursor.paging_token });
      invalidRecords += page.invalidRecords;
      for (const ledger of page.records) this.read(ledger);
      if (page.records.length + page.invalidRecords === 0) return this.checkForReset(invalidRecords);
      if (page.records.length + page.invalidRecords < LEDGER_PAGE_LIMIT) return { invalidRecords };
      if (pages >= this.options.maxPagesPerPoll) return this.skipAhead(invalidRecords);
    }
  }

  samples(): CollectorSamples {
    return ledgerSamples(this.totals, this.latest);
  }

  /** The latest ledger's base reserve, which watched accounts' minimum balances are computed from. */
  get baseReserveStroops(): number | undefined {
    return this.latest?.base_reserve_in_stroops;
  }

  private async startFromLatest(backfill: number): Promise<PollResult> {
    const page = await this.client.ledgers({ order: "desc", limit: backfill + 1 });
    for (const ledger of page.records.reverse()) this.read(ledger);
    return { invalidRecords: page.invalidRecords };
  }

  /** An empty page means caught up, or that the network restarted below our cursor. */
  private async checkForReset(invalidRecords: number): Promise<PollResult> {
    const page = await this.client.ledgers({ order: "desc", limit: 1 });
    const newest = page.records[0];
    const cursor = this.latest;
    if (newest === undefined || cursor === undefined || newest.sequence >= cursor.sequence) {
      return { invalidRecords: invalidRecords + page.invalidRecords };
    }
    this.totals.resyncs += 1;
    this.log.warn({ from: cursor.sequence, to: newest.sequence }, "ledger sequence went backwards; resynchronising");
    this.latest = undefined;
    this.read(newest);
    return { invalidRecords: invalidRecords + page.invalidRecords };
  }

  /** The page cap was hit: jump to the latest ledger and count what lies between as skipped. */
  private async skipAhead(invalidRecords: number): Promise<PollResult> {
    const page = await this.client.ledgers({ order: "desc", limit: 1 });
    const newest = page.records[0];
    if (newest !== undefined && this.latest !== undefined && newest.sequence > this.latest.sequence) {
      this.log.warn(
        { from: this.latest.sequence, to: newest.sequence, maxPagesPerPoll: this.options.maxPagesPerPoll },
        "ledger catch-up hit its page cap; skipping ahead",
      );
      this.read(newest);
    }
    return { invalidRecords: invalidRecords + page.invalidRecords };
  }

  private read(ledger: Ledger): void {
    const previous = this.latest;
    if (previous !== undefined && ledger.sequence <= previous.sequence) return;
    const consecutive = previous !== undefined && ledger.sequence === previous.sequence + 1;
    if (consecutive && ledger.prev_hash !== previous.hash) {
      this.totals.resyncs += 1;
      this.log.warn({ sequence: ledger.sequence }, "ledger hash chain broken (network reset?); resynchronising");
    } else if (consecutive) {
      const intervalSeconds = (Date.parse(ledger.closed_at) - Date.parse(previous.closed_at)) / 1000;
      if (intervalSeconds >= 0) this.totals.closeIntervals.observe(intervalSeconds);
    } else if (previous !== undefined) {
      this.totals.skipped += ledger.sequence - previous.sequence - 1;
    }
    const totals = this.totals;
    totals.ledgers += 1;
    totals.successfulTransactions += ledger.successful_transaction_count;
    totals.failedTransactions += ledger.failed_transaction_count ?? 0;
    totals.operations += ledger.operation_count;
    if (ledger.tx_set_operation_count != null) {
      totals.txSetOperations += ledger.tx_set_operation_count;
      if (ledger.max_tx_set_size > 0) totals.txSetCapacity.observe(ledger.tx_set_operation_count / ledger.max_tx_set_size);
    }
    this.latest = ledger;
  }
}
