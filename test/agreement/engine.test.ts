import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AgreementEngine, type ShownLedger, type TargetAgreement, type TargetId } from "../../src/agreement/engine.js";
import { networkOf } from "../../src/agreement/network.js";

const A: TargetId = { kind: "horizon", target: "a" };
const B: TargetId = { kind: "horizon", target: "b" };
const C: TargetId = { kind: "rpc", target: "c" };
const D: TargetId = { kind: "horizon", target: "d" };

/** The honest network's hash of a sequence, and a fork's. */
const honest = (sequence: number) => `h${sequence}`;
const forked = (sequence: number) => `f${sequence}`;

function range(from: number, to: number, hash: (sequence: number) => string = honest): ShownLedger[] {
  const ledgers: ShownLedger[] = [];
  for (let sequence = from; sequence <= to; sequence += 1) ledgers.push({ sequence, hash: hash(sequence) });
  return ledgers;
}

/** From `forkAt` on, the fork's hashes; the honest ones before. */
const forkedFrom = (forkAt: number) => (sequence: number) => (sequence >= forkAt ? forked(sequence) : honest(sequence));

function standing(engine: AgreementEngine, id: TargetId): TargetAgreement | undefined {
  return engine.standings().find((entry) => entry.kind === id.kind && entry.target === id.target);
}

function counts(engine: AgreementEngine, id: TargetId): [number, number] | undefined {
  const entry = standing(engine, id);
  return entry && [entry.comparisons, entry.disagreements];
}

function onNetwork(engine: AgreementEngine, network: string, ...ids: TargetId[]): void {
  for (const id of ids) engine.network(id, network);
}

