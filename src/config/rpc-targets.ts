import type { RpcEndpoint } from "../catalog/metrics.js";
import type { RpcWatchedAccount } from "./accounts.js";
import type { WatchedContract } from "./contracts.js";
import type { Schedule } from "./schedule.js";
import type { TargetBasics } from "./targets.js";

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
