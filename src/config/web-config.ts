import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { createSecureContext } from "node:tls";
import { z } from "zod";
import { headerValue } from "./file-schema.js";
import { Secret, secretValues } from "./secret.js";
import { readYamlDocument } from "./yaml-file.js";

/** The endpoint's protection, from a prometheus/exporter-toolkit style web config file. */
export interface WebConfig {
  readonly tls?: {
    readonly cert: Buffer;
    readonly key: Secret<Buffer>;
    readonly minVersion: TlsVersion;
    readonly maxVersion?: TlsVersion;
  };
  /** User name → bcrypt hash (a hash can be attacked offline, so it is a secret too). Empty: no authentication. */
  readonly basicAuthUsers: Readonly<Record<string, Secret>>;
  /** Response headers set on every answer, on top of the exporter's safe defaults. */
  readonly headers: Readonly<Record<string, string>>;
}

const TLS_VERSIONS = { TLS10: "TLSv1", TLS11: "TLSv1.1", TLS12: "TLSv1.2", TLS13: "TLSv1.3" } as const;
type TlsVersion = (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];
/** Oldest first: a max_version before the min_version leaves no version to agree on. */
const TLS_ORDER: readonly TlsVersion[] = Object.values(TLS_VERSIONS);
const DEFAULT_MIN_VERSION: TlsVersion = "TLSv1.2";
const tlsVersion = z
  .enum(Object.keys(TLS_VERSIONS) as (keyof typeof TLS_VERSIONS)[])
  .transform((name) => TLS_VERSIONS[name]);

/** The headers exporter-toolkit lets operators set. */
const SETTABLE_HEADERS = [
  "Strict-Transport-Security",
  "X-Frame-Options",
  "X-Content-Type-Options",
  "X-XSS-Protection",
  "Content-Security-Policy",
] as const;

const BCRYPT_PROBLEM = "expected a bcrypt hash ($2y$10$...)";
// bcryptjs checks only these: it rejects $2x$ and a cost outside 4..31, and a $2$ hash (59 characters) never matches.
// A cost above 31 also made the unknown user's dummy hash take hours.
const BCRYPT_CHECKABLE = "expected a bcrypt hash of version $2a$, $2b$ or $2y$ with a cost from 04 to 31";
const bcryptHash = z
  .string({ error: BCRYPT_PROBLEM })
  .regex(/^\$2[a-z]?\$\d{2}\$[./A-Za-z0-9]{53}$/, { error: BCRYPT_PROBLEM, abort: true })
  .regex(/^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$/, BCRYPT_CHECKABLE);

const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string().min(1),
      key_file: z.string().min(1),
      min_version: tlsVersion.optional(),
      max_version: tlsVersion.optional(),
    })
    .refine(
      ({ min_version: min = DEFAULT_MIN_VERSION, max_version: max }) =>
        max === undefined || TLS_ORDER.indexOf(max) >= TLS_ORDER.indexOf(min),
      { error: "below min_version (TLS12 when not given): no client could connect", path: ["max_version"] },
    )
    .optional(),
  http_server_config: z
    .strictObject({
      http2: z.boolean().optional(),
      // A line break or non-ASCII character makes every answer fail (probes included) as the header is set.
      headers: z.partialRecord(z.enum(SETTABLE_HEADERS), headerValue).optional(),
    })
    .optional(),
  basic_auth_users: z.record(z.string().min(1), bcryptHash).optional(),
});

/** Reads and checks the file; undefined, with one-line `problems` added, when it is unusable. */
export async function loadWebConfig(path: string, problems: string[]): Promise<WebConfig | undefined> {
  const loaded = await readYamlDocument(path, "web config file", webConfigSchema, problems);
  if (loaded === undefined) return undefined;
  const { tls_server_config: tls, http_server_config: http, basic_auth_users: users } = loaded;
  const config: WebConfig = { basicAuthUsers: secretValues(users ?? {}), headers: http?.headers ?? {} };
  if (!tls) return config;
  const at = `web config file ${path}: tls_server_config`;
  // Paths are relative to the web config file, as in exporter-toolkit.
  const base = dirname(resolve(path));
  const read = (what: "cert_file" | "key_file") =>
    readFile(resolve(base, tls[what])).catch((error: NodeJS.ErrnoException) => {
      problems.push(`${at}.${what}: cannot read ${tls[what]} (${error.code ?? "error"})`);
      return undefined;
    });
  const cert = await read("cert_file");
  const key = await read("key_file");
  if (cert === undefined || key === undefined) return undefined;
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    problems.push(`${at}: certificate and key do not work together: ${(error as Error).message}`);
    return undefined;
  }
  return {
    ...config,
    tls: {
      cert,
      key: new Secret(key),
      minVersion: tls.min_version ?? DEFAULT_MIN_VERSION,
      maxVersion: tls.max_version,
    },
  };
}
