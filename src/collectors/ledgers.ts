import type { Logger } from "pino";
import type { ExporterConfig } from "../config/config.js";
import { METRICS } from "../catalog/metrics.js";
import type { HorizonClient, RawRecords } from "../client/horizon-client.js";
import { ledgerPagingToken, ledgerSchema, type Ledger } from "../client/schemas.js";
import { Poll, type HorizonJobParts, type JobTiming, type PollContext, type PollJob } from "../job/job.js";
import { startsNewChain, type NetworkView } from "../job/network.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import {
  countPage,
  PAGE_LIMIT,
  rawPagingToken,
  readAfterCursor,
  refusedCursor,
  uint64Place,
  validRecord,
  type CursorFeed,
  type CursorState,
} from "../client/paging.js";
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

/** A ledger paging token's place if it can be the cursor: its record's sequence shifted left 32 bits, valid record
 * or not. Another (`abc`, `..%2F`, a number past the ledgers) would poison the cursor: later pages refused or empty. */
function ledgerPlace(token: string, raw?: unknown): bigint | undefined {
  const place = uint64Place(token);
  if (raw === undefined || place === undefined) return place;
  const sequence = (raw as Record<string, unknown>).sequence;
  const whole = typeof sequence === "number" && Number.isSafeInteger(sequence) && sequence >= 0;
  return whole && place === ledgerPagingToken(sequence) ? place : undefined;
}

/** A page in ascending ledger order: counting raises the highest sequence counted, so a ledger served after a later one
 * would be dropped. A page with an unusable token stays as served: that record's place among the others is unknown. */
function ascending(records: RawRecords): RawRecords {
  const placed = records.map((raw) => [ledgerPlace(rawPagingToken(raw) ?? "", raw), raw] as const);
  if (placed.some(([place]) => place === undefined)) return records;
  return placed.sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)).map(([, raw]) => raw);
}

/** Ledgers whose hashes are kept, about an hour and a half of them: a step back to one tells the chain for sure. */
const RECENT_HASHES = 1_000;

/** What tells a record with an unusable token served again (after a refused cursor, say) from another: the sequence
 * and hash it still carries; undefined when it carries neither (or is no object: null, say), and each is counted. */
function unusableIdentity(raw: unknown): string | undefined {
  const { sequence, hash } = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const place = typeof sequence === "number" && Number.isSafeInteger(sequence) ? sequence : undefined;
  const id = typeof hash === "string" && hash.length <= 128 ? hash : undefined;
  return place === undefined && id === undefined ? undefined : `${place}/${id}`;
}

/** Reads every ledger once, ascending from Horizon's paging cursor, which moves by raw records (invalid ones too): a
 * gap is counted as skipped, never guessed at. */
export class LedgersCollector extends Poll implements PollJob {
  readonly source = "ledgers";
  private readonly totals = new LedgerTotals();
  /** The paging token of the last record read, valid or not; undefined before the first poll. */
  private at: CursorState = {};
  /** The last valid ledger: the state the gauges show and the hash chain continues from. */
  private latest: Ledger | undefined;
  /** The network passphrase the root poll had learnt when `latest` was read, if any. */
  private latestPassphrase: string | undefined;
  /** Invalid records read since `latest`, already counted as skipped. */
  private invalidSinceLatest = 0;
  /** The highest sequence counted on this chain, valid or not: a Horizon a little behind, met after a refused cursor,
   * serves some again. */
  private countedThrough = -1;
  /** Records with an unusable token counted on this chain, the last `RECENT_HASHES` by `unusableIdentity`: the cursor
   * cannot place them, so a backfill read after a refused cursor would count them again. */
  private readonly unusableSeen = new Set<string>();
  /** The hashes of the last ledgers read, by sequence, oldest first: a chain has one hash per sequence. */
  private readonly recentHashes = new Map<number, string>();

  constructor(
    private readonly client: HorizonClient,
    /** `maxPagesPerPoll`: past it a poll skips ahead, counting the gap; `backfill`: ledgers read before the first. */
    private readonly options: ExporterConfig["ledgers"],
    private readonly log: Logger,
    /** Learns each ledger read: its hash, the latest sequence and base reserve. */
    private readonly network: NetworkView | undefined,
    timing: JobTiming,
  ) {
    super(timing);
  }

