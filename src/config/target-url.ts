/** A target's URL: hosted providers put API keys in userinfo, path or query, so only the origin is always shown. */
import { Secret } from "./secret.js";

/** A path segment with more letters and digits than this is taken for a token (API keys are 20 and up). */
const LONGEST_PUBLIC_SEGMENT = 16;
const HIDDEN_PATH = "/…";

export class TargetUrl {
  /** `host[:port]`: the default `horizon` and `rpc` label. */
  readonly host: string;
  readonly hostname: string;
  /** What pages, logs and errors show: the origin, and the path unless it may hold a token. */
  readonly display: string;
  /** The URL as given, userinfo, path and query included: only for sending requests. */
  readonly href: Secret;
  /** Userinfo, token path segments and query values: secrets on their own too, as a server may echo any of them. */
  readonly parts: readonly Secret[];

  /** `text` must be an absolute URL (the config schema checks it); `showPath` is the target's `show_path`. */
  constructor(text: string, showPath = false) {
    const url = new URL(text);
    this.host = url.host;
    this.hostname = url.hostname;
    this.display = `${url.origin}${showPath || pathIsPublic(url.pathname) ? url.pathname : HIDDEN_PATH}`;
    // Masked by its parts below: masked whole, a URL that holds no secret would hide its own display form.
    this.href = new Secret(text, text, { byParts: true });
    const userinfo = [url.username, url.password].map(decoded);
    // Node's http sends userinfo as `Authorization: Basic base64(user:password)`, which a server may echo too.
    const basic = url.username || url.password ? [Buffer.from(userinfo.join(":")).toString("base64")] : [];
    this.parts = [
      ...userinfo.filter((part) => part !== ""),
      ...basic,
      ...url.pathname.split("/").filter(isToken).map(decoded),
      ...url.searchParams.values(),
    ].map((part) => new Secret(part));
  }

  toString(): string {
    return this.display;
  }
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function pathIsPublic(path: string): boolean {
  return path === "/" || !path.split("/").some(isToken);
}

/** Letters and digits are counted across punctuation, so `8f14e45f-ceea-467f-...` is a token too. */
function isToken(segment: string): boolean {
  return (segment.match(/[A-Za-z0-9]/g)?.length ?? 0) > LONGEST_PUBLIC_SEGMENT;
}

/** A URL that failed validation, as an error message may show it: its scheme and host if readable, never the rest. */
export function describeInvalidUrl(text: string): string {
  // Without `//`, what precedes a colon may be a user name (`user:password@host`), not a scheme.
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1];
  if (scheme === undefined) return "the value (not shown: it may hold a secret)";
  const url = URL.parse(text);
  if (url === null) return `a ${scheme}:// value`;
  if (!url.host) return `a ${scheme}:// URL`;
  return `"${url.protocol}//${url.host}${pathIsPublic(url.pathname) ? url.pathname : HIDDEN_PATH}"`;
}
