import { Cron } from "croner";
import type { Clock } from "../clock.js";
import type { JobRunner } from "./job-runner.js";

/**
 * Ticks a runner on its schedule until the function returned is called. A fixed interval runs on the injectable clock,
 * so tests can drive it; a croner pattern on croner's wall clock.
 */
export function schedule(runner: Pick<JobRunner, "schedule" | "runOnSchedule">, clock: Clock): () => void {
  const { pattern, intervalSeconds } = runner.schedule;
  if (intervalSeconds === undefined) {
    const cron = new Cron(pattern, { protect: true, catch: true }, () => void runner.runOnSchedule());
    return () => cron.stop();
  }
  // In phase from now; a tick while the last run is still going joins it, and ticks missed while the process was
  // stalled are skipped, not run back to back.
  const intervalMs = intervalSeconds * 1000;
  let dueMs = clock.now();
  let timer: unknown;
  const arm = () => {
    dueMs += intervalMs;
    const lateMs = clock.now() - dueMs;
    if (lateMs > 0) dueMs += Math.ceil(lateMs / intervalMs) * intervalMs;
    timer = clock.setTimeout(() => {
      arm();
      void runner.runOnSchedule();
    }, dueMs - clock.now());
  };
  arm();
  return () => clock.clearTimeout(timer);
}
