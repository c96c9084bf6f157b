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
    return { text, pattern: text, periodMs: Math.max(...gaps, longestGapMs(text)) };
  } catch {
    return (
      `"${text}" is neither a duration (whole seconds: 15s, 1m30s) nor a cron pattern ("*/30 * * * *", or with ` +
      `seconds first "*/30 * * * * *")`
    );
  }
}

/** Enough runs (at most 60 a minute) to pass a whole minute of the pattern and into its next; a pattern running at
 * most 121 times a cycle (a month, a year, four years for 29 February) is seen over a whole cycle. */
const GAP_RUNS = 2 * 60 + 2;

/** Days longestGapMs checks: a weekly pattern's week many times over, a monthly or yearly one's into its next cycle. */
const GAP_DAYS = 400;

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

/** The longest time between two runs, however often the pattern runs (every 15 s of working hours: the weekend), from
 * ~600 checks rather than its runs. A pattern runs on the same seconds of each minute it runs on, the same minutes of
 * each hour, the same hours of each day: the longest gap is one between neighbours at one of these levels, less the
 * span of the levels below; 0 if it runs one day. Read in UTC, whose days are all 24 h: a local 02:30 on the day clocks
 * spring forward would read as 03:30, as if that day had no run, and a daily pattern's period would double. */
function longestGapMs(pattern: string): number {
  const cron = new Cron(pattern, { paused: true, utcOffset: 0 });
  const first = cron.nextRun(new Date(Date.UTC(2024, 0, 1)));
  if (first === null) return 0;
  const [year, month, day] = [first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate()];
  const runsAt = (days: number, hour: number, minute: number, second: number) =>
    cron.match(new Date(Date.UTC(year, month, day + days, hour, minute, second)));
  const matching = (count: number, matches: (value: number) => boolean) =>
    Array.from({ length: count }, (_, value) => value).filter(matches);
  const seconds = matching(60, (second) => runsAt(0, first.getUTCHours(), first.getUTCMinutes(), second));
  const minutes = matching(60, (minute) => runsAt(0, first.getUTCHours(), minute, seconds[0]!));
  const hours = matching(24, (hour) => runsAt(0, hour, minutes[0]!, seconds[0]!));
  const days = matching(GAP_DAYS, (days) => runsAt(days, hours[0]!, minutes[0]!, seconds[0]!));
  cron.stop();
  let span = 0;
  let longest = 0;
  const levels = [
    [1, seconds],
    [60, minutes],
    [3_600, hours],
    [86_400, days],
  ] as const;
  for (const [unit, values] of levels) {
    for (let index = 1; index < values.length; index += 1)
      longest = Math.max(longest, (values[index]! - values[index - 1]!) * unit - span);
    span += (values.at(-1)! - values[0]!) * unit;
  }
  return longest * 1000;
}

/** The shortest time between two runs. */
export function shortestGapMs(schedule: Schedule): number {
  if (schedule.intervalSeconds !== undefined) return schedule.periodMs;
  return Math.min(schedule.periodMs, ...runGapsMs(schedule.pattern));
}
