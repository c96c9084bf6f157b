import type { RpcEndpoint } from "../catalog/metrics.js";
import { rpcWatchedAccounts, withAssets, type RpcWatchedAccount, type WatchedAccount } from "./accounts.js";
import type { RpcTargetEntry } from "./file-schema.js";
import { watchedContracts, type WatchedContract } from "./contracts.js";
import { parseSchedule, type Schedule } from "./schedule.js";
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
const RPC_VERSIONS_SCHEDULE = "10m";

/** What the flags (watched on every --rpc.url target) and the file say of the Stellar RPC targets. */
interface RpcTargetSources {
  /** `[NAME=]URL` values of --rpc.url, else of RPC_URL, with where each came from. */
  readonly urls: readonly { readonly source: string; readonly value: string }[];
  readonly entries: readonly RpcTargetEntry[];
  readonly timeoutMs: number;
  /** An explicit --poll.interval: it beats a target's own `schedule`. */
  readonly forced: Schedule | undefined;
  /** The status schedule of targets that set none, and the accounts, contracts and events polls'. */
  readonly schedules: Omit<Record<RpcEndpoint, Schedule>, "versions">;
  /** Checked with the Horizon targets'. */
  readonly flagAccounts: readonly WatchedAccount[];
  /** --account.asset: the trustlines read of the flag accounts. */
  readonly flagAssets: { readonly source: string; readonly values: readonly string[] };
  readonly flagContracts: readonly WatchedContract[];
}

/** The Stellar RPC targets: from --rpc.url/RPC_URL when given, else from the file; problems appended, one line each. */
export function rpcTargets(sources: RpcTargetSources, problems: string[]): RpcTargetConfig[] {
  const { schedules, forced } = sources;
  const versions = parseSchedule(RPC_VERSIONS_SCHEDULE) as Schedule;
  // A target's `schedule` is checked by the file's schema.
  const schedulesFor = (text: string | undefined): Record<RpcEndpoint, Schedule> => {
    const status = forced ?? (text === undefined ? schedules.status : (parseSchedule(text) as Schedule));
    const { accounts, contracts, events } = schedules;
    return { status, versions: status.periodMs > versions.periodMs ? status : versions, accounts, contracts, events };
  };
  const flagAccounts = sources.urls.length
    ? withAssets(sources.flagAccounts, sources.flagAssets.values, sources.flagAssets.source, problems)
    : [];
  return targetsOf(
    sources,
    {
      label: "Stellar RPC target",
      fromUrl: (basics) => ({
        ...basics,
        schedules: schedulesFor(undefined),
        accounts: flagAccounts,
        contracts: sources.flagContracts,
      }),
      fromEntry: (basics, entry) => {
        const where = `Stellar RPC target "${basics.name}"`;
        return {
          ...basics,
          schedules: schedulesFor(entry.schedule),
          accounts: rpcWatchedAccounts(entry.accounts ?? [], entry.account_assets ?? [], where, problems),
          contracts: watchedContracts(entry.contracts ?? [], where, problems),
        };
      },
    },
    problems,
  );
}
