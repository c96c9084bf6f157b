/** Horizon's rate-limit headers; any of them may be missing. */
export type RateLimitHeaders = Partial<ReturnType<typeof parseRateLimitHeaders>>;

function nonNegativeNumber(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const parsed = Number(value.trim());
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/** Seconds from now until the time a header names: as seconds, as a Unix epoch or as an HTTP date. */
function secondsUntil(value: string | null, nowMs: number): number | undefined {
  const seconds = nonNegativeNumber(value);
  // From 1e9 on, seconds are a Unix epoch (2001-09-09 on), as proxies send X-RateLimit-Reset: no wait is 31 years.
  if (seconds !== undefined) return seconds < 1e9 ? seconds : Math.max(0, seconds - nowMs / 1000);
  // An HTTP date names its day and month; Date.parse would take "-5" for a year.
  if (value === null || !/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}

/** `Headers` lookups are case-insensitive, which real proxies (X-RateLimit-*) rely on. */
export function parseRateLimitHeaders(headers: Headers, nowMs = Date.now()) {
  return {
    limit: nonNegativeNumber(headers.get("x-ratelimit-limit")),
    remaining: nonNegativeNumber(headers.get("x-ratelimit-remaining")),
    /** Seconds until the rate-limit window resets. */
    resetSeconds: secondsUntil(headers.get("x-ratelimit-reset"), nowMs),
    /** Seconds to wait before the next request. */
    retryAfterSeconds: secondsUntil(headers.get("retry-after"), nowMs),
  };
}

// How long the server asks us to send nothing: Retry-After on a 429 or a 503 (the statuses it is defined for), else
// the window reset when no request is left in it; a 429 that says neither must still not be retried at once.
export function holdOffSeconds(headers: RateLimitHeaders, status: number): number | undefined {
  if (headers.retryAfterSeconds !== undefined && (status === 429 || status === 503)) return headers.retryAfterSeconds;
  if (headers.remaining === 0 && headers.resetSeconds !== undefined) return headers.resetSeconds;
  return status === 429 ? 30 : undefined;
}
