import { pino } from "pino";
import type { HorizonClient } from "../../src/client/horizon-client.js";
import { LedgersCollector } from "../../src/collectors/ledgers.js";
import { parseSchedule, type Schedule } from "../../src/config/schedule.js";
import { NetworkView } from "../../src/job/network.js";
import { parseExposition, valueOf } from "./exposition.js";
import { pollContext } from "./poll-context.js";
import { renderSamples } from "./render-samples.js";

/** A ledgers page as the collector's client answers it, or the error it throws; a passphrase step is no request: the
 * target's root poll learns that passphrase before the next one. */
export type ScriptedPage = Record<string, unknown>[] | Error | { passphrase: string };

/** A ledgers collector whose pages are scripted, one a request, polled until every page was asked for; the first poll
 * reads `backfill` ledgers before the newest. Its series of target `h`, what it logged and told its network. */
export async function pollScripted(backfill: number, pages: ScriptedPage[]) {
  const network = new NetworkView();
  const client = {
    ledgers: async () => {
      let page = pages.shift() ?? [];
      for (; "passphrase" in page; page = pages.shift() ?? []) network.learn({ passphrase: page.passphrase });
      if (page instanceof Error) throw page;
      return page;
    },
  } as unknown as HorizonClient;
  const lines: { msg: string }[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const collector = new LedgersCollector(client, { maxPagesPerPoll: 10, backfill }, log, network, {
    schedule: parseSchedule("15s") as Schedule,
    requestsPerRun: 1,
  });
  const context = pollContext();
  while (pages.length > 0) await collector.run(context);
  const { live, persistent } = collector.samples();
  const values = parseExposition(await renderSamples("h", [...live, ...persistent]));
  return {
    /** A `stellar_horizon_` series of the target, by the rest of its name. */
    value: (name: string) => valueOf(values, `stellar_horizon_${name}`, { horizon: "h" }),
    logged: lines.map(({ msg }) => msg),
    restarts: network.restarts,
    invalid: context.invalid,
  };
}
