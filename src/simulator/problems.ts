/**
 * Horizon's problem+json bodies, with the exact wording of Horizon's sources
 * (see the `error-*-horizon-src.json` captures). Field order is Horizon's:
 * type, title, status, detail, extras; extras keys sorted as Go sorts map keys.
 */

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  extras?: Record<string, unknown>;
}

const PROBLEM_TYPE_PREFIX = "https://stellar.org/horizon-errors/";

function problem(slug: string, title: string, status: number, detail: string): Problem {
  return { type: PROBLEM_TYPE_PREFIX + slug, title, status, detail };
}

export const NOT_FOUND = problem(
  "not_found",
  "Resource Missing",
  404,

  "The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url " +
    "requested is not valid, or no data in our database could be found with the parameters provided.",
);

const BAD_REQUEST = problem("bad_request", "Bad Request", 400, "The request you sent was invalid in some way.");

export const BEFORE_HISTORY = problem(
  "before_history",
  "Data Requested Is Before Recorded History",
  410,

  "This horizon instance is configured to only track a portion of the stellar network's latest history. This " +
    "request is asking for results prior to the recorded history known to this horizon instance.",
);

export const RATE_LIMIT_EXCEEDED = problem(
  "rate_limit_exceeded",
  "Rate Limit Exceeded",
  429,

  "The rate limit for the requesting IP address is over its alloted limit.  The allowed limit and requests " +
    "left per time period are communicated to clients via the http response headers 'X-RateLimit-*' headers.",
);

export const SERVER_ERROR = problem(
  "server_error",
  "Internal Server Error",
  500,

  "An error occurred while processing this request.  This is usually due to a bug within the server software.  " +
    "Trying this request again may succeed if the bug is transient. Otherwise, please contact the system " +
    "administrator.",
);

export const TIMEOUT = problem(
  "timeout",
  "Timeout",
  504,

  "Your request timed out before completing.  Please try your request again. If you are submitting a " +
    "transaction make sure you are sending exactly the same transaction (with the same sequence number).",
);

/** A bad request with a detail of its own and no extras (path finding's "assets or account" problems). */
export function badRequest(detail: string): Problem {
  return { ...BAD_REQUEST, detail };
}

/** Go's `problem.MakeInvalidFieldProblem(field, reason)`. */
export function invalidField(field: string, reason: string): Problem {
  return { ...BAD_REQUEST, extras: { invalid_field: field, reason } };
}

/** A failed request: thrown by parsing and lookups, rendered by the HTTP layer. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
    this.name = "ProblemError";
  }
}
