import type { PollErrorReason } from "../catalog/metrics.js";
import { scrubbedStart, scrubSecrets } from "../config/secret.js";
import type { Problem } from "./schemas.js";

/** Why a request to a target, or a poll or probe run built from requests, failed; `reason` is the metric label. */
export class PollError extends Error {
  override readonly name = "PollError";

  constructor(
    readonly reason: PollErrorReason,
    message: string,
    readonly details: { status?: number; problem?: Problem } = {},
  ) {
    // A server may echo what it was asked (the URL and its key, a header) in its error page.
    super(scrubSecrets(message));
  }
}

/** A Horizon problem's type after its last `/` (`not_found`, `transaction_failed`), whatever URL prefixes it; undefined
 * when the answer was no problem document (a proxy's page). */
export function problemType(error: PollError): string | undefined {
  return error.details.problem?.type.split("/").pop();
}

/** Whether Horizon itself said the thing asked for does not exist: its `not_found` problem with a 404. A proxy's or
 * gateway's 404 page says nothing of the thing, and is an error like any other. */
export function isNotFound(error: unknown): error is PollError {
  return error instanceof PollError && error.details.status === 404 && problemType(error) === "not_found";
}

/** Reasons worth another attempt inside the same poll: the next try may well succeed. */
export function isTransient(error: PollError): boolean {
  return ["timeout", "network", "http_5xx", "invalid_json"].includes(error.reason);
}

/** A short, single-line view of a non-JSON body: the <title> of an HTML page, else its start; secrets masked before
 * it is cut, so none shows in part. */
export function excerpt(text: string): string {
  // Only the first 4 KiB, where a page's title is: the regex backtracks quadratically over repeated `<title`.
  const start = scrubbedStart(text.trimStart(), 4096);
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(start)?.[1];
  const flat = (title ?? start).replace(/\s+/g, " ").trim();
  if (flat === "") return "empty body";
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}
