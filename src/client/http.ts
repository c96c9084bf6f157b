import { createFetch, FetchError, type $Fetch } from "ofetch";
import type { Logger } from "pino";
import type { z } from "zod";
import { systemClock, type Clock } from "../clock.js";
import { revealedValues } from "../config/secret.js";
import type { TargetBasics } from "../config/targets.js";
import { excerpt, PollError, isTransient } from "./errors.js";
import { MAIN_THREAD_MAX_CHARS, parseJson } from "./json-parse.js";
import { holdOffSeconds, parseRateLimitHeaders, type RateLimitHeaders } from "./rate-limit.js";
import { problemSchema } from "./schemas.js";
import { textOf, transportFetch } from "./transport.js";

/** Receives what every HTTP attempt did, for the exporter's self-metrics. */
export interface RequestObserver<E extends string> {
  /** `code` is the HTTP status, or "error" when no response arrived. */
  onRequest(endpoint: E, code: string, durationSeconds: number): void;
  onRateLimitHeaders(headers: RateLimitHeaders): void;
  /** The server asked for a hold longer than the cap, and got the cap. */
  onHoldCapped?(): void;
}

export interface HttpOptions<E extends string> {
  /** May carry credentials: they travel as Basic auth and never reach a logged URL. */
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** Per attempt, body read included. */
  timeoutMs: number;
  /** Further attempts after a transient failure (timeout, network, 5xx, unparseable body). */
  retries: number;
  retryBaseDelayMs?: number;
  maxBodyBytes: number;
  observer?: RequestObserver<E>;
  /** Aborts in-flight requests and retry waits at shutdown. */
  signal?: AbortSignal;
  clock?: Clock;
  /** The longest the server's headers may hold requests back: one absurd Retry-After must not silence a target. */
  maxHoldMs?: number;
  /** Shared with the clients that came before for the same target (Holds.of), else its own. */
  hold?: Hold;
  log?: Pick<Logger, "warn">;
}

type Freshness = { schedules: Readonly<Record<string, { readonly periodMs: number }>>; staleAfterIntervals: number };

/** A target's HTTP options from its own config, the exporter's, and what this runtime observes and stops it with. */
export function targetHttpOptions<E extends string>(
  target: Pick<TargetBasics, "url" | "headers" | "timeoutMs"> & Pick<Freshness, "schedules">,
  config: Pick<HttpOptions<E>, "retries" | "maxBodyBytes"> & Pick<Freshness, "staleAfterIntervals">,
  runtime: Pick<HttpOptions<E>, "observer" | "signal" | "clock" | "log" | "hold">,
): HttpOptions<E> {
  // The one place a target's secrets are revealed: to be sent, by the client that sends them.
  return {
    url: target.url.href.reveal(),
    headers: revealedValues(target.headers),
    timeoutMs: target.timeoutMs,
    retries: config.retries,
    maxBodyBytes: config.maxBodyBytes,
    maxHoldMs: maxHoldMsOf({ schedules: target.schedules, staleAfterIntervals: config.staleAfterIntervals }),
    ...runtime,
  };
}

const MAX_HOLD_MS = 3_600_000;
/** The longest the server may hold a target back: one hour, or the target's longest freshness window if longer. */
export function maxHoldMsOf({ schedules, staleAfterIntervals }: Freshness): number {
  const periods = Object.values(schedules).map((schedule) => schedule.periodMs);
  return Math.max(MAX_HOLD_MS, staleAfterIntervals * Math.max(0, ...periods));
}

/** A POST body, JSON or a form; requests without one are GETs. */
type RequestBody = { readonly json: string } | { readonly form: URLSearchParams };

/** One attempt; `signals` are shutdown's, the deadline of the poll or probe run that sent it, and a `once` deadline. */
type Attempt = { url: string; body: RequestBody | undefined; timeoutMs: number; signals: readonly AbortSignal[] };

