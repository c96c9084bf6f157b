import { scrubSecrets } from "../config/secret.js";

/**
 * What the process writes about a promise rejected with no handler: an error's stack (its message
 * and where it was thrown, and its cause's), anything else as text; secrets masked, as in every log line.
 */
export function describeRejection(reason: unknown): string {
  let text = reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
  if (reason instanceof Error && reason.cause !== undefined) text += `\nCaused by: ${describeRejection(reason.cause)}`;
  return scrubSecrets(text);
}