  async run(context: PollContext): Promise<void> {
    if (this.at.cursor === undefined) return this.startFromLatest(context);
    const end = await readAfterCursor(this.at, context, this.feed(context));
    if (end === "gone") return this.resynchroniseRefusedCursor(context);
    if (end === "idle") return this.checkForReset(context);
    if (end === "capped") return this.skipAhead(context);
  }

  samples(): CollectorSamples<Sample> {
    return ledgerSamples(this.totals, this.latest);
  }

  /** Ledgers after the cursor, each read once; a page Horizon refuses the cursor of (400) is undefined. */
  private feed(context: PollContext): CursorFeed {
    return {
      endpoint: "ledgers",
      maxPages: this.options.maxPagesPerPoll,
      page: async (cursor) => {
        const records = await this.client
          .ledgers({ order: "asc", limit: PAGE_LIMIT, cursor }, context.signal)
          .catch((error: unknown) => {
            if (refusedCursor(error)) return undefined;
            throw error;
          });
        context.progressed();
        return records && ascending(records);
      },
      place: ledgerPlace,
      count: (raw, usable) => {
        // A usable token is its record's sequence (ledgerPlace); a record counted before is not counted, nor invalid.
        const sequence = usable ? (raw as { sequence: number }).sequence : undefined;
        if (sequence !== undefined && sequence <= this.countedThrough) return true;
        if (sequence !== undefined) this.countedThrough = sequence;
        else if (!this.firstCount(raw)) return true;
        const ledger = usable ? validRecord(ledgerSchema, raw) : undefined;
        if (ledger !== undefined) this.read(ledger);
        else {
          this.totals.skipped += 1;
          this.invalidSinceLatest += 1;
        }
        return ledger !== undefined;
      },
    };
  }

  /** Whether a record with an unusable token is met for the first time on this chain, noting it. */
  private firstCount(raw: unknown): boolean {
    const identity = unusableIdentity(raw);
    if (identity === undefined) return true;
    if (this.unusableSeen.has(identity)) return false;
    this.unusableSeen.add(identity);
    if (this.unusableSeen.size > RECENT_HASHES) this.unusableSeen.delete(this.unusableSeen.values().next().value!);
    return true;
  }

  /** A cursor Horizon refuses would be refused at every poll: it is dropped and reading restarts from the latest. */
  private async resynchroniseRefusedCursor(context: PollContext): Promise<void> {
    this.totals.resyncs += 1;
    const { cursor } = this.at;
    this.log.warn({ cursor }, "Horizon refused the ledger cursor; resynchronising from the latest ledger");
    this.at = {};
    await this.startFromLatest(context);
  }

  /** The newest ledgers, `backfill` of them before the newest: a page that cannot give a cursor fails (`paging`). */
  private async startFromLatest(context: PollContext): Promise<void> {
    const records = await this.client.ledgers({ order: "desc", limit: this.options.backfill + 1 }, context.signal);
    const newest = validRecord(ledgerSchema, records[0]);
    // A new chain, found after a refused cursor rather than by paging finding nothing newer.
    if (newest !== undefined) this.restartIfNewChain(newest);
    // Ascending, as pages are read; any ledger at all must give the cursor, or every later poll has none.
    countPage(this.at, ascending([...records].reverse()), context, this.feed(context), {
      mustMove: records.length > 0,
    });
  }

  /** Nothing newer means caught up, or a new chain below our cursor; a Horizon a little behind is waited for. */
  private async checkForReset(context: PollContext): Promise<void> {
    const [raw] = await this.client.ledgers({ order: "desc", limit: 1 }, context.signal);
    // An invalid newest ledger was counted when paging reached it; it cannot tell a reset.
    const newest = validRecord(ledgerSchema, raw);
    if (newest === undefined || !this.restartIfNewChain(newest)) return;
    this.totals.resyncs += 1;
    this.read(newest);
    this.countedThrough = newest.sequence;
    this.at = { cursor: newest.paging_token };
  }