/** What a server asked of a target's requests: to hold back until `untilMs`, and then to send one first. */
export class Hold {
  untilMs = 0;
  /** A hold was asked for and no request has been sent since it ended. */
  heldBack = false;
  /** The first request after a hold, until it has its answer: the others due wait for it. */
  reopening: Promise<unknown> | undefined;
}

/** Each target's hold while a client of it lives: a reload that rebuilds a target (new schedules) keeps holding back.
 * Keyed by the target's kind, URL and headers (any may be a credential); a hold no client holds is forgotten. */
export class Holds {
  private readonly byTarget = new Map<string, WeakRef<Hold>>();

  of(target: string): Hold {
    for (const [key, held] of this.byTarget) if (held.deref() === undefined) this.byTarget.delete(key);
    const hold = this.byTarget.get(target)?.deref() ?? new Hold();
    this.byTarget.set(target, new WeakRef(hold));
    return hold;
  }
}

/** Every upstream's courtesy: timeouts per attempt, jittered retries, a body cap, holding back when it asks to. */
export class CourteousHttp<E extends string> {
  /** The target URL without userinfo: its path and query may still hold a key, so it is never shown. */
  readonly url: URL;
  /** Sent, never logged or shown: any of them may be a credential. */
  private readonly headers: Readonly<Record<string, string>>;
  private readonly clock: Clock;
  private readonly hold: Hold;
  /** ofetch over the node:http transport, which caps each body at this target's limit as it arrives. */
  private readonly fetch: $Fetch;

