/** What the ledgers poll says in its log is what it does. */
import { pino } from "pino";
import { expect, it } from "vitest";
import type { HorizonClient } from "../src/client/horizon-client.js";
import { LedgersCollector } from "../src/collectors/ledgers.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { makeLedger } from "./support/fake-horizon.js";

it("a broken hash chain is logged as counted and read on from, not as a resynchronisation it does not do", async () => {
  const pages = [[makeLedger(12)], [makeLedger(13, { prev_hash: "ff".repeat(32) }), makeLedger(14)], []];
  const client = { ledgers: async () => pages.shift() ?? [] } as unknown as HorizonClient;
  const lines: { msg: string }[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const collector = new LedgersCollector(client, { maxPagesPerPoll: 10, backfill: 0 }, log, undefined, {
    schedule: parseSchedule("15s") as Schedule,
    requestsPerRun: 1,
  });
  const context = { signal: new AbortController().signal, invalidRecords: () => {}, progressed: () => {} };
  await collector.run(context);
  await collector.run(context);
  expect(lines.map(({ msg }) => msg)).toEqual([
    "ledger hash chain broken (network reset?); counted as a resync, reading on from this ledger",
  ]);
});
