import type { LedgerClose } from "../job/network.js";

/** A Soroban entry's state from what getLedgerEntries returned (docs/configuration.md): some RPCs send a 0 live-until
 * for live entries (stellar-rpc#990), so one this exporter saw live past the latest ledger is unknown, not archived. */
type EntryState =
  | { readonly kind: "missing" }
  | { readonly kind: "live"; readonly liveUntilLedger: number; readonly ttlLedgers: number }
  | { readonly kind: "archived" }
  | Unknown;
type Unknown = { readonly kind: "unknown"; readonly lastKnownLiveUntil: number };

/** What getLedgerEntries said of one entry: its live-until and the response's latest ledger. */
export interface ReturnedEntry {
  readonly liveUntilLedgerSeq?: number | undefined;
  readonly latestLedger: number;
}

/** Judges entries poll after poll, by ledger key; `About` is what the warning says of an entry. */
export class ArchivalJudge<About> {
  private readonly lastLiveUntil = new Map<string, number>();
  private readonly warned = new Set<string>();
  /** The entries judged since forgetUnjudged last ran. */
  private readonly judged = new Set<string>();

  /** `warn` is called once per entry, the first time its state is unknown. */
  constructor(private readonly warn: (about: About, state: Unknown, latestLedger: number) => void) {}

  judge(entry: string, returned: ReturnedEntry | undefined, about: About): EntryState {
    this.judged.add(entry);
    if (returned === undefined) {
      // Deleted or never created: a later entry under the key is a new one.
      this.lastLiveUntil.delete(entry);
      this.warned.delete(entry);
      return { kind: "missing" };
    }
    const { liveUntilLedgerSeq: liveUntil, latestLedger } = returned;
    if (liveUntil !== undefined && liveUntil !== 0 && liveUntil >= latestLedger) {
      this.lastLiveUntil.set(entry, liveUntil);
      return { kind: "live", liveUntilLedger: liveUntil, ttlLedgers: liveUntil - latestLedger };
    }
    const lastKnown = this.lastLiveUntil.get(entry);
    // A contract entry always has a TTL; one sent without it is as uncertain as a 0 we saw live.
    if ((lastKnown !== undefined && lastKnown >= latestLedger) || liveUntil === undefined) {
      const state = { kind: "unknown" as const, lastKnownLiveUntil: lastKnown ?? 0 };
      if (!this.warned.has(entry)) {
        this.warned.add(entry);
        this.warn(about, state, latestLedger);
      }
      return state;
    }
    return { kind: "archived" };
  }

  /** Forgets every entry not judged since the last call: a key no longer watched comes back as a new entry. */
  forgetUnjudged(): void {
    for (const entry of this.lastLiveUntil.keys()) if (!this.judged.has(entry)) this.lastLiveUntil.delete(entry);
    for (const entry of this.warned) if (!this.judged.has(entry)) this.warned.delete(entry);
    this.judged.clear();
  }
}

/** Until a target has shown two ledgers, Stellar's nominal close interval. */
export const DEFAULT_CLOSE_INTERVAL_SECONDS = 5;
const WINDOW_SECONDS = 3_600;

/** The mean ledger close interval a target showed over the last hour, or since the last ledger seen before it: what
 * turns a TTL in ledgers into a date. */
export class LedgerCloseWindow {
  private points: LedgerClose[] = [];

  observe(close: LedgerClose): void {
    const newest = this.points.at(-1);
    if (close.sequence === newest?.sequence) return;
    // The sequence went backwards: a network reset; the old chain's times say nothing of the new.
    if (newest !== undefined && close.sequence < newest.sequence) this.points = [];
    this.points.push(close);
    // The newest ledger at or before the hour's start stays: a poll seeing one ledger an hour or less often (a
    // contracts schedule of 1h) still has two, and its mean spans that time rather than falling back to 5 s.
    const start = close.closeTime - WINDOW_SECONDS;
    while (this.points.length > 2 && this.points[1]!.closeTime <= start) this.points.shift();
  }

  /** Seconds per ledger between the oldest and newest ledger kept. */
  meanIntervalSeconds(): number {
    const oldest = this.points[0];
    const newest = this.points.at(-1);
    if (oldest === undefined || newest === undefined || newest.sequence === oldest.sequence)
      return DEFAULT_CLOSE_INTERVAL_SECONDS;
    return (newest.closeTime - oldest.closeTime) / (newest.sequence - oldest.sequence);
  }
}
