import { describe, expect, it } from "vitest";
import { NetworkView, RestartWatch } from "../src/job/network.js";

describe("a network restart, as the jobs that read from cursors are told of it", () => {
  it("is a ledger read below half the last one: a step back of a lagging or restored Horizon is none", () => {
    const network = new NetworkView();
    const watch = new RestartWatch(network);
    const told = (sequence: number) => {
      network.ledgerRead(sequence);
      return watch.restarted();
    };
    expect([told(1_000_000), told(999_990), told(1_000_001), told(600_000)]).toEqual([false, false, false, false]);
    expect([told(5), told(6), told(4), told(7)]).toEqual([true, false, false, false]);
    expect([told(3), told(2_000_000), told(1)]).toEqual([true, false, true]);
    expect(network.restarts).toBe(3);
  });

  it("is measured from the highest ledger read, which answers lagging further and further cannot step down", () => {
    const network = new NetworkView();
    const watch = new RestartWatch(network);
    for (const sequence of [1000, 510, 260, 130]) network.ledgerRead(sequence);
    expect([network.restarts, watch.restarted()]).toEqual([1, true]);
    // The new chain's highest is 260 now: 131 is the same chain behind.
    network.ledgerRead(140);
    network.ledgerRead(131);
    expect([network.restarts, watch.restarted()]).toEqual([1, false]);
  });

  it("is not told to a job made after it, nor where no network is shared", () => {
    const network = new NetworkView();
    network.ledgerRead(1_000_000);
    network.ledgerRead(5);
    expect(new RestartWatch(network).restarted()).toBe(false);
    expect(new RestartWatch(undefined).restarted()).toBe(false);
  });

  it("is no fact another job can teach by the latest ledger it learnt (a root document's, say)", () => {
    const network = new NetworkView();
    const watch = new RestartWatch(network);
    network.learn({ latestLedger: 50_000_000 });
    network.ledgerRead(500);
    network.learn({ latestLedger: 3 });
    expect(watch.restarted()).toBe(false);
  });
});
