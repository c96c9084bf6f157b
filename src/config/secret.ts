/** Secrets as a type, as prometheus/common's `config.Secret`: `<secret>` as any text; `reveal()` only where sent. */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { inspect } from "node:util";

const SECRET_PLACEHOLDER = "<secret>";

/** Shorter secrets are not scrubbed: masking every "on" in every log line would hide more than it protects. */
const SHORTEST_SCRUBBED = 6;
/** Every secret the process holds, longest first, so a secret containing another is masked whole. */
let known: string[] = [];
function setKnown(forms: Iterable<string>): void {
  known = [...new Set(forms)].sort((a, b) => b.length - a.length);
}
/** Each secret's text, for `retainSecretsOf` to know which texts the configuration in use still holds. */
const textOf = new WeakMap<Secret<unknown>, string>();

/** Secrets masked by their parts, not whole: a URL's, shown as it is when it holds no secret part. */
const maskedByParts = new WeakSet<Secret<unknown>>();

/** Per process: fingerprints compare secrets within one run and mean nothing outside it. */
const FINGERPRINT_KEY = randomBytes(32);

export class Secret<T = string> {
  readonly #value: T;

  /** `text` is the value's byte string (a seed for a keypair); it is what `scrubSecrets` masks, unless `byParts`. */
  constructor(value: T, text: string = String(value), { byParts = false } = {}) {
    this.#value = value;
    textOf.set(this, text);
    if (byParts) maskedByParts.add(this);
    else treatAsSecret(text);
  }

  /** The value itself, for sending it where it belongs; never for showing it. */
  reveal(): T {
    return this.#value;
  }

  /** Equal for equal values within this process, and telling nothing about them. */
  fingerprint(): string {
    return createHmac("sha256", FINGERPRINT_KEY).update(textOf.get(this)!).digest("base64url");
  }

  toString(): string {
    return SECRET_PLACEHOLDER;
  }
  toJSON(): string {
    return SECRET_PLACEHOLDER;
  }
  [inspect.custom](): string {
    return SECRET_PLACEHOLDER;
  }
}

/** A record's values as they are sent (header values, password hashes): every one revealed. */
export function revealedValues(headers: Readonly<Record<string, Secret>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.reveal()]));
}

/** A record's values held as secrets: any header value, for one, may be a credential. */
export function secretValues(headers: Readonly<Record<string, string>>): Record<string, Secret> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, new Secret(value)]));
}

// A digest of the configuration's JSON with each secret as its fingerprint: a rotated token must not compare equal
// (a reload keeps a target whose key is unchanged), and a long watch list must not be held twice as a key.
export function comparisonKey(value: unknown): string {
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, replaced: unknown) {
    const original = this[key];
    return original instanceof Secret ? `<secret ${original.fingerprint()}>` : replaced;
  });
  return createHash("sha256").update(json).digest("base64url");
}

/** Every secret the process holds masked: a last defence for text a server sent (an error page echoing its URL). */
export function scrubSecrets(text: string): string {
  return known.reduce((scrubbed, secret) => scrubbed.replaceAll(secret, SECRET_PLACEHOLDER), text);
}

/** About the first `length` characters of `text`, every secret in them masked: a secret the cut would split is masked
 * whole or dropped with the end, never shown in part. */
export function scrubbedStart(text: string, length: number): string {
  const longest = known[0]?.length ?? 0;
  if (text.length <= length + longest) return scrubSecrets(text);
  const scrubbed = scrubSecrets(text.slice(0, length + longest));
  // A secret begun within `length` ends within the slice; one its end splits lies in its last `longest` characters.
  return scrubbed.slice(0, scrubbed.length - longest);
}

/** The forms of a secret's text that `scrubSecrets` masks: as it is, URL-encoded, and each word. */
function formsOf(text: string): string[] {
  return [text, encodeURIComponent(text), ...text.split(/\s+/)].filter((form) => form.length >= SHORTEST_SCRUBBED);
}

/** Text `scrubSecrets` masks from now on: a part of a secret that may be echoed on its own. */
export function treatAsSecret(text: string): void {
  const forms = formsOf(text);
  if (!forms.every((form) => known.includes(form))) setKnown([...known, ...forms]);
}

/** From now on, masks only the Secrets reachable from `configuration`, not every token the process ever held. */
export function retainSecretsOf(configuration: unknown): void {
  const texts = new Set<string>();
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    if (!(value instanceof Secret)) for (const child of Object.values(value)) visit(child);
    else if (!maskedByParts.has(value)) texts.add(textOf.get(value)!);
  };
  visit(configuration);
  setKnown([...texts].flatMap(formsOf));
}
