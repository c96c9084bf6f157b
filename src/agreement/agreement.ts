import { AGREEMENT_METRICS } from "../catalog/metrics.js";
import type { OwnRegistry } from "../exposition/self-metrics.js";
import type { NetworkObserver } from "../job/network.js";
import {
  AgreementEngine,
  type AgreementOptions,
  type ShownLedger,
  type TargetAgreement,
  type TargetId,
} from "./engine.js";
import { networkOf } from "./network.js";

/**
 * The engine fed with the facts the targets' polls read, and its standings as the agreement
 * series, set again after every change: a few series per target, rendered when scraped.
 */
export class NetworkAgreement {
  private readonly engine: AgreementEngine;
  private readonly targets;
  private readonly comparisons;
  private readonly disagreements;
  private readonly protocolBehind;

  constructor(registry: OwnRegistry, options: AgreementOptions = {}) {
    this.engine = new AgreementEngine(options);
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

  /** The protocol version a target reports its network running. */
  protocol(id: TargetId, version: number): void {
    this.engine.protocol(id, version);
    this.publish();
  }

  remove(id: TargetId): void {
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
    for (const metric of [this.targets, this.comparisons, this.disagreements, this.protocolBehind]) metric.reset();
    for (const [network, count] of this.engine.networkSizes()) this.targets.set({ network }, count);
    for (const standing of this.engine.standings()) {
      const labels = { network: standing.network, kind: standing.kind, target: standing.target };
      this.comparisons.inc(labels, standing.comparisons);
      this.disagreements.inc(labels, standing.disagreements);
      if (standing.protocolBehind !== undefined) this.protocolBehind.set(labels, standing.protocolBehind);
    }
  }
}
