import { targetHttpOptions } from "../client/http.js";
import { RpcClient } from "../client/rpc-client.js";
import { contractsJob } from "../collectors/contracts.js";
import { rpcAccountsJob } from "../collectors/rpc-accounts.js";
import { rpcStatusJob } from "../collectors/rpc-status.js";
import { rpcVersionsJob } from "../collectors/rpc-versions.js";
import { contractEventsJob, eventsWatched } from "../collectors/contract-events.js";
import type { RpcTargetConfig } from "../config/rpc-targets.js";
import type { JobEntry, TargetKind } from "./runtime.js";

export const RPC_JOBS: readonly JobEntry<RpcTargetConfig, RpcClient>[] = [
  { source: "status", networkLevel: true, create: rpcStatusJob },
  { source: "versions", networkLevel: true, create: rpcVersionsJob },
  { source: "accounts", enabled: (target) => target.accounts.length > 0, create: rpcAccountsJob },
  { source: "contracts", enabled: contractsPolled, create: contractsJob },
  { source: "events", enabled: eventsWatched, create: contractEventsJob },
];

/** Where contracts are watched, and on shard 0 for the state-archival settings even when all are another shard's. */
function contractsPolled(target: RpcTargetConfig, config: { readonly shard: { readonly index: number } }): boolean {
  return target.contracts.length > 0 || (config.shard.index === 0 && (target.contractsWatched ?? false));
}

export const STELLAR_RPC: TargetKind<RpcTargetConfig, RpcClient> = {
  label: "rpc",
  title: (target) => `${target.name} (Stellar RPC)`,
  client: (target, config, parts) => new RpcClient(targetHttpOptions(target, config, parts)),
  jobs: RPC_JOBS,
};
