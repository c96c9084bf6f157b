// Free text a response puts in a label (versions, a passphrase, a home domain), made fit for a dashboard. Identifiers
// are not passed through here: their schemas refuse anything but their real shape, as a cut one could merge two series.

/** Valid in the exposition but unreadable or misleading on a dashboard: control and format characters (bidi overrides,
 * zero-width marks), the line and paragraph separators U+2028 and U+2029, and lone surrogates. */
const UNREADABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
export const REPLACEMENT_CHARACTER = "\uFFFD";
/** Ends a value cut at its field's bound, so a shortened value never reads as the real one. */
export const TRUNCATION_MARKER = "\u2026";

/** Bounds, in characters (code points), of the free-text label values (see the README): Stellar's home_domain is a
 * string32; versions include commit hashes; real passphrases are under 60 characters. */
export const LABEL_TEXT_BOUNDS = { homeDomain: 32, version: 128, networkPassphrase: 128 } as const;

/** `value` with unreadable characters replaced and, when longer than `maxCharacters`, cut and marked as cut. */
export function labelText(value: string, maxCharacters: number): string {
  let text = value;
  if (text.length > maxCharacters) {
    // A code point is at most two UTF-16 units: this slice is the whole value or holds more characters than the
    // bound, and a pair split at its end is the last of them, never kept.
    const characters = Array.from(text.slice(0, 2 * maxCharacters + 2));
    if (characters.length > maxCharacters) text = characters.slice(0, maxCharacters - 1).join("") + TRUNCATION_MARKER;
  }
  return text.replace(UNREADABLE, REPLACEMENT_CHARACTER);
}

/** The label of values past a series set's bound. */
export const OTHER_LABEL = "other";

/** A label whose values come from upstream (a payment's asset, a topic): the first `max` distinct values, and those
 * given at the start, keep their own series; later ones count as `other`, so a spammer cannot grow /metrics. */
export class BoundedLabel {
  private readonly values: Set<string>;

  constructor(
    private readonly max: number,
    initial: Iterable<string> = [],
  ) {
    this.values = new Set(initial);
  }

  of(value: string): string {
    if (!this.values.has(value) && this.values.size < this.max) this.values.add(value);
    return this.values.has(value) ? value : OTHER_LABEL;
  }
}
