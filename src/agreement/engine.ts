// Every (sequence, hash) a target showed, compared with what the other targets of its network showed for that
// sequence: a pure view over facts the polls read, with no request and no clock.
import type { TargetLabel } from "../catalog/metrics.js";

/** A Horizon and a Stellar RPC may share a name: a target is its kind and its name. */
export type TargetId = { readonly kind: TargetLabel; readonly target: string };

/** The hash in hex, as Horizon's `hash` and Stellar RPC's `id` give it. */
export type ShownLedger = { readonly sequence: number; readonly hash: string };

export interface TargetAgreement extends TargetId {
  readonly network: string;
  /** Sequences at which this target's hash was compared with another target's, and judged wrong. */
  readonly comparisons: number;
  readonly disagreements: number;
  readonly lastDisagreement: number | undefined;
  /** Whether a sequence in this target's own window (its last `sequencesKept` up to the one it reached) was judged
   * wrong: another target stalled or far ahead neither holds the flag up nor drops it. */
  readonly disagreeing: boolean;
  /** The network's highest protocol minus this target's; undefined until it reports one. */
  readonly protocolBehind: number | undefined;
}

interface TargetState {
  readonly id: TargetId;
  readonly key: string;
  network: string | undefined;
  /** The sequence this target showed last: the place it has reached. */
  latest: number | undefined;
  protocol: number | undefined;
  comparisons: number;
  disagreements: number;
  lastDisagreement: number | undefined;
}

/** What the targets of a network showed for one sequence, and what has been counted for it. */
interface SequenceRecord {
  readonly sequence: number;
  readonly hashes: Map<string, string>;
  /** Targets whose comparison, and disagreement, at this sequence is counted: each once. */
  readonly compared: Set<string>;
  readonly blamed: Set<string>;
}

interface NetworkState {
  readonly members: Set<string>;
  /** By sequence: the network's window, each target's last `sequencesKept` sequences up to the one it reached. */
  readonly sequences: Map<number, SequenceRecord>;
  readonly unjudged: Set<SequenceRecord>;
}

/** What a target starts with on a network, and again when it moves to another. */
const FRESH = { network: undefined, latest: undefined, comparisons: 0, disagreements: 0, lastDisagreement: undefined };

const keyOf = ({ kind, target }: TargetId): string => `${kind}\u0000${target}`;

/** The majority rule: the hash a strict majority of the targets that showed the sequence agree on is right, the others
 * are blamed; an even split blames nobody, except on a network of two, where there is no majority to ask: both. */
function wrongTargets(hashes: ReadonlyMap<string, string>, networkTargets: number): string[] {
  const votes = new Map<string, number>();
  for (const hash of hashes.values()) votes.set(hash, (votes.get(hash) ?? 0) + 1);
  if (votes.size < 2) return [];
  const majority = [...votes].find(([, count]) => count * 2 > hashes.size)?.[0];
  if (majority !== undefined) return [...hashes].filter(([, hash]) => hash !== majority).map(([key]) => key);
  return networkTargets === 2 ? [...hashes.keys()] : [];
}

export class AgreementEngine {
  /** Sequences kept per target of a network, the last up to the one it reached. */
  private readonly sequencesKept: number;
  /** A sequence is judged once every target of its network showed it or a later one, or once it is this many ledgers
   * behind the newest any target whose window holds it showed, so a stalled target does not hold judgement back (nor
   * one far ahead rush it, judging on the first hashes shown). */
  private readonly patienceLedgers: number;
  private readonly targets = new Map<string, TargetState>();
  private readonly networks = new Map<string, NetworkState>();

  /** The patience is three minutes at mainnet's pace. */
  constructor({ sequencesKept = 1000, patienceLedgers = 30 } = {}) {
    this.sequencesKept = sequencesKept;
    this.patienceLedgers = patienceLedgers;
  }

  /** The network a target serves; one moving to another starts there afresh, its counters (by network) restart. */
  network(id: TargetId, network: string): void {
    const key = keyOf(id);
    let state = this.targets.get(key);
    if (state === undefined)
      this.targets.set(key, (state = { id: { kind: id.kind, target: id.target }, key, protocol: undefined, ...FRESH }));
    if (state.network === network) return;
    this.leave(state);
    state.network = network;
    let joined = this.networks.get(network);
    if (joined === undefined)
      this.networks.set(network, (joined = { members: new Set(), sequences: new Map(), unjudged: new Set() }));
    joined.members.add(state.key);
  }

  /** Ledgers a target showed, in order; those shown before its network is known cannot be placed or compared. */
  ledgers(id: TargetId, ledgers: Iterable<ShownLedger>): void {
    const state = this.targets.get(keyOf(id));
    const network = state?.network === undefined ? undefined : this.networks.get(state.network);
    if (state === undefined || network === undefined) return;
    for (const { sequence, hash } of ledgers) {
      state.latest = sequence;
      const record = this.recordOf(network, sequence);
      if (record === undefined || record.hashes.get(state.key) === hash) continue;
      record.hashes.set(state.key, hash);
      // A target showing a sequence already judged is judged on its own against what is known.
      if (!network.unjudged.has(record)) this.judge(record, network);
    }
    this.settle(network);
  }

