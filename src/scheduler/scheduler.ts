import { Cron } from "croner";
import type { Clock } from "../clock.js";
import type { JobRunner } from "./job-runner.js";

/**
 * Runs each job of one target on its schedule: a poll's first run at once, a probe's one period later. A fixed
 * interval runs on the injectable clock, so tests can drive it; a croner pattern on croner's wall clock.
 */
export class Scheduler {
  /** Each runner scheduled, and what unschedules it. */
  private readonly scheduled = new Map<JobRunner, () => void>();
  private stopped = false;

  constructor(private readonly clock: Clock) {}

  /** Schedules a runner; resolves when its first run has ended (at once for a probe, whose first run waits). */
  add(runner: JobRunner): Promise<void> {
    if (this.stopped || this.scheduled.has(runner)) return Promise.resolve();
    const { pattern, intervalSeconds } = runner.schedule;
    if (intervalSeconds !== undefined) this.scheduled.set(runner, this.every(intervalSeconds * 1000, runner));
    else {
      const cron = new Cron(pattern, { protect: true, catch: true }, () => {
        if (!this.stopped) void runner.runOnSchedule();
      });
      this.scheduled.set(runner, () => cron.stop());
    }
    return runner.job.role === "poll" ? runner.run() : Promise.resolve();
  }

  /** Unschedules a runner; resolves once its run in flight has settled. */
  async remove(runner: JobRunner): Promise<void> {
    this.unschedule(runner);
    await runner.idle();
  }

  /** Stops scheduling; resolves once the runs still going have settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    const runners = [...this.scheduled.keys()];
    for (const runner of runners) this.unschedule(runner);
    await Promise.all(runners.map((runner) => runner.idle()));
  }

  private unschedule(runner: JobRunner): void {
    this.scheduled.get(runner)?.();
    this.scheduled.delete(runner);
  }

  /**
   * Ticks every `intervalMs` from now, in phase; a tick while the last run is still going joins it,
   * and ticks missed while the process was stalled are skipped, not run back to back. Returns the cancel.
   */
  private every(intervalMs: number, runner: JobRunner): () => void {
    let dueMs = this.clock.now();
    let timer: unknown;
    const arm = () => {
      dueMs += intervalMs;
      const lateMs = this.clock.now() - dueMs;
      if (lateMs > 0) dueMs += Math.ceil(lateMs / intervalMs) * intervalMs;
      timer = this.clock.setTimeout(() => {
        arm();
        void runner.runOnSchedule();
      }, dueMs - this.clock.now());
    };
    arm();
    return () => this.clock.clearTimeout(timer);
  }
}
