import { AGREEMENT_METRICS } from "../catalog/metrics.js";
import type { OwnRegistry } from "../exposition/self-metrics.js";
import type { NetworkObserver } from "../job/network.js";
import { AgreementEngine, type ShownLedger, type TargetAgreement, type TargetId } from "./engine.js";
import { networkOf } from "./network.js";

/** The engine fed with the facts the targets' polls read, its standings set as the agreement series at every change. */
export class NetworkAgreement {
  private readonly engine = new AgreementEngine();
  private readonly targets;
  private readonly comparisons;
  private readonly disagreements;
  private readonly protocolBehind;
  /** The engine's standing at the last publication, per series, to add only what its counts rose by. */
  private readonly published = new Map<string, TargetAgreement>();

  constructor(registry: OwnRegistry) {
    this.targets = registry.gauge(AGREEMENT_METRICS.networkTargets);
    this.comparisons = registry.counter(AGREEMENT_METRICS.ledgerHashComparisons);
    this.disagreements = registry.counter(AGREEMENT_METRICS.ledgerHashDisagreements);
    this.protocolBehind = registry.gauge(AGREEMENT_METRICS.protocolBehind);
  }

  /** The network passphrase a target reported (Horizon's root, Stellar RPC's getNetwork). */
  passphrase(id: TargetId, passphrase: string): void {
    this.engine.network(id, networkOf(passphrase));
    this.publish();
  }

  /** Ledgers a target showed, in order: Horizon's ledger records, an RPC's latest ledger. */
  ledgers(id: TargetId, ledgers: Iterable<ShownLedger>): void {
    this.engine.ledgers(id, ledgers);
    this.publish();
  }

  protocol(id: TargetId, version: number): void {
    this.engine.protocol(id, version);
    this.publish();
  }

  /** A target removed from the configuration: its series leave with it. */
  remove(id: TargetId): void {
    for (const [key, { network, kind, target }] of this.published) {
      if (kind !== id.kind || target !== id.target) continue;
      this.comparisons.remove({ network, kind, target });
      this.disagreements.remove({ network, kind, target });
      this.published.delete(key);
    }
    this.engine.remove(id);
    this.publish();
  }

  /** Reads what one target's network view learns: its passphrase, protocol and ledger hashes. */
  observerFor(id: TargetId): NetworkObserver {
    return {
      learnt: ({ passphrase, protocolVersion }) => {
        if (passphrase !== undefined) this.passphrase(id, passphrase);
        if (protocolVersion !== undefined) this.protocol(id, protocolVersion);
      },
      ledgerHash: (sequence, hash) => this.ledgers(id, [{ sequence, hash }]),
    };
  }

  /** A target's standing, once its network is known. */
  standing(id: TargetId): TargetAgreement | undefined {
    return this.engine.standings().find((entry) => entry.kind === id.kind && entry.target === id.target);
  }

  private publish(): void {
    for (const metric of [this.targets, this.protocolBehind]) metric.reset();
    for (const [network, count] of this.engine.networkSizes()) this.targets.set({ network }, count);
    for (const standing of this.engine.standings()) {
      const labels = { network: standing.network, kind: standing.kind, target: standing.target };
      const key = JSON.stringify(labels);
      const last = this.published.get(key);
      // The engine restarts a target's counts when it moves it; counters only rise, so a lower count is all new.
      this.comparisons.inc(labels, risenBy(last?.comparisons ?? 0, standing.comparisons));
      this.disagreements.inc(labels, risenBy(last?.disagreements ?? 0, standing.disagreements));
      // Re-inserted: the map stays in the order each series was last current.
      this.published.delete(key);
      this.published.set(key, standing);
      this.forgetOldNetworks(standing);
      if (standing.protocolBehind !== undefined) this.protocolBehind.set(labels, standing.protocolBehind);
    }
  }

  /** A target keeps the series of the network it serves and of the one it served last: one flapping between two (a
   * misrouted balancer) keeps its counters rising; one naming ever new passphrases cannot grow /metrics. */
  private forgetOldNetworks({ kind, target, network: current }: TargetAgreement): void {
    const left = [...this.published].filter(([, old]) => old.kind === kind && old.target === target);
    for (const [key, { network }] of left.filter(([, old]) => old.network !== current).slice(0, -1)) {
      this.comparisons.remove({ network, kind, target });
      this.disagreements.remove({ network, kind, target });
      this.published.delete(key);
    }
  }
}

const risenBy = (last: number, now: number): number => (now >= last ? now - last : now);