  protocol(id: TargetId, version: number): void {
    const state = this.targets.get(keyOf(id));
    if (state !== undefined) state.protocol = version;
  }

  remove(id: TargetId): void {
    const state = this.targets.get(keyOf(id));
    if (state === undefined) return;
    this.leave(state);
    this.targets.delete(state.key);
  }

  /** Every target whose network is known, with its counts. */
  standings(): TargetAgreement[] {
    const highest = new Map<string, number>();
    for (const { network, protocol } of this.targets.values())
      if (network !== undefined && protocol !== undefined)
        highest.set(network, Math.max(highest.get(network) ?? protocol, protocol));
    return [...this.targets.values()].flatMap((state) => {
      const { id, network, latest, protocol, comparisons, disagreements, lastDisagreement } = state;
      if (network === undefined) return [];
      const disagreeing =
        lastDisagreement !== undefined && latest !== undefined && this.holds(latest, lastDisagreement);
      const protocolBehind = protocol === undefined ? undefined : highest.get(network)! - protocol;
      return [{ ...id, network, comparisons, disagreements, lastDisagreement, disagreeing, protocolBehind }];
    });
  }

  networkSizes(): Map<string, number> {
    return new Map([...this.networks].map(([name, network]) => [name, network.members.size]));
  }

  /** Takes a target off its network, with every hash it showed there; its counters restart. */
  private leave(state: TargetState): void {
    const name = state.network;
    const network = name === undefined ? undefined : this.networks.get(name);
    Object.assign(state, FRESH);
    if (name === undefined || network === undefined) return;
    network.members.delete(state.key);
    for (const record of network.sequences.values()) {
      record.hashes.delete(state.key);
      record.compared.delete(state.key);
      record.blamed.delete(state.key);
    }
    if (network.members.size === 0) this.networks.delete(name);
    else this.settle(network);
  }

  /** The sequence each of the network's targets has reached; the newest is the top of its window. */
  private reached(network: NetworkState): number[] {
    return [...network.members].map((key) => this.targets.get(key)?.latest ?? -Infinity);
  }

  /** Whether a sequence is in the window of a target that reached `latest`: among its last `sequencesKept`. */
  private holds(latest: number, sequence: number): boolean {
    return sequence <= latest && sequence > latest - this.sequencesKept;
  }

  /** Whether a sequence is in the network's window: some target's own, so one claiming a ledger far ahead (hostile,
   * or broken) cannot push the others' out. */
  private inWindow(reached: number[], sequence: number): boolean {
    return reached.some((latest) => this.holds(latest, sequence));
  }

  /** The sequence's record; undefined for a sequence outside the network's window, too old to compare. */
  private recordOf(network: NetworkState, sequence: number): SequenceRecord | undefined {
    let record = network.sequences.get(sequence);
    if (record !== undefined) return record;
    if (!this.inWindow(this.reached(network), sequence)) return undefined;
    record = { sequence, hashes: new Map(), compared: new Set(), blamed: new Set() };
    network.sequences.set(sequence, record);
    network.unjudged.add(record);
    return record;
  }

  /** Judges the sequences no target will show any more or that waited long enough; drops those outside the window (too
   * far below what the targets reached, or above it once all went back: a reset), judging first any still unjudged. */
  private settle(network: NetworkState): void {
    const reached = this.reached(network);
    const reachedByAll = Math.min(...reached);
    const newestAround = (sequence: number) => Math.max(...reached.filter((latest) => this.holds(latest, sequence)));
    for (const record of network.sequences.values()) {
      if (this.inWindow(reached, record.sequence)) continue;
      network.sequences.delete(record.sequence);
      if (network.unjudged.delete(record)) this.judge(record, network);
    }
    for (const record of network.unjudged) {
      if (record.sequence > reachedByAll && newestAround(record.sequence) - record.sequence < this.patienceLedgers)
        continue;
      network.unjudged.delete(record);
      this.judge(record, network);
    }
  }

  private judge(record: SequenceRecord, network: NetworkState): void {
    if (record.hashes.size < 2) return;
    for (const key of record.hashes.keys()) {
      if (!record.compared.has(key)) this.targets.get(key)!.comparisons += 1;
      record.compared.add(key);
    }
    for (const key of wrongTargets(record.hashes, network.members.size)) {
      if (record.blamed.has(key)) continue;
      record.blamed.add(key);
      const state = this.targets.get(key)!;
      state.disagreements += 1;
      state.lastDisagreement = record.sequence;
    }
  }
}