  /** Whether `newest` starts a new chain; if so, forgets the old one and tells the network, so what is read next starts
   * from it. A ledger read before at its sequence tells for sure, however young the old chain; else the half rule. */
  private restartIfNewChain(newest: Ledger): boolean {
    const from = this.latest?.sequence;
    if (from === undefined) return false;
    const known = this.recentHashes.get(newest.sequence);
    const same = known === undefined ? !startsNewChain(newest.sequence, from) : known === newest.hash;
    if (same && !this.otherNetwork()) return false;
    this.log.warn({ from, to: newest.sequence }, "Horizon is on another chain (network reset?); resynchronising");
    this.network?.chainChanged();
    this.latest = undefined;
    this.latestPassphrase = undefined;
    this.invalidSinceLatest = 0;
    this.countedThrough = -1;
    this.unusableSeen.clear();
    this.recentHashes.clear();
    return true;
  }

  /** Whether the root poll learnt another passphrase since `latest` was read: no hash links ledgers across a gap, and
   * another network's may lie anywhere beyond it. */
  private otherNetwork(): boolean {
    const now = this.network?.current.passphrase;
    return now !== undefined && this.latestPassphrase !== undefined && now !== this.latestPassphrase;
  }

  /** The page cap was hit: jump to the latest ledger and count what lies between as skipped. */
  private async skipAhead(context: PollContext): Promise<void> {
    const records = await this.client.ledgers({ order: "desc", limit: 1 }, context.signal);
    const newest = validRecord(ledgerSchema, records[0]);
    const from = this.latest?.sequence;
    if (newest !== undefined && from !== undefined && newest.sequence <= from) return;
    if (!countPage(this.at, records, context, this.feed(context))) return;
    this.log.warn(
      { from, to: newest?.sequence, maxPagesPerPoll: this.options.maxPagesPerPoll },
      "ledger catch-up hit its page cap; skipping ahead",
    );
  }

  private read(ledger: Ledger): void {
    const previous = this.latest;
    if (previous !== undefined && ledger.sequence <= previous.sequence) return;
    const consecutive = previous !== undefined && ledger.sequence === previous.sequence + 1;
    const otherNetwork = this.otherNetwork();
    if (otherNetwork || (consecutive && ledger.prev_hash !== previous.hash)) {
      this.totals.resyncs += 1;
      // Another chain: one that restarted and has grown past the ledgers read, say, or another network.
      this.network?.chainChanged();
      this.recentHashes.clear();
      const why = otherNetwork ? "network passphrase changed" : "ledger hash chain broken (network reset?)";
      this.log.warn({ sequence: ledger.sequence }, `${why}; counted as a resync, reading on from this ledger`);
    } else if (consecutive) {
      const intervalSeconds = (Date.parse(ledger.closed_at) - Date.parse(previous.closed_at)) / 1000;
      if (intervalSeconds >= 0) this.totals.closeIntervals.observe(intervalSeconds);
    } else if (previous !== undefined) {
      // Invalid records in the gap were counted as skipped when they were read.
      this.totals.skipped += Math.max(0, ledger.sequence - previous.sequence - 1 - this.invalidSinceLatest);
      // No hash links the ledgers across a gap: those kept before it may be another chain's.
      this.recentHashes.clear();
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
    this.latestPassphrase = this.network?.current.passphrase;
    this.recentHashes.set(ledger.sequence, ledger.hash);
    if (this.recentHashes.size > RECENT_HASHES) this.recentHashes.delete(this.recentHashes.keys().next().value!);
    this.network?.ledgerHash(ledger.sequence, ledger.hash);
    this.network?.learn({ baseReserveStroops: ledger.base_reserve_in_stroops });
  }
}

export function ledgersJob({ client, config, target, log, network }: HorizonJobParts): LedgersCollector {
  const timing = { schedule: target.schedules.ledgers, requestsPerRun: requestsPerPoll("ledgers", target, config) };
  return new LedgersCollector(client, config.ledgers, log.child({ endpoint: "ledgers" }), network, timing);
}
