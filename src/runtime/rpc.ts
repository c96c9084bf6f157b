import { targetHttpOptions } from "../client/http.js";
import { RpcClient } from "../client/rpc-client.js";
import { RpcAccountsCollector, rpcAccountsRequestsPerPoll } from "../collectors/rpc-accounts.js";
import { ContractsCollector, contractsRequestsPerPoll } from "../collectors/contracts.js";
import { ContractEventsJob } from "../collectors/contract-events.js";
import { rpcStatusCollector } from "../collectors/rpc-status.js";
import { rpcVersionsCollector } from "../collectors/rpc-versions.js";
import type { RpcTargetConfig } from "../config/rpc-targets.js";
import { pollJob, type JobPlan } from "./job.js";
import type { JobParts, TargetKind } from "./runtime.js";

/**
 * A Stellar RPC: the frequent status batch (getHealth, getLatestLedger, getFeeStats) and the rare
 * versions batch (getNetwork, getVersionInfo), one request each, and, where contracts are watched,
 * the contracts poll (getLedgerEntries, 200 keys a call). A new RPC surface (accounts) is one more
 * plan here, with its job in a file of its own.
 */
export const STELLAR_RPC: TargetKind<RpcTargetConfig, RpcClient> = {
  label: "rpc",
  title: (target) => `${target.name} (Stellar RPC)`,
  metrics: (metrics) => metrics.rpc,
  client: (target, config, parts) => new RpcClient(targetHttpOptions(target, config, parts)),
  jobs(target, config, { client, network, clock, log }: JobParts<RpcClient>): JobPlan[] {
    const key = (source: string) => JSON.stringify({ source, staleAfterIntervals: config.staleAfterIntervals });
    // Network-level series come from shard 0 alone; another shard polls its own watch only.
    const networkLevel = config.shard.index === 0;
    const plans: JobPlan[] = networkLevel
      ? [
          {
            source: "status",
            key: key("status"),
            create: () => pollJob(rpcStatusCollector(client, network), target.schedules.status, 1, true),
          },
          {
            source: "versions",
            key: key("versions"),
            create: () => pollJob(rpcVersionsCollector(client, network), target.schedules.versions, 1),
          },
        ]
      : [];
    if (target.accounts.length > 0) {
      const requests = rpcAccountsRequestsPerPoll(target.accounts);
      plans.push({
        source: "accounts",
        key: key("accounts"),
        create: () =>
          pollJob(new RpcAccountsCollector(client, target.accounts, network), target.schedules.accounts, requests),
      });
    }
    // Contracts are polled only where some are watched, the state-archival settings with them on
    // shard 0 (even when every contract is another shard's); their expiry dates follow the status
    // poll's ledger closes.
    const stateArchival = networkLevel && (target.contractsWatched ?? target.contracts.length > 0);
    if (target.contracts.length > 0 || stateArchival) {
      plans.push({
        source: "contracts",
        key: key("contracts"),
        create: () =>
          pollJob(
            new ContractsCollector(target.contracts, {
              client,
              network,
              clock,
              log: log.child({ endpoint: "contracts" }),
              stateArchival,
            }),
            target.schedules.contracts,
            contractsRequestsPerPoll(target.contracts, stateArchival),
          ),
      });
    }
    // Events are read where some contract of this shard has `events: true`.
    const eventContracts = target.contracts.filter((contract) => contract.events === true);
    if (eventContracts.length > 0) {
      plans.push({
        source: "events",
        key: JSON.stringify({ source: "events", staleAfterIntervals: config.staleAfterIntervals, eventContracts }),
        create: () =>
          new ContractEventsJob(eventContracts, target.schedules.events, {
            client,
            log: log.child({ endpoint: "events" }),
          }),
      });
    }
    return plans;
  },
};