  constructor(
    private readonly options: HttpOptions<E>,
    accept: string,
  ) {
    const url = new URL(options.url);
    // fetch refuses URLs with credentials; they travel as Basic auth instead.
    const userinfo = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`);
    const credentials = url.username || url.password ? { Authorization: `Basic ${userinfo.toString("base64")}` } : null;
    url.username = "";
    url.password = "";
    this.url = url;
    this.headers = { ...credentials, ...options.headers, Accept: accept };
    this.clock = options.clock ?? systemClock;
    this.hold = options.hold ?? new Hold();
    const { maxBodyBytes } = options;
    this.fetch = createFetch({
      fetch: ((input: string, init: RequestInit) => transportFetch(input, { ...init, maxBodyBytes })) as typeof fetch,
    });
  }

  /** A 2xx answer's JSON, after retries, else a PollError; `poll` aborts it and its retry waits at its deadline. */
  json(purpose: E, url: string, body: RequestBody | undefined, poll?: AbortSignal) {
    return this.request(purpose, { url, body, timeoutMs: this.options.timeoutMs }, [poll], this.options.retries);
  }

  /** One attempt, never retried, with its own timeout: for requests whose repetition the caller decides. The timeout
   * runs from now, a wait behind the first request after a hold included: the caller counts it as the request's
   * outcome (a corridor's `timeout`), which must come before its run's deadline. */
  async once(purpose: E, url: string, body: RequestBody | undefined, timeoutMs: number, poll?: AbortSignal) {
    const deadline = new AbortController();
    const timer = this.clock.setTimeout(() => deadline.abort(timedOutError(timeoutMs)), timeoutMs);
    try {
      return await this.request(purpose, { url, body, timeoutMs }, [poll, deadline.signal], 0);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** True while the server asked us to send nothing (Retry-After, exhausted rate limit). */
  holdingBack(): boolean {
    return this.hold.untilMs > this.clock.now();
  }

  /** Up to `retries` further attempts after a transient failure. */
  private async request(
    purpose: E,
    sent: Omit<Attempt, "signals">,
    polls: readonly (AbortSignal | undefined)[],
    retries: number,
  ) {
    const signals = [this.options.signal, ...polls].filter((signal) => signal !== undefined);
    for (let retry = 0; ; retry += 1) {
      try {
        return await parseJson(await this.answerText(purpose, { ...sent, signals }));
      } catch (error) {
        const failure = error instanceof PollError ? error : new PollError("internal", String(error));
        if (!isTransient(failure) || retry >= retries) throw failure;
        // Exponential backoff with full jitter, so retries from many exporters do not synchronise.
        await this.sleep(Math.random() * Math.min(5_000, (this.options.retryBaseDelayMs ?? 250) * 2 ** retry), signals);
        const aborted = signals.find((signal) => signal.aborted);
        if (aborted) throw abortReason(aborted, failure);
      }
    }
  }

  /** One attempt, unless the server asked to hold back. After a hold one request goes first: a server still limiting
   * then sees one request, not one from every endpoint due meanwhile. */
  private async answerText(purpose: E, attempt: Attempt): Promise<string> {
    while (this.hold.reopening !== undefined) {
      await settledOrAborted(this.hold.reopening, attempt.signals);
      const aborted = attempt.signals.find((signal) => signal.aborted);
      if (aborted) throw abortReason(aborted, new PollError("network", "aborted waiting for the server's answer"));
    }
    const waitMs = this.hold.untilMs - this.clock.now();
    if (waitMs > 0) {
      throw new PollError("rate_limited", `holding back for ${Math.ceil(waitMs / 1000)} s more, as the server asked`);
    }
    const answer = this.exchange(purpose, attempt);
    if (this.hold.heldBack) {
      this.hold.heldBack = false;
      // No answer (a timeout, an abort): the server has said nothing yet, and the next request goes first again.
      const reopening = answer.catch((error: PollError) => {
        if (error.reason === "timeout" || error.reason === "network") this.hold.heldBack = true;
      });
      this.hold.reopening = reopening;
      void reopening.then(() => {
        if (this.hold.reopening === reopening) this.hold.reopening = undefined;
      });
    }
    return answer;
  }

  /** The body of one attempt's 2xx answer, rate-limit headers noted and obeyed; else a PollError. */
  private async exchange(purpose: E, { url, body, timeoutMs, signals }: Attempt): Promise<string> {
    const { signal, release } = this.abortSignal(timeoutMs, signals);
    const started = performance.now();
    let code = "error";
    try {
      // ofetch's own retry and status errors stay off: retries here must share the poll's deadline
      // and Retry-After hold, and every failure must map to one of our poll-error reasons.
      const init = { ...postOf(body, this.headers), signal, retry: false, ignoreResponseError: true } as const;
      const response = await this.fetch.raw(url, init).catch((error: unknown) => {
        const aborted = signals.find((outer) => outer.aborted);
        // No outer signal aborted: this attempt's own signal aborts only when it times out.
        throw aborted ? abortReason(aborted, error) : classify(error, signal.aborted, timeoutMs);
      });
      const { status, headers } = response;
      code = String(status);
      // Past this point nothing travels: a failure is the answer's (a PollError) or a bug (internal).
      const text = textOf(response);
      const rateLimit = parseRateLimitHeaders(headers, this.clock.now());
      this.options.observer?.onRateLimitHeaders(rateLimit);
      const askedSeconds = holdOffSeconds(rateLimit, status);
      if (askedSeconds !== undefined) this.holdBack(askedSeconds);
      if (status < 200 || status >= 300) throw httpError(status, text);
      return text;
    } catch (error) {
      throw error instanceof PollError
        ? error
        : new PollError("internal", `reading the answer failed: ${String(error)}`);
    } finally {
      release();
      this.options.observer?.onRequest(purpose, code, (performance.now() - started) / 1000);
    }
  }

  /** Holds requests back for what the server asked, at most the cap (counted, and logged once per hold). */
  private holdBack(askedSeconds: number): void {
    const nowMs = this.clock.now();
    const maxHoldMs = this.options.maxHoldMs ?? MAX_HOLD_MS;
    if (askedSeconds * 1000 > maxHoldMs) {
      this.options.observer?.onHoldCapped?.();
      if (this.hold.untilMs <= nowMs) {
        this.options.log?.warn(
          { askedSeconds, heldSeconds: maxHoldMs / 1000 },
          "the server asked to hold requests back for longer than the cap; holding back for the cap",
        );
      }
    }
    this.hold.untilMs = Math.max(this.hold.untilMs, nowMs + Math.min(askedSeconds * 1000, maxHoldMs));
    this.hold.heldBack = true;
  }

  /** A fresh signal per attempt or wait (one timed out must not doom the next): timeout, shutdown or poll deadline. */
  private abortSignal(timeoutMs: number, outer: readonly AbortSignal[]) {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(
      () => controller.abort(new DOMException("request timed out", "TimeoutError")),
      timeoutMs,
    );
    // Not AbortSignal.any: Node keeps each composite listed on the long-lived shutdown signal.
    const onAbort = (event: Event) => controller.abort((event.target as AbortSignal).reason);
    for (const signal of outer) {
      if (signal.aborted) controller.abort(signal.reason);
      else signal.addEventListener("abort", onAbort, { once: true });
    }
    return {
      signal: controller.signal,
      release: () => {
        this.clock.clearTimeout(timer);
        for (const signal of outer) signal.removeEventListener("abort", onAbort);
      },
    };
  }

  private async sleep(ms: number, signals: readonly AbortSignal[]): Promise<void> {
    const { signal, release } = this.abortSignal(ms, signals);
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    release();
  }
}

/** Validates a response body; a mismatch is a counted `schema` failure naming where it broke. */
export function validated<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  throw new PollError("schema", `response does not match ${what} schema${where}: ${issue?.message ?? "invalid"}`);
}

function postOf(body: RequestBody | undefined, headers: Readonly<Record<string, string>>) {
  if (body === undefined) return { headers };
  const [text, type] =
    "json" in body ? [body.json, "application/json"] : [body.form.toString(), "application/x-www-form-urlencoded"];
  return { method: "POST", body: text, headers: { ...headers, "Content-Type": type } };
}

function httpError(status: number, text: string): PollError {
  const reason = status === 429 ? "rate_limited" : status >= 500 ? "http_5xx" : "http_4xx";
  const problem = parseProblem(text);
  const description = excerpt(problem ? `${problem.title}${problem.detail ? `: ${problem.detail}` : ""}` : text);
  return new PollError(reason, `HTTP ${status}: ${description}`, problem ? { status, problem } : { status });
}

/** A problem document is small: a larger error body is shown, never parsed on the event loop. */
function parseProblem(text: string) {
  if (text.length > MAIN_THREAD_MAX_CHARS) return undefined;
  try {
    return problemSchema.safeParse(JSON.parse(text)).data;
  } catch {
    return undefined;
  }
}

/** Resolves when `promise` settles or one of `signals` aborts, whichever comes first. */
function settledOrAborted(promise: Promise<unknown>, signals: readonly AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const signal of signals) signal.removeEventListener("abort", done);
      resolve();
    };
    for (const signal of signals) signal.addEventListener("abort", done, { once: true });
    if (signals.some((signal) => signal.aborted)) done();
    promise.then(done, done);
  });
}

/** Why an aborted request failed: the poll's or the request's deadline error, else a shutdown. */
function abortReason(signal: AbortSignal, cause: unknown): PollError {
  if (signal.reason instanceof PollError) return signal.reason;
  return cause instanceof PollError ? cause : new PollError("network", "aborted at shutdown");
}

const timedOutError = (timeoutMs: number) => new PollError("timeout", `no complete response within ${timeoutMs} ms`);

function classify(error: unknown, timedOut: boolean, timeoutMs: number): PollError {
  // ofetch wraps what the transport throws, its own verdicts (a body over the cap) included.
  const cause = error instanceof FetchError ? (error.cause ?? error) : error;
  if (cause instanceof PollError) return cause;
  if (timedOut) return timedOutError(timeoutMs);
  if (!(cause instanceof Error)) return new PollError("network", String(cause));
  const { code, message } = cause as NodeJS.ErrnoException;
  return new PollError("network", code && !message.includes(code) ? `${code}: ${message}` : message);
}
