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
  /** Typical time between polls; freshness is measured in multiples of it. */
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
    const probe = new Cron(text, { paused: true });
    const [first, second] = probe.nextRuns(2);
    probe.stop();
    if (!first || !second) return `croner pattern "${text}" never runs twice`;
    return { text, pattern: text, periodMs: second.getTime() - first.getTime() };
  } catch {
    return (
      `"${text}" is neither a duration (whole seconds: 15s, 1m30s) nor a cron pattern ("*/30 * * * *", or with ` +
      `seconds first "*/30 * * * * *")`
    );
  }
}

/** Enough runs (at most 60 a minute) to pass a whole minute of the pattern and into its next, from any second. */
const GAP_RUNS = 2 * 60 + 2;

/** The shortest time between two runs: a cron pattern's first two runs depend on the second it is read at ("0,5 * * *
 * * *" read at second 2 runs at :05 and :00, 55 s apart), so its gaps are measured over its next runs. */
export function shortestGapMs(schedule: Schedule): number {
  if (schedule.intervalSeconds !== undefined) return schedule.periodMs;
  const probe = new Cron(schedule.pattern, { paused: true });
  const runs = probe.nextRuns(GAP_RUNS).map((run) => run.getTime());
  probe.stop();
  let shortest = schedule.periodMs;
  for (let index = 1; index < runs.length; index += 1) shortest = Math.min(shortest, runs[index]! - runs[index - 1]!);
  return shortest;
}
