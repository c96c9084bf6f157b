import { Cron } from "croner";
import { parseDuration } from "./duration.js";
import { unitSuggestion } from "./messages.js";

/** When an endpoint is polled: every fixed duration, or on a croner pattern. */
export interface Schedule {
  /** The text the operator wrote, for the landing page and logs. */
  readonly text: string;
  /** Croner pattern; with `intervalSeconds`, runs at most that often. */
  readonly pattern: string;
  readonly intervalSeconds?: number;
  /** The longest time between two runs, so that freshness (a multiple of it) and deadlines never end before the next
   * run. An uneven pattern's hourly request plan, an hour over it, counts its runs low: at its slowest rate. */
  readonly periodMs: number;
}

/** A duration (`15s`) or a croner pattern; else a message of ours (croner's describes its parser's internals). */
export function parseSchedule(text: string): Schedule | string {
  if (/^\d+$/.test(text.trim())) return `"${text}" is a number without a unit${unitSuggestion(text)}`;
  const durationMs = parseDuration(text);
  if (durationMs !== undefined) {
    if (durationMs < 1_000 || durationMs % 1_000 !== 0)
      return `"${text}" must be a whole number of seconds, at least 1s`;
    return { text, pattern: "* * * * * *", intervalSeconds: durationMs / 1_000, periodMs: durationMs };
  }
  try {
    const gaps = runGapsMs(text);
    if (gaps.length === 0) return `croner pattern "${text}" never runs twice`;
    return { text, pattern: text, periodMs: Math.max(...gaps) };
  } catch {
    return (
      `"${text}" is neither a duration (whole seconds: 15s, 1m30s) nor a cron pattern ("*/30 * * * *", or with ` +
      `seconds first "*/30 * * * * *")`
    );
  }
}

/** Enough runs (at most 60 a minute) to pass a whole minute of the pattern and into its next. A pattern running at
 * most 121 times a cycle (an hour, a day, a week) is seen over a whole cycle; one running more often (every 15 s of
 * working hours) over its first runs of the week only, its longest gap (the night) unseen. */
const GAP_RUNS = 2 * 60 + 2;

/** Where the runs measured start: a fixed Monday midnight, so a pattern's gaps are the same whenever it is read (read
 * from now, "0,5 * * * * *" at second 2 runs at :05 and :00, 55 s apart, and at second 7 at :00 and :05). */
const GAPS_FROM = new Date(2024, 0, 1);

/** The times between a pattern's runs from GAPS_FROM on. Throws on a bad pattern. */
function runGapsMs(pattern: string): number[] {
  const probe = new Cron(pattern, { paused: true });
  const runs = probe.nextRuns(GAP_RUNS, GAPS_FROM).map((run) => run.getTime());
  probe.stop();
  return runs.slice(1).map((run, index) => run - runs[index]!);
}

/** The shortest time between two runs. */
export function shortestGapMs(schedule: Schedule): number {
  if (schedule.intervalSeconds !== undefined) return schedule.periodMs;
  return Math.min(schedule.periodMs, ...runGapsMs(schedule.pattern));
}
