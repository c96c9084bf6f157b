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
  /** Whether any shard watches contracts here: shard 0 then reads state-archival settings. Unset: any `contracts`. */
  readonly contractsWatched?: boolean;
}
