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

// One kind's targets (`label`, as problems name one: `target`, `Stellar RPC target`): from its URL flags when given,
// else from the file's `entries`; names unique. `build` adds what the kind adds, from the entry when there is one.
export function targetsOf<Entry extends TargetEntryBasics, Target extends TargetBasics>(
  /** `timeoutMs`: the timeout of targets that set none; `path`: the config file's. */
  { timeoutMs, problems, path }: { readonly timeoutMs: number; readonly problems: string[]; readonly path: string },
  label: string,
  /** The file's key for this kind's entries, to say where a repeated name is. */
  key: "targets" | "rpc_targets",
  urls: ListSetting,
  entries: readonly Entry[],
  build: (basics: TargetBasics, entry: Entry | undefined, index: number) => Target,
): Target[] {
  const targets = urls.values.length
    ? urls.values.flatMap((value, index) => {
        const target = targetFromUrlFlag(value);
        if (typeof target !== "string") return [build({ ...target, headers: {}, timeoutMs }, undefined, index)];
        problems.push(`${urls.source}: ${target}`);
        return [];
      })
    : entries.map((entry, index) => {
        const url = new TargetUrl(entry.url, entry.show_path);
        const headers = secretValues(entry.headers ?? {});
        const basics = { name: entry.name ?? url.host, url, headers, timeoutMs: entry.timeout ?? timeoutMs };
        return build(basics, entry, index);
      });
  for (const [index, { name }] of targets.entries())
    if (targets.findIndex((other) => other.name === name) < index) {
      const named = entries[index]?.name === undefined ? "" : ".name";
      const where = urls.values.length ? urls.source : `${path}: ${key}[${index}]${named}`;
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
