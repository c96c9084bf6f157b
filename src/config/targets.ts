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

/** How problems name one kind's targets (`target`, `Stellar RPC target`), and the config file's key for them. */
export type TargetList = { readonly label: string; readonly key: "targets" | "rpc_targets" };

// One kind's targets: from its URL flags when given, else from the file's `entries`; names unique. `build` adds what
// the kind adds, from the entry when there is one; `where` names the flag, or the entry's place in the file.
export function targetsOf<Entry extends TargetEntryBasics, Target extends TargetBasics>(
  /** `timeoutMs`: the timeout of targets that set none; `path`: the config file's. */
  { timeoutMs, problems, path }: { readonly timeoutMs: number; readonly problems: string[]; readonly path: string },
  { label, key }: TargetList,
  urls: ListSetting,
  entries: readonly Entry[],
  build: (basics: TargetBasics, entry: Entry | undefined, where: string) => Target,
): Target[] {
  const placeOf = (index: number) => `${path}: ${key}[${index}]`;
  const targets = urls.values.length
    ? urls.values.flatMap((value) => {
        const target = targetFromUrlFlag(value);
        if (typeof target !== "string") return [build({ ...target, headers: {}, timeoutMs }, undefined, urls.source)];
        problems.push(`${urls.source}: ${target}`);
        return [];
      })
    : entries.map((entry, index) => {
        const url = new TargetUrl(entry.url, entry.show_path);
        const headers = secretValues(entry.headers ?? {});
        const basics = { name: entry.name ?? url.host, url, headers, timeoutMs: entry.timeout ?? timeoutMs };
        return build(basics, entry, placeOf(index));
      });
  for (const [index, { name }] of targets.entries())
    if (targets.findIndex((other) => other.name === name) < index) {
      const named = entries[index]?.name === undefined ? "" : ".name";
      const where = urls.values.length ? urls.source : `${placeOf(index)}${named}`;
      problems.push(`${where}: ${label} name "${name}" is used twice; names must be unique`);
    }
  return targets;
}

/** `URL` or `NAME=URL`: a name holds no `/`, `?` or `:`, so a URL's own `=` is never taken for one. */
function targetFromUrlFlag(value: string): { name: string; url: TargetUrl } | string {
  const named = /^([^=/?:]+)=(.+)$/.exec(value);
  const text = named?.[2] ?? value;
  if (!horizonUrl.safeParse(text).success) return `${describeInvalidUrl(text)} is not a valid http:// or https:// URL`;
  const url = new TargetUrl(text);
  return { name: named?.[1] ?? url.host, url };
}
