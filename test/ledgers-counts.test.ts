/** The ledger counters count every record once, whatever Horizon does to the cursor. */
import { pino } from "pino";
import { expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { HorizonClient } from "../src/client/horizon-client.js";
import { LedgersCollector } from "../src/collectors/ledgers.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { makeLedger } from "./support/fake-horizon.js";
import { pollContext } from "./support/poll-context.js";
import { renderSamples } from "./support/render-samples.js";

const refused = new PollError("http_4xx", "HTTP 400: Bad Request", { status: 400 });
const invalid = (sequence: number) => makeLedger(sequence, { base_fee_in_stroops: "not a number" });

it("a refused cursor on a Horizon a little behind counts none of the ledgers read before again, invalid ones included", async () => {
  const pages: (Record<string, unknown>[] | Error)[] = [
    // First poll: the newest ledger and three before it (backfill), newest first.
    [makeLedger(10), makeLedger(9), makeLedger(8), makeLedger(7)],
    // Second: the ledgers after the cursor, one of them invalid.
    [makeLedger(11), invalid(12), makeLedger(13)],
    // Third: the cursor is refused; this Horizon's newest ledger is the invalid 12, read already.
    refused,
    [invalid(12), makeLedger(11), makeLedger(10), makeLedger(9)],
    // Fourth: after 12, this Horizon now has 13 (read already) and 14.
    [makeLedger(13), makeLedger(14)],
  ];
  const client = {
    ledgers: async () => {
      const page = pages.shift() ?? [];
      if (page instanceof Error) throw page;
      return page;
    },
  } as unknown as HorizonClient;
  const collector = new LedgersCollector(
    client,
    { maxPagesPerPoll: 10, backfill: 3 },
    pino({ level: "silent" }),
    undefined,
    {
      schedule: parseSchedule("15s") as Schedule,
      requestsPerRun: 1,
    },
  );
  const context = pollContext();
  for (let poll = 0; poll < 4; poll += 1) await collector.run(context);
  expect(pages).toEqual([]);
  const { live, persistent } = collector.samples();
  const values = parseExposition(await renderSamples("h", [...live, ...persistent]));
  const H = { horizon: "h" };
  expect(valueOf(values, "stellar_horizon_ledger_sequence", H)).toBe(14);
  // 7 to 11, 13 and 14; 12 was invalid.
  expect(valueOf(values, "stellar_horizon_ledgers_total", H)).toBe(7);
  expect(valueOf(values, "stellar_horizon_ledgers_skipped_total", H)).toBe(1);
  expect(context.invalid).toBe(1);
  expect(valueOf(values, "stellar_horizon_ledger_resyncs_total", H)).toBe(1);
});
