import type { ContentCoding } from "../exposition/store.js";

/** Quality of each coding an Accept-Encoding header names; `*` stands for every other one. */
function qualities(header: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const element of header.split(",")) {
    const [coding, ...parameters] = element.split(";").map((part) => part.trim().toLowerCase());
    if (!coding) continue;
    let quality = 1;
    for (const parameter of parameters) {
      const match = /^q\s*=\s*([01](?:\.\d{0,3})?)$/.exec(parameter);
      if (match) quality = Number(match[1]);
    }
    // x-gzip is gzip's old name (RFC 9110 §8.4.1.3).
    found.set(coding === "x-gzip" ? "gzip" : coding, quality);
  }
  return found;
}

/** The coding to answer with (RFC 9110 §12.5.3): gzip when accepted and not less preferred than identity, else
 * identity unless ruled out (`identity;q=0`, or `*;q=0` without an identity entry); undefined for a 406.
 * Without the header, identity: clients that cannot decode gzip (curl without --compressed) send none. */
export function negotiateContentCoding(header: string | undefined): ContentCoding | undefined {
  if (header === undefined) return "identity";
  const accepted = qualities(header);
  const wildcard = accepted.get("*");
  const gzip = accepted.get("gzip") ?? wildcard ?? 0;
  // Unnamed, identity is acceptable but preferred least.
  const identity = accepted.get("identity") ?? wildcard;
  if (gzip > 0 && (identity === undefined || gzip >= identity)) return "gzip";
  return identity === undefined || identity > 0 ? "identity" : undefined;
}
