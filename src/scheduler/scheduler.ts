import { Cron } from "croner";
import type { PollEndpoint } from "../catalog/metrics.js";
import type { Clock } from "../clock.js";
import type { EndpointPoller } from "./endpoint-poller.js";

/**
 * Runs each poller on its schedule; the first poll of each runs at once. A fixed interval runs on
 * the injectable clock, so tests can drive it; a croner pattern runs on croner's wall clock.
 */
export class Scheduler {
  private readonly jobs: Cron[] = [];
  private readonly timers = new Set<unknown>();
  private stopped = false;

  constructor(
    private readonly pollers: readonly EndpointPoller<PollEndpoint>[],
    private readonly clock: Clock,
  ) {}

  /** Starts every schedule; resolves when every first poll has finished, successfully or not. */
  start(): Promise<void> {
    for (const poller of this.pollers) {
      const { pattern, intervalSeconds } = poller.schedule;
      if (intervalSeconds !== undefined) this.every(intervalSeconds * 1000, poller);
      else this.jobs.push(new Cron(pattern, { protect: true, catch: true }, () => poller.runOnSchedule()));
    }
    return Promise.all(this.pollers.map((poller) => poller.run())).then(() => undefined);
  }

  /** Stops scheduling; resolves once the polls still running have settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs.splice(0)) job.stop();
    for (const timer of this.timers) this.clock.clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.pollers.map((poller) => poller.idle()));
  }

  /**
   * Ticks every `intervalMs` from now, in phase; a tick while the last poll still runs joins it,
   * and ticks missed while the process was stalled are skipped, not run back to back.
   */
  private every(intervalMs: number, poller: EndpointPoller<PollEndpoint>): void {
    let dueMs = this.clock.now();
    const arm = () => {
      dueMs += intervalMs;
      const lateMs = this.clock.now() - dueMs;
      if (lateMs > 0) dueMs += Math.ceil(lateMs / intervalMs) * intervalMs;
      const timer = this.clock.setTimeout(() => {
        this.timers.delete(timer);
        if (this.stopped) return;
        arm();
        void poller.runOnSchedule();
      }, dueMs - this.clock.now());
      this.timers.add(timer);
    };
    arm();
  }
}
