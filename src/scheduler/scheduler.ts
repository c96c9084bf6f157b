import { Cron } from "croner";
import type { Clock } from "../clock.js";
import type { JobRunner } from "./job-runner.js";

interface Scheduled {
  readonly cron?: Cron;
  timer?: unknown;
}

/**
 * Runs each job of one target on its schedule: a poll's first run at once, a probe's one period later. A fixed
 * interval runs on the injectable clock, so tests can drive it; a croner pattern on croner's wall clock.
 */
export class Scheduler {
  private readonly scheduled = new Map<JobRunner, Scheduled>();
  private stopped = false;

  constructor(private readonly clock: Clock) {}

  /** Schedules a runner; resolves when its first run has ended (at once for a probe, whose first run waits). */
  add(runner: JobRunner): Promise<void> {
    if (this.stopped || this.scheduled.has(runner)) return Promise.resolve();
    const { pattern, intervalSeconds } = runner.schedule;
    if (intervalSeconds !== undefined) {
      const entry: Scheduled = {};
      this.scheduled.set(runner, entry);
      this.every(intervalSeconds * 1000, runner, entry);
    } else {
      const cron = new Cron(pattern, { protect: true, catch: true }, () => {
        if (!this.stopped) void runner.runOnSchedule();
      });
      this.scheduled.set(runner, { cron });
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
    const entry = this.scheduled.get(runner);
    if (entry === undefined) return;
    this.scheduled.delete(runner);
    entry.cron?.stop();
    this.clock.clearTimeout(entry.timer);
  }

  /**
   * Ticks every `intervalMs` from now, in phase; a tick while the last run is still going joins it,
   * and ticks missed while the process was stalled are skipped, not run back to back.
   */
  private every(intervalMs: number, runner: JobRunner, entry: Scheduled): void {
    let dueMs = this.clock.now();
    const arm = () => {
      dueMs += intervalMs;
      const lateMs = this.clock.now() - dueMs;
      if (lateMs > 0) dueMs += Math.ceil(lateMs / intervalMs) * intervalMs;
      entry.timer = this.clock.setTimeout(() => {
        if (this.scheduled.get(runner) !== entry) return;
        arm();
        void runner.runOnSchedule();
      }, dueMs - this.clock.now());
    };
    arm();
  }
}
