import type { LedgerClose } from "../job/network.js";

/** Until a target has shown two ledgers, Stellar's nominal close interval. */
export const DEFAULT_CLOSE_INTERVAL_SECONDS = 5;
const WINDOW_SECONDS = 3_600;

/**
 * The mean ledger close interval a target showed over the last hour, from the (sequence, close time) pairs of its
 * latest ledger as its polls saw them: what turns a TTL in ledgers into a date.
 */
export class LedgerCloseWindow {
  private points: LedgerClose[] = [];

  observe(close: LedgerClose): void {
    const newest = this.points.at(-1);
    if (newest !== undefined && close.sequence <= newest.sequence) {
      if (close.sequence === newest.sequence) return;
      // The sequence went backwards: a network reset; the old chain's times say nothing of the new.
      this.points = [];
    }
    this.points.push(close);
    while (this.points.length > 1 && this.points[0]!.closeTime < close.closeTime - WINDOW_SECONDS) this.points.shift();
  }

  /** Seconds per ledger between the oldest and newest ledger seen within the hour. */
  meanIntervalSeconds(): number {
    const oldest = this.points[0];
    const newest = this.points.at(-1);
    if (oldest === undefined || newest === undefined || newest.sequence === oldest.sequence)
      return DEFAULT_CLOSE_INTERVAL_SECONDS;
    return (newest.closeTime - oldest.closeTime) / (newest.sequence - oldest.sequence);
  }
}
