/** The ledger counters count every record once, whatever Horizon does to the cursor. */
import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import { makeLedger } from "./support/fake-horizon.js";
import { pollScripted, type ScriptedPage } from "./support/scripted-ledgers.js";

const refused = new PollError("http_4xx", "HTTP 400: Bad Request", { status: 400 });
const invalid = (sequence: number) => makeLedger(sequence, { base_fee_in_stroops: "not a number" });

/** Polls until every page was asked for; the ledger counters and the invalid records counted. */
async function counted(backfill: number, ...pages: ScriptedPage[]) {
  const { value, invalid } = await pollScripted(backfill, pages);
  return {
    sequence: value("ledger_sequence"),
    ledgers: value("ledgers_total"),
    skipped: value("ledgers_skipped_total"),
    resyncs: value("ledger_resyncs_total"),
    invalid,
  };
}

it("a refused cursor on a Horizon a little behind counts none of the ledgers read before again, invalid ones included", async () => {
  expect(
    await counted(
      3,
      // First poll: the newest ledger and three before it (backfill), newest first.
      [makeLedger(10), makeLedger(9), makeLedger(8), makeLedger(7)],
      // Second: the ledgers after the cursor, one of them invalid.
      [makeLedger(11), invalid(12), makeLedger(13)],
      // Third: the cursor is refused; this Horizon's newest ledger is the invalid 12, read already.
      refused,
      [invalid(12), makeLedger(11), makeLedger(10), makeLedger(9)],
      // Fourth: after 12, this Horizon now has 13 (read already) and 14.
      [makeLedger(13), makeLedger(14)],
    ),
    // 7 to 11, 13 and 14; 12 was invalid.
  ).toEqual({ sequence: 14, ledgers: 7, skipped: 1, resyncs: 1, invalid: 1 });
});

it("an invalid ledger whose paging token cannot be the cursor, served again after a refused cursor, is counted once", async () => {
  const unusable = makeLedger(12, { base_fee_in_stroops: "not a number", paging_token: "abc" });
  expect(
    await counted(
      2,
      [makeLedger(10), makeLedger(9), makeLedger(8)],
      [makeLedger(11), unusable],
      // The cursor (11) is refused; the newest ledgers again, the unusable 12 among them.
      refused,
      [unusable, makeLedger(11), makeLedger(10)],
      [unusable, makeLedger(13)],
    ),
    // 8 to 11 and 13; 12 was invalid.
  ).toEqual({ sequence: 13, ledgers: 5, skipped: 1, resyncs: 1, invalid: 1 });
});

it("a record that is no object (null, a number) is counted as an invalid, skipped ledger, and paging goes on", async () => {
  const notObjects = [null, 12.5] as unknown as Record<string, unknown>[];
  expect(
    await counted(0, [makeLedger(10)], [makeLedger(11), ...notObjects, makeLedger(14)], [makeLedger(15)]),
    // 10, 11, 14 and 15; the two records between 11 and 14 are invalid.
  ).toEqual({ sequence: 15, ledgers: 4, skipped: 2, resyncs: 0, invalid: 2 });
});

it("a new chain found with nothing newer counts from its newest ledger: an older one served later is not counted", async () => {
  const newChain = (sequence: number, overrides = {}) => makeLedger(sequence, overrides, 7);
  expect(
    await counted(
      0,
      [makeLedger(100)],
      // Nothing after 100; the newest is 20, of another chain.
      [],
      [newChain(20)],
      // The cursor is refused, and a Horizon a little behind serves its invalid 19, from before the restart.
      refused,
      [newChain(19, { base_fee_in_stroops: "not a number" })],
      [newChain(20), newChain(21)],
    ),
  ).toEqual({ sequence: 21, ledgers: 3, skipped: 0, resyncs: 2, invalid: 0 });
});

it("a switch to another chain that a gap hides counts every ledger once: the hashes kept start afresh after a gap", async () => {
  const other = (sequence: number, overrides = {}) => makeLedger(sequence, overrides, 7);
  expect(
    await counted(
      6,
      [10, 9, 8, 7, 6, 5, 4].map((sequence) => makeLedger(sequence)),
      // Another chain, its 11 invalid: no hash links 12 to 10.
      [other(11, { base_fee_in_stroops: "not a number" }), other(12)],
      // Nothing newer; a Horizon of that chain a little behind, at 9: not taken for a new chain.
      [],
      [other(9)],
      [10, 11, 12, 13].map((sequence) => other(sequence)),
    ),
  ).toEqual({ sequence: 13, ledgers: 9, skipped: 1, resyncs: 0, invalid: 1 });
});

describe("a switch to another network that a gap hides, told by the passphrase the root poll learnt", () => {
  const testnet = { passphrase: "Test SDF Network ; September 2015" };
  const pubnet = { passphrase: "Public Global Stellar Network ; September 2015" };
  const other = (sequence: number) => makeLedger(sequence, {}, 7);
  it.each([
    ["behind a refused cursor", [refused, pubnet, [other(5_000_000)]], 0],
    ["served after the cursor (a Horizon keeping no older history)", [pubnet, [other(5_000_000)]], 0],
    // Too late for the gap already read: counted as skipped.
    ["learnt only after its first ledger was read", [[other(5_000_000)], pubnet], 4_999_899],
  ])("%s, is a new chain", async (_, switched, skipped) => {
    const { value, restarts } = await pollScripted(0, [testnet, [makeLedger(100)], ...switched, [other(5_000_001)]]);
    expect({ skipped: value("ledgers_skipped_total"), restarts, ledgers: value("ledgers_total") }).toEqual({
      skipped,
      restarts: 1,
      ledgers: 3,
    });
  });
});

it("reads each ledger of a page served out of order, none counted as skipped", async () => {
  expect(
    await counted(
      0,
      [makeLedger(10)],
      // After 10, a page out of order (a proxy merging two answers, say): 12 before 11.
      [makeLedger(12), makeLedger(11)],
      [makeLedger(13)],
    ),
  ).toEqual({ sequence: 13, ledgers: 4, skipped: 0, resyncs: 0, invalid: 0 });
});
