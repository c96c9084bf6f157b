/** A ledger with its close time, as a job read both. */
export interface LedgerClose {
  readonly sequence: number;
  /** Unix seconds. */
  readonly closeTime: number;
}

/** What one target's jobs learn about its network and share, so no job reaches into another. */
interface NetworkFacts {
  readonly passphrase?: string;
  /** The ledger sequence a job learnt last: a lagging node's answer may lower it, as a new chain's must. */
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

/** Whether a ledger read at `sequence` after one at `before` is a new chain. A new chain starts again near genesis; a
 * lagging or restored Horizon is the same chain somewhat behind, its cursors still good: half tells the two apart. */
export function startsNewChain(sequence: number, before: number): boolean {
  return sequence < before / 2;
}

export class NetworkView {
  private facts: NetworkFacts = {};
  /** How often the chain changed (a testnet reset, say): what the jobs that read from cursors watch. */
  private restartCount = 0;
  /** The highest ledger read from the chain itself since it last restarted: lagging answers cannot step it down. */
  private highestRead: number | undefined;

  constructor(private readonly observer?: NetworkObserver) {}

  get current(): NetworkFacts {
    return this.facts;
  }

  get restarts(): number {
    return this.restartCount;
  }

  /** Notes what a run learnt; facts it does not name stay as they were. */
  learn(facts: NetworkFacts): void {
    const named = Object.entries(facts).filter(([, value]) => value !== undefined);
    this.facts = { ...this.facts, ...Object.fromEntries(named) };
    this.observer?.learnt(facts);
  }

  /** Notes a ledger read from the chain (by the ledgers poll, or where none runs, the accounts poll): one below half
   * the highest read is a new chain, and the jobs that read from cursors start over. */
  ledgerRead(sequence: number): void {
    if (this.highestRead !== undefined && startsNewChain(sequence, this.highestRead)) this.chainChanged();
    this.highestRead = Math.max(this.highestRead ?? sequence, sequence);
  }

  /** Notes that the chain changed (a hash chain broken, say): cursor jobs start over, and the new chain's highest is
   * what is read next, so reading a reset's older ledgers first does not tell it again. */
  chainChanged(): void {
    this.restartCount += 1;
    this.highestRead = undefined;
  }

  /** Notes a closed ledger's hash for the observer, and that it is the latest. */
  ledgerHash(sequence: number, hash: string): void {
    this.observer?.ledgerHash(sequence, hash);
    this.ledgerRead(sequence);
    this.learn({ latestLedger: sequence });
  }
}

/** Tells a job that reads from cursors when the network restarted since it last asked: its cursors point past every
 * record of the new chain, so nothing would ever count again; it starts each over after the newest record. */
export class RestartWatch {
  private seen: number;

  constructor(private readonly network: NetworkView | undefined) {
    this.seen = network?.restarts ?? 0;
  }

  /** True once after each restart. */
  restarted(): boolean {
    const seen = this.seen;
    this.seen = this.network?.restarts ?? 0;
    return this.seen !== seen;
  }
}
