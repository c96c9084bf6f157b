import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import bcrypt from "bcryptjs";
import type { MiddlewareHandler } from "hono";
import { revealedValues } from "../config/secret.js";
import type { WebConfig } from "../config/web-config.js";

/** Safe defaults; a web config file may override them. The landing page needs inline styles only. */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
  "Referrer-Policy": "no-referrer",
};

/** bcrypt is slow on purpose; a verified user:password is remembered so scrapes stay cheap. */
const VERIFIED_CACHE_SIZE = 64;

/** Probe paths: they carry no data, and Kubernetes or Docker probes send no credentials. */
const UNAUTHENTICATED_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);

export type PasswordCompare = (password: string, hash: string) => Promise<boolean>;

/** Whether a request may be answered, by its path and Authorization header. */
type Gate = (path: string, authorization: string | undefined) => Promise<boolean>;

const OPEN: Gate = async () => true;

/** HTTP basic auth against bcrypt hashes; an unknown user is checked against a dummy hash of the same cost, so
 * response time does not reveal which user names exist. bcrypt runs for one request at a time (as in Prometheus'
 * exporter-toolkit): a burst of unverified credentials waits in line instead of each taking a core. */
export function basicAuth(
  users: Readonly<Record<string, string>>,
  compare: PasswordCompare = bcrypt.compare,
  /** Kept across reloads: each entry binds its user's hash, so a rotated password no longer matches it. */
  verified = new Map<string, Buffer>(),
): Gate {
  const dummyHash = dummyHashFor(users);

  /** The user and password a header gives, or undefined when it gives none (no bcrypt check: no name to hide). */
  const credentials = (header: string | undefined) => {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? "");
    const decoded = match ? Buffer.from(match[1]!, "base64").toString("utf8") : "";
    const separator = decoded.indexOf(":");
    if (separator < 0) return undefined;
    const [user, password] = [decoded.slice(0, separator), decoded.slice(separator + 1)];
    const hash = Object.hasOwn(users, user) ? users[user]! : undefined;
    const key = createHash("sha256")
      .update(`${user}\u0000${password}\u0000${hash ?? dummyHash}`)
      .digest();
    return { user, password, hash, key };
  };
  type Credentials = NonNullable<ReturnType<typeof credentials>>;
  const remembered = ({ user, hash, key }: Credentials) => {
    const cached = verified.get(user);
    return hash !== undefined && cached !== undefined && timingSafeEqual(cached, key);
  };
  const verify = async (given: Credentials) => {
    // A request that waited behind one with the same credentials finds them verified.
    if (remembered(given)) return true;
    // A hash bcrypt cannot check (the web config refuses those) is a failed login, not a 500 on every scrape.
    const matches = await compare(given.password, given.hash ?? dummyHash).catch(() => false);
    if (!matches || given.hash === undefined) return false;
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.clear();
    verified.set(given.user, given.key);
    return true;
  };
  /** The last check in line; the next one starts when it has settled. */
  let line: Promise<unknown> = Promise.resolve();
  return (path, header) => {
    if (UNAUTHENTICATED_PATHS.has(path)) return Promise.resolve(true);
    const given = credentials(header);
    // A scanner sending no credentials must not make a scraper wait behind bcrypt checks.
    if (given === undefined) return Promise.resolve(false);
    if (remembered(given)) return Promise.resolve(true);
    const checked = line.then(() => verify(given));
    line = checked.catch(() => {});
    return checked;
  };
}

const BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A well-formed bcrypt hash at the users' highest cost, made without hashing: bcrypt.hashSync at cost 13 blocked the
 * event loop for 0.8 s on the first request after every (re)load. Checking a password against it costs the same. */
function dummyHashFor(users: Readonly<Record<string, string>>): string {
  const costs = Object.values(users)
    .map((hash) => bcrypt.getRounds(hash))
    .filter(Number.isFinite);
  const cost = Math.min(31, Math.max(4, ...costs));
  const body = Array.from(randomBytes(53), (byte) => BCRYPT_ALPHABET.charAt(byte % 64)).join("");
  return `$2b$${String(cost).padStart(2, "0")}$${body}`;
}

/** What a web config asks of every answer: its security headers (the defaults overridden), and whom to admit. */
type Protection = { readonly headers: Readonly<Record<string, string>>; readonly gate: Gate };

/** The protection of the web config `web` returns, made again whenever it returns another one (a reload). */
export function currentProtection(web: () => WebConfig | undefined): () => Protection {
  let builtFor: WebConfig | undefined | null = null;
  let built: Protection = { headers: DEFAULT_HEADERS, gate: OPEN };
  // Emptied at every reload, it made a scraper wait behind every unverified password in line: 16 s behind a flood.
  const verified = new Map<string, Buffer>();
  return () => {
    const current = web();
    if (current === builtFor) return built;
    builtFor = current;
    const users = revealedValues(current?.basicAuthUsers ?? {});
    return (built = {
      headers: { ...DEFAULT_HEADERS, ...current?.headers },
      gate: Object.keys(users).length > 0 ? basicAuth(users, bcrypt.compare, verified) : OPEN,
    });
  };
}

/** The protection as Hono middleware: headers set before the handler runs, so every response carries them. */
export function protection(current: () => Protection): MiddlewareHandler {
  return async (c, next) => {
    const { headers, gate } = current();
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (await gate(c.req.path, c.req.header("Authorization"))) return next();
    return c.text("Unauthorized\n", 401, {
      "WWW-Authenticate": 'Basic realm="stellar-horizon-exporter", charset="UTF-8"',
    });
  };
}
