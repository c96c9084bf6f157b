import type { LedgerClose } from "../collectors/ledger-close-window.js";

/**
 * What one target's jobs learn about its network and share: each job notes what its answers
 * told, and any job reads it, so no job reaches into another. Kind-neutral: a Horizon learns the
 * passphrase from its root, a Stellar RPC from getNetwork.
 */
export interface NetworkFacts {
  readonly passphrase?: string;
  /** The highest ledger sequence any job has seen. */
  readonly latestLedger?: number;
  /** Base reserve of the latest ledger read, in stroops. */
  readonly baseReserveStroops?: number;
  /** Base fee of the latest ledger, in stroops. */
  readonly baseFeeStroops?: number;
  /** The 90th percentile of recent inclusion fees, in stroops. */
  readonly feeP90Stroops?: number;
  /** The latest ledger with its close time (Unix seconds), when a job read both. */
  readonly latestLedgerClose?: LedgerClose;
  /** The protocol version the target reports its network running. */
  readonly protocolVersion?: number;
}

/**
 * Told what a target's jobs learn, for views across targets (the agreement check compares the
 * targets of a network): they see the facts as the jobs note them, and never ask for more.
 */
export interface NetworkObserver {
  learnt(facts: NetworkFacts): void;
  ledgerHash(sequence: number, hash: string): void;
}

/** Ledger hashes kept per target: enough for a cross-target check to find a common ledger. */
export const RECENT_LEDGER_HASHES = 64;

export class NetworkView {
  private facts: NetworkFacts = {};

  constructor(private readonly observer?: NetworkObserver) {}

  private readonly hashes = new Map<number, string>();
  private newestHashed = 0;

  get current(): NetworkFacts {
    return this.facts;
  }

  /** Notes what a run learnt; facts it does not name stay as they were. */
  learn(facts: NetworkFacts): void {
    const next: Record<string, unknown> = { ...this.facts };
    for (const [name, value] of Object.entries(facts)) if (value !== undefined) next[name] = value;
    this.facts = next as NetworkFacts;
    this.observer?.learnt(facts);
  }

  /**
   * Notes a closed ledger's hash, and that it is the latest. The oldest leave past
   * RECENT_LEDGER_HASHES; a sequence below the newest known means the network was reset, and
   * the hashes of the old chain leave with it.
   */
  ledgerHash(sequence: number, hash: string): void {
    if (sequence < this.newestHashed) this.hashes.clear();
    this.newestHashed = sequence;
    this.hashes.set(sequence, hash);
    this.observer?.ledgerHash(sequence, hash);
    this.learn({ latestLedger: sequence });
    if (this.hashes.size > RECENT_LEDGER_HASHES) this.hashes.delete(Math.min(...this.hashes.keys()));
  }

  /** The hashes of the most recent ledgers seen, by sequence. */
  get recentLedgerHashes(): ReadonlyMap<number, string> {
    return this.hashes;
  }
}
