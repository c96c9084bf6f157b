import { Cron } from "croner";
import type { PollEndpoint } from "../catalog/metrics.js";
import type { EndpointPoller } from "./endpoint-poller.js";

/** One croner job per target and endpoint; the first poll of each runs at once. */
export class Scheduler {
  private readonly jobs: Cron[] = [];

  constructor(private readonly pollers: readonly EndpointPoller<PollEndpoint>[]) {}

  /** Starts every job; resolves when every first poll has finished, successfully or not. */
  start(): Promise<void> {
    for (const poller of this.pollers) {
      const { pattern, intervalSeconds } = poller.schedule;
      // The first poll runs right now, so an interval job's first scheduled run is one interval away.
      const interval = intervalSeconds ? { interval: intervalSeconds, startAt: new Date(Date.now() + intervalSeconds * 1000) } : {};
      this.jobs.push(new Cron(pattern, { protect: true, catch: true, ...interval }, () => poller.runOnSchedule()));
    }
    return Promise.all(this.pollers.map((poller) => poller.run())).then(() => undefined);
  }

  /** Stops scheduling; resolves once the polls still running have settled. */
  async stop(): Promise<void> {
    for (const job of this.jobs.splice(0)) job.stop();
    await Promise.all(this.pollers.map((poller) => poller.idle()));
  }
}
