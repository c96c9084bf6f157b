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

type TargetEntryBasics = Pick<TargetEntry, "name" | "url" | "show_path" | "headers" | "timeout">;

/** A list's values and the flag or environment variable they came from. */
export type ListSetting = { readonly source: string; readonly values: readonly string[] };

/** One kind of target (Horizon, Stellar RPC): where its targets come from, and what it adds to the basics. */
interface TargetSource<Entry extends TargetEntryBasics, Target extends TargetBasics> {
  /** How a problem names a target of this kind: `target`, `Stellar RPC target`. */
  readonly label: string;
  /** `[NAME=]URL` values and the flag or environment variable they came from: they replace the file's entries. */
  readonly urls: ListSetting;
  readonly entries: readonly Entry[];
  readonly fromUrl: (basics: TargetBasics) => Target;
  /** `index`: the entry's place in the kind's list. */
  readonly fromEntry: (basics: TargetBasics, entry: Entry, index: number) => Target;
}

/** One kind's targets: from its URL flags when given, else from the file's entries; names unique. */
export function targetsOf<Entry extends TargetEntryBasics, Target extends TargetBasics>(
  /** `timeoutMs`: the timeout of targets that set none. */
  { timeoutMs, problems }: { readonly timeoutMs: number; readonly problems: string[] },
  kind: TargetSource<Entry, Target>,
): Target[] {
  const { urls } = kind;
  const targets = urls.values.length
    ? urls.values.flatMap((value) => {
        const target = targetFromUrlFlag(value);
        if (typeof target !== "string") return [kind.fromUrl({ ...target, headers: {}, timeoutMs })];
        problems.push(`${urls.source}: ${target}`);
        return [];
      })
    : kind.entries.map((entry, index) => {
        const url = new TargetUrl(entry.url, entry.show_path);
        const headers = secretValues(entry.headers ?? {});
        const basics = { name: entry.name ?? url.host, url, headers, timeoutMs: entry.timeout ?? timeoutMs };
        return kind.fromEntry(basics, entry, index);
      });
  for (const [index, { name }] of targets.entries())
    if (targets.findIndex((other) => other.name === name) < index)
      problems.push(`${kind.label} name "${name}" is used twice; names must be unique`);
  return targets;
}

/** `URL` or `NAME=URL`: a name holds no `/`, `?` or `:`, so a URL's own `=` is never taken for one. */
function targetFromUrlFlag(value: string): { name: string; url: TargetUrl } | string {
  const named = /^([^=/?:]+)=(.+)$/.exec(value);
  const text = named?.[2] ?? value;
  if (!horizonUrl.safeParse(text).success) return `${describeInvalidUrl(text)} is not an http:// or https:// URL`;
  const url = new TargetUrl(text);
  return { name: named?.[1] ?? url.host, url };
}
