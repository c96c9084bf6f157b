import { scrubSecrets } from "../config/secret.js";

/** An unhandled rejection as written to stderr: an error's stack, and its cause's; secrets masked as in every log. */
export function describeRejection(reason: unknown): string {
  let text = reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
  if (reason instanceof Error && reason.cause !== undefined) text += `\nCaused by: ${describeRejection(reason.cause)}`;
  return scrubSecrets(text);
}
