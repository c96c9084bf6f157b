/** Horizon's rate-limit headers; any of them may be missing. */
export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  /** Seconds until the rate-limit window resets (X-Ratelimit-Reset). */
  resetSeconds?: number;
  /** Seconds to wait before the next request (Retry-After, as seconds or an HTTP date). */
  retryAfterSeconds?: number;
}

function nonNegativeNumber(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const parsed = Number(value.trim());
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

function retryAfterSeconds(value: string | null, nowMs: number): number | undefined {
  const seconds = nonNegativeNumber(value);
  if (seconds !== undefined || value === null) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}

/** `Headers` lookups are case-insensitive, which real proxies (X-RateLimit-*) rely on. */
export function parseRateLimitHeaders(headers: Headers, nowMs = Date.now()): RateLimitHeaders {
  const result: RateLimitHeaders = {};
  const limit = nonNegativeNumber(headers.get("x-ratelimit-limit"));
  const remaining = nonNegativeNumber(headers.get("x-ratelimit-remaining"));
  const resetSeconds = nonNegativeNumber(headers.get("x-ratelimit-reset"));
  const retryAfter = retryAfterSeconds(headers.get("retry-after"), nowMs);
  if (limit !== undefined) result.limit = limit;
  if (remaining !== undefined) result.remaining = remaining;
  if (resetSeconds !== undefined) result.resetSeconds = resetSeconds;
  if (retryAfter !== undefined) result.retryAfterSeconds = retryAfter;
  return result;
}

/**
 * How long to send nothing more to this Horizon: Retry-After when given, else the window reset
 * when no request is left in it, else nothing.
 */
export function holdOffSeconds(headers: RateLimitHeaders, status: number): number | undefined {
  if (headers.retryAfterSeconds !== undefined) return headers.retryAfterSeconds;
  if (headers.remaining === 0 && headers.resetSeconds !== undefined) return headers.resetSeconds;
  return status === 429 ? DEFAULT_429_HOLD_OFF_SECONDS : undefined;
}

/** A 429 that says nothing about when to come back still must not be retried at once. */
const DEFAULT_429_HOLD_OFF_SECONDS = 30;
