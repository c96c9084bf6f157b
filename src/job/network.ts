/** A ledger with its close time, as a job read both. */
export interface LedgerClose {
  readonly sequence: number;
  /** Unix seconds. */
  readonly closeTime: number;
}

/** What one target's jobs learn about its network and share, so no job reaches into another. Kind-neutral: a Horizon
 * learns the passphrase from its root, a Stellar RPC from getNetwork. */
interface NetworkFacts {
  readonly passphrase?: string;
  /** The highest ledger sequence any job has seen. */
  readonly latestLedger?: number;
  /** Base reserve and base fee of the latest ledger read, in stroops. */
  readonly baseReserveStroops?: number;
  readonly baseFeeStroops?: number;
  /** The 90th percentile of recent inclusion fees, in stroops. */
  readonly feeP90Stroops?: number;
  readonly latestLedgerClose?: LedgerClose;
  readonly protocolVersion?: number;
}

/** Told what a target's jobs learn, for views across targets (the agreement check), which never ask for more. */
export interface NetworkObserver {
  learnt(facts: NetworkFacts): void;
  ledgerHash(sequence: number, hash: string): void;
}

export class NetworkView {
  private facts: NetworkFacts = {};

  constructor(private readonly observer?: NetworkObserver) {}

  get current(): NetworkFacts {
    return this.facts;
  }

  /** Notes what a run learnt; facts it does not name stay as they were. */
  learn(facts: NetworkFacts): void {
    const named = Object.entries(facts).filter(([, value]) => value !== undefined);
    this.facts = { ...this.facts, ...Object.fromEntries(named) };
    this.observer?.learnt(facts);
  }

  /** Notes a closed ledger's hash for the observer, and that it is the latest. */
  ledgerHash(sequence: number, hash: string): void {
    this.observer?.ledgerHash(sequence, hash);
    this.learn({ latestLedger: sequence });
  }
}
