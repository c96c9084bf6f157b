import type { RpcEndpoint } from "../catalog/metrics.js";
import { parseDuration } from "./duration.js";
import type { RpcTargetEntry } from "./file-schema.js";
import { parseSchedule, type Schedule } from "./schedule.js";

export interface RpcTargetConfig {
  readonly name: string;
  /** POSTed to exactly as given, path included. */
  readonly url: string;
  /** Extra request headers; may hold credentials, so never logged or shown. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly schedules: Readonly<Record<RpcEndpoint, Schedule>>;
}

/** getNetwork and getVersionInfo change only on upgrades: polled this often, or at the status schedule if rarer. */
export const RPC_VERSIONS_SCHEDULE = "10m";

export interface RpcTargetSources {
  /** `[NAME=]URL` values of --rpc.url, else of RPC_URL (comma-separated), with where each came from. */
  readonly urlSpecs: readonly { readonly source: string; readonly value: string }[];
  readonly fileEntries: readonly RpcTargetEntry[];
  /** Already validated by the caller; the status schedule of targets that set none. */
  readonly defaultSchedule: Schedule;
  /** When set (an explicit --poll.interval), it beats every file schedule. */
  readonly forcedSchedule?: Schedule;
  readonly timeoutMs: number;
  /** Parses `[NAME=]URL`, or says why it cannot. */
  readonly parseUrlSpec: (value: string) => { name: string; url: string } | string;
  readonly defaultName: (url: string) => string;
}

export function rpcUrlSpecs(flagValues: readonly string[] | undefined, envValue: string | undefined) {
  if (flagValues?.length) return flagValues.map((value) => ({ source: "--rpc.url", value }));
  return (envValue ?? "")
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean)
    .map((value) => ({ source: "RPC_URL", value }));
}

/** The Stellar RPC targets, flags before the file; problems are appended, one line each. */
export function rpcTargets(sources: RpcTargetSources, problems: string[]): RpcTargetConfig[] {
  const versions = parseSchedule(RPC_VERSIONS_SCHEDULE) as Schedule;
  const schedulesFor = (text: string | undefined): Record<RpcEndpoint, Schedule> => {
    const fromFile = text === undefined ? undefined : parseSchedule(text);
    const status = sources.forcedSchedule ?? (typeof fromFile === "object" ? fromFile : sources.defaultSchedule);
    return { status, versions: status.periodMs > versions.periodMs ? status : versions };
  };
  const targets: RpcTargetConfig[] = sources.urlSpecs.length
    ? sources.urlSpecs.flatMap(({ source, value }) => {
        const target = sources.parseUrlSpec(value);
        if (typeof target === "string") {
          problems.push(`${source}: ${target}`);
          return [];
        }
        return [{ ...target, headers: {}, timeoutMs: sources.timeoutMs, schedules: schedulesFor(undefined) }];
      })
    : sources.fileEntries.map((entry) => ({
        name: entry.name ?? sources.defaultName(entry.url),
        url: entry.url,
        headers: entry.headers ?? {},
        timeoutMs: entry.timeout ? (parseDuration(entry.timeout) ?? sources.timeoutMs) : sources.timeoutMs,
        schedules: schedulesFor(entry.schedule),
      }));
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.name)) problems.push(`Stellar RPC target name "${target.name}" is used twice; names must be unique`);
    seen.add(target.name);
  }
  return targets;
}
