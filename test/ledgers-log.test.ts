/** What the ledgers poll says in its log is what it does, and a network restart is told to the target's other jobs. */
import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import { makeLedger } from "./support/fake-horizon.js";
import { pollScripted, type ScriptedPage } from "./support/scripted-ledgers.js";

/** A collector whose ledger pages are scripted, one a request, and what it logged and told the network. */
const polled = (...pages: ScriptedPage[]) => polledWith(0, ...pages);

/** Polls until every page was asked for, the first reading `backfill` ledgers before the newest. */
async function polledWith(backfill: number, ...pages: ScriptedPage[]) {
  const { value, logged, restarts } = await pollScripted(backfill, pages);
  return { restarts, sequence: value("ledger_sequence"), logged };
}

it("a broken hash chain is logged as counted and read on from, not as a resynchronisation it does not do", async () => {
  const broken = makeLedger(13, { prev_hash: "ff".repeat(32) });
  expect((await polled([makeLedger(12)], [broken, makeLedger(14)])).logged).toEqual([
    "ledger hash chain broken (network reset?); counted as a resync, reading on from this ledger",
  ]);
});

describe("a network restart", () => {
  const refused = new PollError("http_4xx", "HTTP 400: Bad Request", { status: 400 });
  const NEW_CHAIN = "Horizon is on another chain (network reset?); resynchronising";
  const REFUSED = "Horizon refused the ledger cursor; resynchronising from the latest ledger";

  it("found when nothing is newer than the cursor and the newest ledger is below it, is told to the other jobs", async () => {
    expect(await polled([makeLedger(100)], [], [makeLedger(5, {}, 7)])).toEqual({
      restarts: 1,
      sequence: 5,
      logged: [NEW_CHAIN],
    });
  });

  it("found behind a refused cursor, is told too, and the new chain's newest ledger is read", async () => {
    expect(await polled([makeLedger(100)], refused, [makeLedger(5, {}, 7)])).toEqual({
      restarts: 1,
      sequence: 5,
      logged: [REFUSED, NEW_CHAIN],
    });
  });

  it("found as a broken hash chain (a new chain grown past the ledgers read, say), is told too", async () => {
    expect(await polled([makeLedger(12)], [makeLedger(13, { prev_hash: "ff".repeat(32) }), makeLedger(14)])).toEqual({
      restarts: 1,
      sequence: 14,
      logged: ["ledger hash chain broken (network reset?); counted as a resync, reading on from this ledger"],
    });
  });

  it("found at a sequence read before with another hash, is told too, however young the old chain was", async () => {
    // The half rule cannot see it: 24 is not below half of 24.
    expect(await polled([makeLedger(24)], [], [makeLedger(24, {}, 7)])).toEqual({
      restarts: 1,
      sequence: 24,
      logged: [NEW_CHAIN],
    });
  });

  it("is not found in a step back below half to a ledger read before with the same hash (a restored Horizon)", async () => {
    const firstPage = [10, 9, 8, 7, 6, 5, 4].map((sequence) => makeLedger(sequence));
    expect(await polledWith(6, firstPage, [], [makeLedger(4)])).toEqual({ restarts: 0, sequence: 10, logged: [] });
  });

  it("found as a broken hash chain, leaves no hash of the old chain to tell the new one by", async () => {
    const grownPast = [makeLedger(13, {}, 7), makeLedger(14, {}, 7)];
    expect(
      await polledWith(
        2,
        [12, 11, 10].map((sequence) => makeLedger(sequence)),
        grownPast,
        [],
        [makeLedger(11, {}, 7)],
      ),
    ).toEqual({
      restarts: 1,
      sequence: 14,
      logged: ["ledger hash chain broken (network reset?); counted as a resync, reading on from this ledger"],
    });
  });

  it("found behind a refused cursor, is told once however many ledgers before the newest are read", async () => {
    const chain = (epoch: number, ...sequences: number[]) =>
      sequences.map((sequence) => makeLedger(sequence, {}, epoch));
    // By the half rule (2 is below half of 5 too), then by a known hash (1 is below half of 24).
    expect((await polledWith(3, chain(0, 100, 99, 98, 97), refused, chain(7, 5, 4, 3, 2))).restarts).toBe(1);
    const young = Array.from({ length: 24 }, (_, index) => 24 - index);
    expect((await polledWith(23, chain(0, ...young), refused, chain(7, ...young))).restarts).toBe(1);
  });

  it("found when nothing is newer and the root poll learnt another passphrase, is told though not below half", async () => {
    const [testnet, pubnet] = ["Test SDF Network ; September 2015", "Public Global Stellar Network ; September 2015"];
    expect(
      await polled({ passphrase: testnet }, [makeLedger(100)], { passphrase: pubnet }, [], [makeLedger(80, {}, 7)]),
    ).toEqual({ restarts: 1, sequence: 80, logged: [NEW_CHAIN] });
  });

  it("is not told for a refused cursor on the same chain, the newest ledger ahead", async () => {
    expect(await polled([makeLedger(100)], refused, [makeLedger(150)])).toEqual({
      restarts: 0,
      sequence: 150,
      logged: [REFUSED],
    });
  });
});
