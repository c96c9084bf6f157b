import type { Clock } from "../../src/clock.js";

interface Timer {
  readonly dueMs: number;
  readonly callback: () => void;
}

/** A clock that moves only when told; due timers fire in order, each followed by a turn of the event loop. */
export class ManualClock implements Clock {
  private timers = new Set<Timer>();

  constructor(private nowMs = Date.now()) {}

  now(): number {
    return this.nowMs;
  }

  /** Timers set and neither fired nor cleared: what is still scheduled on this clock. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { dueMs: this.nowMs + Math.max(0, ms), callback };
    this.timers.add(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as Timer);
  }

  /** Moves time forward without firing anything, as a blocked event loop would; the late timers fire on the next advance. */
  stall(ms: number): void {
    this.nowMs += ms;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, timers they set included. */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    for (;;) {
      const next = [...this.timers].filter((timer) => timer.dueMs <= target).sort((a, b) => a.dueMs - b.dueMs)[0];
      if (next === undefined) break;
      this.timers.delete(next);
      this.nowMs = Math.max(this.nowMs, next.dueMs);
      next.callback();
      await new Promise((done) => setImmediate(done));
    }
    this.nowMs = target;
  }
}
