import { createHash, timingSafeEqual } from "node:crypto";
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

/**
 * Set before the handler runs, so every response the context builds carries them, /metrics'
 * head included, which is written to Node's response directly (server/app.ts).
 */
function securityHeaders(web: WebConfig | undefined): MiddlewareHandler {
  const headers = Object.entries({ ...DEFAULT_HEADERS, ...web?.headers });
  return async (c, next) => {
    for (const [name, value] of headers) c.header(name, value);
    await next();
  };
}

/** bcrypt is slow on purpose; a verified user:password is remembered so scrapes stay cheap. */
const VERIFIED_CACHE_SIZE = 64;

/** Probe paths: they carry no data, and Kubernetes or Docker probes send no credentials. */
export const UNAUTHENTICATED_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);

export type PasswordCompare = (password: string, hash: string) => Promise<boolean>;

/**
 * HTTP basic auth against bcrypt hashes. An unknown user is checked against a dummy hash of the
 * same cost, so response time does not reveal which user names exist. `compare` is replaceable so
 * tests can see which hashes are checked.
 */
export function basicAuth(users: Readonly<Record<string, string>>, compare: PasswordCompare = bcrypt.compare): MiddlewareHandler {
  const costs = Object.values(users).map((hash) => bcrypt.getRounds(hash));
  const dummyHash = bcrypt.hashSync("not a password", Math.max(4, ...costs));
  const verified = new Map<string, Buffer>();
  const fingerprint = (user: string, password: string, hash: string) =>
    createHash("sha256").update(`${user}\u0000${password}\u0000${hash}`).digest();

  const check = async (header: string | undefined): Promise<boolean> => {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? "");
    const decoded = match ? Buffer.from(match[1]!, "base64").toString("utf8") : "";
    const separator = decoded.indexOf(":");
    const user = separator >= 0 ? decoded.slice(0, separator) : "";
    const password = separator >= 0 ? decoded.slice(separator + 1) : "";
    const hash = Object.hasOwn(users, user) ? users[user]! : undefined;
    const key = fingerprint(user, password, hash ?? dummyHash);
    const cached = verified.get(user);
    if (hash !== undefined && cached !== undefined && timingSafeEqual(cached, key)) return true;
    const matches = await compare(password, hash ?? dummyHash);
    if (!matches || hash === undefined) return false;
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.clear();
    verified.set(user, key);
    return true;
  };

  return async (c, next) => {
    if (UNAUTHENTICATED_PATHS.has(c.req.path) || (await check(c.req.header("Authorization")))) return next();
    return c.text("Unauthorized\n", 401, { "WWW-Authenticate": 'Basic realm="stellar-horizon-exporter", charset="UTF-8"' });
  };
}

/**
 * Security headers and, when the web config names users, basic auth; rebuilt whenever `web`
 * returns another config (a reload), so the swap needs no restart.
 */
export function protection(web: () => WebConfig | undefined): MiddlewareHandler {
  let builtFor: WebConfig | undefined | null = null;
  let handlers: MiddlewareHandler[] = [];
  return async (c, next) => {
    const current = web();
    if (current !== builtFor) {
      builtFor = current;
      const users = revealedValues(current?.basicAuthUsers ?? {});
      handlers = [securityHeaders(current), ...(Object.keys(users).length > 0 ? [basicAuth(users)] : [])];
    }
    const [headers, auth] = handlers;
    await headers!(c, async () => {
      if (auth === undefined) return next();
      const denied = await auth(c, next);
      if (denied instanceof Response) c.res = denied;
    });
  };
}
