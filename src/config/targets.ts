import { parseDuration } from "./duration.js";
import { horizonUrl, type TargetEntry } from "./file-schema.js";
import { secretValues, type Secret } from "./secret.js";
import { describeInvalidUrl, TargetUrl } from "./target-url.js";

/** How every kind of target is named, reached and timed. */
export interface TargetBasics {
  readonly name: string;
  /** Shown as its `display` form only: userinfo, path and query may hold credentials. */
  readonly url: TargetUrl;
  /** Extra request headers; any value may be a credential. */
  readonly headers: Readonly<Record<string, Secret>>;
  readonly timeoutMs: number;
}

/** The keys every kind of target's file entry shares. */
type TargetEntryBasics = Pick<TargetEntry, "name" | "url" | "show_path" | "headers" | "timeout">;

/** What one kind of target (Horizon, Stellar RPC) adds to the basics every target shares. */
interface TargetSource<Entry extends TargetEntryBasics, Target extends TargetBasics> {
  /** How a problem names a target of this kind: `target`, `Stellar RPC target`. */
  readonly label: string;
  /** A target given as `[NAME=]URL` on the command line. */
  readonly fromUrl: (basics: TargetBasics) => Target;
  /** A target of the config file, `index` its place in the kind's list. */
  readonly fromEntry: (basics: TargetBasics, entry: Entry, index: number) => Target;
}

/** One kind's targets: from its URL flags when given (they replace the file's), else from the file's entries. */
export function targetsOf<Entry extends TargetEntryBasics, Target extends TargetBasics>(
  sources: {
    /** `[NAME=]URL` values, with where each came from. */
    readonly urls: readonly { readonly source: string; readonly value: string }[];
    readonly entries: readonly Entry[];
    /** The timeout of targets that set none. */
    readonly timeoutMs: number;
  },
  kind: TargetSource<Entry, Target>,
  problems: string[],
): Target[] {
  const { urls, entries, timeoutMs } = sources;
  const targets = urls.length
    ? urls.flatMap(({ source, value }) => {
        const target = targetFromUrlFlag(value);
        if (typeof target === "string") {
          problems.push(`${source}: ${target}`);
          return [];
        }
        return [kind.fromUrl({ ...target, headers: {}, timeoutMs })];
      })
    : entries.map((entry, index) => {
        const url = new TargetUrl(entry.url, entry.show_path);
        const headers = secretValues(entry.headers ?? {});
        const timeout = entry.timeout ? (parseDuration(entry.timeout) ?? timeoutMs) : timeoutMs;
        return kind.fromEntry({ name: entry.name ?? url.host, url, headers, timeoutMs: timeout }, entry, index);
      });
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.name)) problems.push(`${kind.label} name "${target.name}" is used twice; names must be unique`);
    seen.add(target.name);
  }
  return targets;
}

/**
 * `URL` or `NAME=URL`; a name cannot contain `/`, `?` or `:`, so a URL's own `=` is never mistaken
 * for one. A flag has no `show_path`: the path is shown only when it cannot hold a token.
 */
function targetFromUrlFlag(value: string): { name: string; url: TargetUrl } | string {
  const named = /^([^=/?:]+)=(.+)$/.exec(value);
  const text = named?.[2] ?? value;
  if (!horizonUrl.safeParse(text).success) return `${describeInvalidUrl(text)} is not an http:// or https:// URL`;
  const url = new TargetUrl(text);
  return { name: named?.[1] ?? url.host, url };
}
