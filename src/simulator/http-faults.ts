/**
 * HTTP-level behaviour that is not about data: Horizon's rate-limit headers, the
 * failures of a flapping deployment, and requests that hang.
 */

import type { Rng } from "./rng.js";

/** A burst of 100 requests, advertised as 101 the way Horizon's rate limiter does. */
const RATE_LIMIT = 101;
/**
 * 100 requests per second: a private deployment's quota (`--per-hour-rate-limit=360000`),
 * so benchmarks paging thousands of pools do not see an exhausted quota they are never denied for.
 */
const TOKEN_REFILL_MS = 10;
/** The hourly request budget that quota allows, for exporters polling the simulator. */
export const SIMULATOR_REQUESTS_PER_HOUR = 3_600_000 / TOKEN_REFILL_MS;
/** Under `rate_limited` the quota is exhausted until the next window of this length starts. */
const RATE_LIMITED_WINDOW_SECONDS = 60;

export interface RateLimitHeaders {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the quota is whole again. */
  readonly resetSeconds: number;
  /** Only when the request is denied: seconds to wait before retrying. */
  readonly retryAfterSeconds?: number;
}

/**
 * A token bucket like Horizon's (throttled's GCRA). It only reports: outside the
 * `rate_limited` scenario requests are never denied, so benchmarks and tests can
 * page quickly without tripping it.
 */
export class RateLimitBucket {
  #tokens = RATE_LIMIT;
  #updatedAtMs: number | undefined;

  consume(nowMs: number): RateLimitHeaders {
    const elapsed = this.#updatedAtMs === undefined ? 0 : Math.max(0, nowMs - this.#updatedAtMs);
    this.#tokens = Math.min(RATE_LIMIT, this.#tokens + elapsed / TOKEN_REFILL_MS);
    this.#updatedAtMs = nowMs;
    this.#tokens = Math.max(0, this.#tokens - 1);
    const remaining = Math.floor(this.#tokens);
    return {
      limit: RATE_LIMIT,
      remaining,
      resetSeconds: Math.ceil(((RATE_LIMIT - this.#tokens) * TOKEN_REFILL_MS) / 1000),
    };
  }
}

/** Headers of a denied request: nothing left until the current window ends. */
export function exhaustedQuota(nowMs: number): RateLimitHeaders {
  const secondsIntoWindow = Math.floor(nowMs / 1000) % RATE_LIMITED_WINDOW_SECONDS;
  const waitSeconds = RATE_LIMITED_WINDOW_SECONDS - secondsIntoWindow;
  return { limit: RATE_LIMIT, remaining: 0, resetSeconds: waitSeconds, retryAfterSeconds: waitSeconds };
}

/** How a flapping Horizon fails a request. */
const FAULTS = ["server_error", "timeout", "over_capacity", "hang"] as const;
export type Fault = (typeof FAULTS)[number];

/** Half the requests fail, the failure kinds equally likely. */
export function drawFault(rng: Rng): Fault | undefined {
  return rng.chance(0.5) ? rng.pick(FAULTS) : undefined;
}

/** How long a hanging request stays unanswered. */
const HANG_MS = 60_000;

/** Requests deliberately left unanswered; each ends on timeout, client disconnect or `releaseAll`. */
export class HangingRequests {
  readonly #release = new Set<() => void>();

  get count(): number {
    return this.#release.size;
  }

  /** Resolves with true if the hang ran its full course, false if it was cut short. */
  hold(clientGone: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (completed: boolean): void => {
        clearTimeout(timer);
        clientGone.removeEventListener("abort", onAbort);
        this.#release.delete(release);
        resolve(completed);
      };
      const release = (): void => finish(false);
      const onAbort = (): void => finish(false);
      const timer = setTimeout(() => finish(true), HANG_MS);
      this.#release.add(release);
      clientGone.addEventListener("abort", onAbort, { once: true });
      if (clientGone.aborted) finish(false);
    });
  }

  releaseAll(): void {
    for (const release of [...this.#release]) release();
  }
}
