import type { RpcEndpoint } from "../catalog/metrics.js";
import { rpcWatchedAccounts, withAssets, type RpcWatchedAccount } from "./accounts.js";
import type { RpcTargetEntry } from "./file-schema.js";
import { watchedContracts, type WatchedContract } from "./contracts.js";
import { parseSchedule, type Schedule } from "./schedule.js";
import type { WatchedAccount } from "./accounts.js";
import { targetsOf, type TargetBasics } from "./targets.js";

/** Named, reached and timed like a Horizon target; its `url` is POSTed to exactly as given, path included. */
export interface RpcTargetConfig extends TargetBasics {
  readonly schedules: Readonly<Record<RpcEndpoint, Schedule>>;
  /** Accounts read as ledger entries, each with the trustlines to read. */
  readonly accounts: readonly RpcWatchedAccount[];
  /** Soroban contracts whose entries' lifetimes the contracts job watches. */
  readonly contracts: readonly WatchedContract[];
  /**
   * Whether the configuration watches contracts on this target, this shard or another: the network's
   * state-archival settings are then read, by shard 0 alone. Unset: whether `contracts` has any.
   */
  readonly contractsWatched?: boolean;
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
  /** `schedules.accounts`, as Horizon targets' accounts follow it. */
  readonly accountsSchedule: Schedule;
  /** --account/ACCOUNTS, checked: watched on every --rpc.url target. */
  readonly flagAccounts: readonly WatchedAccount[];
  /** --account.asset/ACCOUNT_ASSETS: the trustlines read of the flag accounts. */
  readonly flagAssets: { readonly source: string; readonly values: readonly string[] };
  /** The contracts poll's schedule (schedules.contracts, or --poll.interval when given). */
  readonly contractsSchedule: Schedule;
  /** The events poll's schedule (schedules.events, or --poll.interval when given). */
  readonly eventsSchedule: Schedule;
  /** --contract/CONTRACTS, already checked: watched on every --rpc.url target. */
  readonly flagContracts: readonly WatchedContract[];
  readonly timeoutMs: number;
}

/** The Stellar RPC targets: from --rpc.url/RPC_URL when given, else from the file; problems appended, one line each. */
export function rpcTargets(sources: RpcTargetSources, problems: string[]): RpcTargetConfig[] {
  const versions = parseSchedule(RPC_VERSIONS_SCHEDULE) as Schedule;
  const schedulesFor = (text: string | undefined): Record<RpcEndpoint, Schedule> => {
    const fromFile = text === undefined ? undefined : parseSchedule(text);
    const status = sources.forcedSchedule ?? (typeof fromFile === "object" ? fromFile : sources.defaultSchedule);
    return {
      status,
      versions: status.periodMs > versions.periodMs ? status : versions,
      accounts: sources.accountsSchedule,
      contracts: sources.contractsSchedule,
      events: sources.eventsSchedule,
    };
  };
  // The flag accounts were checked with the Horizon targets': only their assets are new here.
  const flagAccounts = sources.urlSpecs.length
    ? withAssets(sources.flagAccounts, sources.flagAssets.values, sources.flagAssets.source, problems)
    : [];
  return targetsOf(
    { urls: sources.urlSpecs, entries: sources.fileEntries, timeoutMs: sources.timeoutMs },
    {
      label: "Stellar RPC target",
      fromUrl: (basics) => ({
        ...basics,
        schedules: schedulesFor(undefined),
        accounts: flagAccounts,
        contracts: sources.flagContracts,
      }),
      fromEntry: (basics, entry) => ({
        ...basics,
        schedules: schedulesFor(entry.schedule),
        accounts: rpcWatchedAccounts(
          entry.accounts ?? [],
          entry.account_assets ?? [],
          `Stellar RPC target "${basics.name}"`,
          problems,
        ),
        contracts: watchedContracts(entry.contracts ?? [], `Stellar RPC target "${basics.name}"`, problems),
      }),
    },
    problems,
  );
}