describe("the agreement engine", () => {
  it("with three targets, counts a disagreement against the forked one only, and comparisons for all", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, B, C);
    engine.ledgers(A, range(100, 119));
    engine.ledgers(B, range(100, 119, forkedFrom(110)));
    engine.ledgers(C, range(100, 119));
    expect(counts(engine, A)).toEqual([20, 0]);
    expect(counts(engine, C)).toEqual([20, 0]);
    expect(counts(engine, B)).toEqual([20, 10]);
    expect(standing(engine, B)).toMatchObject({ lastDisagreement: 119, disagreeing: true });
    expect(standing(engine, A)).toMatchObject({ lastDisagreement: undefined, disagreeing: false });
  });

  it("with two targets, counts a disagreement against both", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "testnet", A, B);
    engine.ledgers(A, range(1, 10));
    engine.ledgers(B, range(1, 10, forkedFrom(6)));
    expect(counts(engine, A)).toEqual([10, 5]);
    expect(counts(engine, B)).toEqual([10, 5]);
  });

  it("counts nothing for a target compared only with itself", () => {
    const engine = new AgreementEngine({ patienceLedgers: 5 });
    onNetwork(engine, "pubnet", A);
    engine.ledgers(A, range(1, 50));
    engine.ledgers(A, range(1, 50, forked));
    expect(counts(engine, A)).toEqual([0, 0]);
  });

  it("never compares a target with one on another network", () => {
    const engine = new AgreementEngine({ patienceLedgers: 5 });
    engine.network(A, "pubnet");
    engine.network(B, "pubnet");
    engine.network(D, "3a1f0c2b");
    engine.ledgers(A, range(1, 20));
    engine.ledgers(B, range(1, 20));
    engine.ledgers(D, range(1, 20, forked));
    expect(counts(engine, A)).toEqual([20, 0]);
    expect(counts(engine, B)).toEqual([20, 0]);
    expect(counts(engine, D)).toEqual([0, 0]);
    expect(standing(engine, D)?.network).toBe("3a1f0c2b");
    expect(engine.networkSizes()).toEqual(
      new Map([
        ["pubnet", 2],
        ["3a1f0c2b", 1],
      ]),
    );
  });

  it("places no ledger of a target whose network is not known yet", () => {
    const engine = new AgreementEngine();
    engine.network(A, "pubnet");
    engine.ledgers(A, range(1, 5));
    engine.ledgers(B, range(1, 5, forked));
    expect(standing(engine, B)).toBeUndefined();
    engine.network(B, "pubnet");
    engine.ledgers(B, range(6, 8));
    engine.ledgers(A, range(6, 8));
    expect(counts(engine, A)).toEqual([3, 0]);
    expect(counts(engine, B)).toEqual([3, 0]);
  });

  it("blames no one where the targets that showed a sequence split evenly on a network of three", () => {
    // An RPC shows only the latest ledger at each poll: here every third one.
    const engine = new AgreementEngine({ patienceLedgers: 5 });
    onNetwork(engine, "pubnet", A, B, C);
    for (let sequence = 100; sequence < 130; sequence += 3) {
      engine.ledgers(A, range(sequence, sequence + 2));
      engine.ledgers(B, range(sequence, sequence + 2, forkedFrom(110)));
      engine.ledgers(C, [{ sequence: sequence + 2, hash: honest(sequence + 2) }]);
    }
    expect(counts(engine, A)).toEqual([30, 0]);
    expect(counts(engine, C)).toEqual([10, 0]);
    // Sequences 110 to 129 that C showed: 110, 113, ..., 128.
    expect(counts(engine, B)).toEqual([30, 7]);
  });

  it("blames no one when three targets all show different hashes", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, B, C);
    engine.ledgers(A, range(1, 3));
    engine.ledgers(B, range(1, 3, forked));
    engine.ledgers(
      C,
      range(1, 3, (sequence) => `x${sequence}`),
    );
    for (const id of [A, B, C]) expect(counts(engine, id)).toEqual([3, 0]);
  });

  it("judges a sequence once every target has reached it, not before", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, B, C);
    engine.ledgers(A, range(1, 10));
    engine.ledgers(B, range(1, 10, forkedFrom(5)));
    // Two of three showed 5 to 10 and split: undecided until the third has spoken.
    expect(counts(engine, A)).toEqual([0, 0]);
    expect(counts(engine, B)).toEqual([0, 0]);
    engine.ledgers(C, range(1, 7));
    expect(counts(engine, A)).toEqual([7, 0]);
    expect(counts(engine, B)).toEqual([7, 3]);
    engine.ledgers(C, range(8, 10));
    expect(counts(engine, B)).toEqual([10, 6]);
  });

  it("does not wait for a stalled target longer than its patience", () => {
    const engine = new AgreementEngine({ patienceLedgers: 10 });
    onNetwork(engine, "testnet", A, B, C);
    engine.ledgers(C, range(1, 1));
    engine.ledgers(A, range(1, 30));
    engine.ledgers(B, range(1, 30));
    // C stalled at 1: sequences up to 20 are 10 behind the newest and judged without it.
    expect(counts(engine, A)).toEqual([20, 0]);
    expect(counts(engine, C)).toEqual([1, 0]);
  });

  it("judges a target that shows a sequence late on its own, counting nothing twice", () => {
    const engine = new AgreementEngine({ patienceLedgers: 10 });
    onNetwork(engine, "pubnet", A, B, C);
    engine.ledgers(A, range(1, 30));
    engine.ledgers(B, range(1, 30));
    // C lags 20 ledgers behind, forked from 5, and reads the same page twice.
    engine.ledgers(C, range(1, 10, forkedFrom(5)));
    engine.ledgers(C, range(1, 10, forkedFrom(5)));
    expect(counts(engine, C)).toEqual([10, 6]);
    expect(counts(engine, A)).toEqual([20, 0]);
    expect(counts(engine, B)).toEqual([20, 0]);
  });

  it("stops calling a target disagreeing once its last disagreement has left the network's window", () => {
    const engine = new AgreementEngine({ sequencesKept: 10 });
    onNetwork(engine, "pubnet", A, B, C);
    engine.ledgers(A, range(1, 5));
    engine.ledgers(B, range(1, 5, forked));
    engine.ledgers(C, range(1, 5));
    expect(standing(engine, B)).toMatchObject({ disagreements: 5, disagreeing: true });
    for (const id of [A, B, C]) engine.ledgers(id, range(6, 14));
    expect(standing(engine, B)).toMatchObject({ disagreements: 5, lastDisagreement: 5, disagreeing: true });
    for (const id of [A, B, C]) engine.ledgers(id, range(15, 15));
    expect(standing(engine, B)).toMatchObject({ disagreements: 5, lastDisagreement: 5, disagreeing: false });
  });

  it("stops calling a target disagreeing once it moved on, though a stalled target's window still holds the sequence", () => {
    const engine = new AgreementEngine({ sequencesKept: 10 });
    onNetwork(engine, "pubnet", A, B, C);
    for (const id of [A, C]) engine.ledgers(id, range(1, 5));
    engine.ledgers(B, range(1, 5, forkedFrom(5)));
    expect(standing(engine, B)).toMatchObject({ lastDisagreement: 5, disagreeing: true });
    // C stalls at 5 (down, its polls failing); A and B agree for the next 100 ledgers.
    for (const id of [A, B]) engine.ledgers(id, range(6, 105));
    expect(standing(engine, B)).toMatchObject({ disagreements: 1, lastDisagreement: 5, disagreeing: false });
  });

  it("keeps comparing the other targets when one shows an absurd latest ledger", () => {
    const engine = new AgreementEngine({ sequencesKept: 10 });
    onNetwork(engine, "pubnet", A, B, C, D);
    // C, hostile or broken, claims a ledger far past the network's.
    engine.ledgers(C, [{ sequence: 2 ** 31, hash: forked(2 ** 31) }]);
    engine.ledgers(A, range(100, 104));
    engine.ledgers(B, range(100, 104, forkedFrom(103)));
    engine.ledgers(D, range(100, 104));
    expect([A, B, C, D].map((id) => counts(engine, id))).toEqual([
      [5, 0],
      [5, 2],
      [0, 0],
      [5, 0],
    ]);
    expect(standing(engine, B)).toMatchObject({ lastDisagreement: 104, disagreeing: true });
  });

  it("waits for the others before judging, though one target shows an absurd latest ledger", () => {
    const E: TargetId = { kind: "horizon", target: "e" };
    const F: TargetId = { kind: "rpc", target: "f" };
    const engine = new AgreementEngine({ sequencesKept: 10 });
    onNetwork(engine, "pubnet", A, B, C, D, E, F);
    engine.ledgers(C, [{ sequence: 2 ** 31, hash: forked(2 ** 31) }]);
    // B and E, forked from 103, happen to be polled first; the honest majority shows the same ledgers after them.
    for (const id of [B, E]) engine.ledgers(id, range(100, 104, forkedFrom(103)));
    for (const id of [A, D, F]) engine.ledgers(id, range(100, 104));
    expect([A, B, D, E, F].map((id) => counts(engine, id))).toEqual([
      [5, 0],
      [5, 2],
      [5, 0],
      [5, 2],
      [5, 0],
    ]);
  });

  it("counts a sequence shown twice with the same hash once", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, C);
    for (let poll = 0; poll < 3; poll += 1) {
      engine.ledgers(C, [{ sequence: 7, hash: honest(7) }]);
      engine.ledgers(A, range(7, 7));
    }
    expect(counts(engine, A)).toEqual([1, 0]);
    expect(counts(engine, C)).toEqual([1, 0]);
  });

  it("keeps only the last sequences of a network", () => {
    const engine = new AgreementEngine({ sequencesKept: 10, patienceLedgers: 100 });
    onNetwork(engine, "pubnet", A, B);
    engine.ledgers(A, range(1, 20));
    engine.ledgers(B, range(1, 20));
    // 1 to 10 had left the window, judged with A's hash alone, when B showed them.
    expect(counts(engine, A)).toEqual([10, 0]);
    expect(counts(engine, B)).toEqual([10, 0]);
    const late: TargetId = { kind: "rpc", target: "late" };
    engine.network(late, "pubnet");
    engine.ledgers(late, [{ sequence: 5, hash: forked(5) }]);
    expect(counts(engine, late)).toEqual([0, 0]);
  });

  it("follows a network reset once every target has gone back", () => {
    const engine = new AgreementEngine({ sequencesKept: 10 });
    onNetwork(engine, "testnet", A, B);
    engine.ledgers(A, range(1000, 1009));
    engine.ledgers(B, range(1000, 1009));
    // A resets first: its new ledgers lie below B's, kept in A's own window until B shows them too.
    engine.ledgers(A, range(2, 11, forked));
    engine.ledgers(B, range(2, 11, forked));
    expect(counts(engine, A)).toEqual([20, 0]);
    engine.ledgers(A, range(12, 21, forked));
    engine.ledgers(B, range(12, 21, forked));
    expect(counts(engine, A)).toEqual([30, 0]);
    expect(counts(engine, B)).toEqual([30, 0]);
  });

  it("gives each target how far its protocol is behind its network's highest", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, B, C);
    engine.network(D, "testnet");
    engine.protocol(A, 23);
    engine.protocol(B, 22);
    engine.protocol(D, 25);
    expect(standing(engine, A)?.protocolBehind).toBe(0);
    expect(standing(engine, B)?.protocolBehind).toBe(1);
    expect(standing(engine, C)?.protocolBehind).toBeUndefined();
    expect(standing(engine, D)?.protocolBehind).toBe(0);
  });

  it("restarts a target's counters when it moves to another network, and forgets what it showed", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, B);
    engine.ledgers(A, range(1, 5));
    engine.ledgers(B, range(1, 5, forked));
    expect(counts(engine, B)).toEqual([5, 5]);
    engine.network(B, "testnet");
    expect(standing(engine, B)).toMatchObject({ network: "testnet", comparisons: 0, disagreements: 0 });
    expect(engine.networkSizes()).toEqual(
      new Map([
        ["pubnet", 1],
        ["testnet", 1],
      ]),
    );
    const third: TargetId = { kind: "rpc", target: "third" };
    engine.network(third, "pubnet");
    engine.ledgers(third, range(3, 3));
    expect(counts(engine, third)).toEqual([1, 0]);
  });

  it("forgets a removed target: it no longer counts towards a majority", () => {
    const engine = new AgreementEngine();
    onNetwork(engine, "pubnet", A, B, C);
    engine.ledgers(A, range(1, 3));
    engine.ledgers(C, range(1, 3));
    engine.remove(C);
    expect(standing(engine, C)).toBeUndefined();
    engine.ledgers(B, range(1, 3, forked));
    // Two targets left: each disagreement counts against both.
    expect(counts(engine, A)).toEqual([3, 3]);
    expect(counts(engine, B)).toEqual([3, 3]);
  });
});

describe("network names", () => {
  it("names SDF's networks", () => {
    expect(networkOf("Public Global Stellar Network ; September 2015")).toBe("pubnet");
    expect(networkOf("Test SDF Network ; September 2015")).toBe("testnet");
    expect(networkOf("Test SDF Future Network ; October 2022")).toBe("futurenet");
  });

  it("names any other network by the first 8 hex digits of its passphrase's SHA-256", () => {
    const passphrase = "Standalone Network ; February 2017";
    expect(networkOf(passphrase)).toBe(createHash("sha256").update(passphrase).digest("hex").slice(0, 8));
    expect(networkOf(passphrase)).toMatch(/^[0-9a-f]{8}$/);
  });
});
