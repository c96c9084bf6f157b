import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/index.js";
import { getJson, ManualClock, START_MS } from "./helpers.js";

interface LedgerRecord {
  sequence: number;
  hash: string;
  prev_hash: string;
  header_xdr: string;
  successful_transaction_count: number;
  closed_at: string;
}

/** The newest 200 ledgers the simulated Horizon serves, by sequence. */
async function ledgers(simulator: Simulator): Promise<Map<number, LedgerRecord>> {
  const { body } = await getJson<{ _embedded: { records: LedgerRecord[] } }>(
    simulator,
    "/ledgers?order=desc&limit=200",
  );
  return new Map(body._embedded.records.map((record) => [record.sequence, record]));
}

async function rpcLatestLedger(simulator: Simulator): Promise<{ id: string; sequence: number }> {
  const { body } = await getJson<{ result: { id: string; sequence: number } }>(simulator, "/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestLedger" }),
  });
  return body.result;
}

/** A simulator whose clock started `lateMs` after the network's start. */
function simulatorJoining(lateMs: number, forkAt?: number): { simulator: Simulator; clock: ManualClock } {
  const clock = new ManualClock(START_MS + lateMs);
  const simulator = createSimulator({
    seed: 7,
    now: clock.now,
    networkStartMs: START_MS,
    ...(forkAt === undefined ? {} : { forkAt }),
  });
  return { simulator, clock };
}

describe("simulators of one network", () => {
  it("serve the same ledgers when given the same seed and network start, whenever each started", async () => {
    const first = simulatorJoining(0);
    const second = simulatorJoining(37_000);
    first.clock.tick(120_000);
    second.clock.tick(120_000 - 37_000);
    const [a, b] = [await ledgers(first.simulator), await ledgers(second.simulator)];
    expect([...a.keys()]).toEqual([...b.keys()]);
    expect([...a.values()].map((record) => record.hash)).toEqual([...b.values()].map((record) => record.hash));
    expect(await rpcLatestLedger(first.simulator)).toEqual(await rpcLatestLedger(second.simulator));
    expect(first.simulator.state()).toMatchObject({ networkStart: new Date(START_MS).toISOString(), forkAt: null });
  });

  it("serve different hashes from the fork on, on Horizon and Stellar RPC alike, each chain still whole", async () => {
    const honest = simulatorJoining(0);
    const before = honest.simulator.state().historyLatestLedger;
    const forkAt = before + 5;
    const forked = simulatorJoining(10_000, forkAt);
    honest.clock.tick(90_000);
    forked.clock.tick(80_000);
    const [a, b] = [await ledgers(honest.simulator), await ledgers(forked.simulator)];
    expect(Math.max(...b.keys())).toBeGreaterThan(forkAt + 3);
    for (const [sequence, record] of b) {
      const other = a.get(sequence)!;
      expect(record.hash === other.hash, `ledger ${sequence}`).toBe(sequence < forkAt);
      // Only the hashes differ: the ledger's contents are the network's.
      expect(record.successful_transaction_count).toBe(other.successful_transaction_count);
      expect(record.closed_at).toBe(other.closed_at);
      expect(createHash("sha256").update(Buffer.from(record.header_xdr, "base64")).digest("hex")).toBe(record.hash);
      const previous = b.get(sequence - 1);
      if (previous !== undefined) expect(record.prev_hash).toBe(previous.hash);
    }
    const [honestRpc, forkedRpc] = [await rpcLatestLedger(honest.simulator), await rpcLatestLedger(forked.simulator)];
    expect(forkedRpc.sequence).toBe(honestRpc.sequence);
    expect(forkedRpc.id).toBe(b.get(forkedRpc.sequence)!.hash);
    expect(forkedRpc.id).not.toBe(honestRpc.id);
    expect(forked.simulator.state().forkAt).toBe(forkAt);
  });

  it("refuse a network start after the clock or more than a day before it, and a fork at no ledger", () => {
    const now = () => START_MS;
    expect(() => createSimulator({ now, networkStartMs: START_MS + 1 })).toThrow(
      /networkStartMs must be a time within the day before the clock's/,
    );
    expect(() => createSimulator({ now, networkStartMs: START_MS - 24 * 3600_000 - 1 })).toThrow(RangeError);
    expect(() => createSimulator({ now, forkAt: 0 })).toThrow(
      /forkAt must be a ledger sequence from 1 to 4294967295, got 0/,
    );
    expect(() => createSimulator({ now, forkAt: 1.5 })).toThrow(RangeError);
  });
});
