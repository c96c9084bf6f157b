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

/** Enough runs (at most 60 a minute) to pass a whole minute of the pattern and into its next, from any second. A
 * pattern running at most 121 times a cycle (an hour, a day, a week) is seen over a whole cycle, whenever it is read;
 * one running more often (every minute of working hours) over its next runs only, its longest gap maybe unseen. */
const GAP_RUNS = 2 * 60 + 2;

/** The times between a pattern's next runs: its first two depend on the second it is read at ("0,5 * * * * *" read
 * at second 2 runs at :05 and :00, 55 s apart), so its gaps are measured over its next runs. Throws on a bad one. */
function runGapsMs(pattern: string): number[] {
  const probe = new Cron(pattern, { paused: true });
  const runs = probe.nextRuns(GAP_RUNS).map((run) => run.getTime());
  probe.stop();
  return runs.slice(1).map((run, index) => run - runs[index]!);
}

/** The shortest time between two runs. */
export function shortestGapMs(schedule: Schedule): number {
  if (schedule.intervalSeconds !== undefined) return schedule.periodMs;
  return Math.min(schedule.periodMs, ...runGapsMs(schedule.pattern));
}
