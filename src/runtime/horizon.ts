import { HorizonClient } from "../client/horizon-client.js";
import { targetHttpOptions } from "../client/http.js";
import { accountsJob } from "../collectors/accounts.js";
import { feeStatsJob } from "../collectors/fee-stats.js";
import { ledgersJob } from "../collectors/ledgers.js";
import { liquidityPoolsJob } from "../collectors/liquidity-pools.js";
import { rootJob } from "../collectors/root.js";
import type { TargetConfig } from "../config/config.js";
import { txProbeJob } from "../probers/tx-probe.js";
import { plannedRequestsPerHour } from "../scheduler/request-plan.js";
import type { JobEntry, TargetKind } from "./runtime.js";
import { activityJob, activityWatched } from "../collectors/account-activity.js";
import { assetsJob } from "../collectors/assets.js";
import { corridorsJob, corridorsWatched } from "../collectors/corridors.js";
import { marketsJob } from "../collectors/markets.js";

export const HORIZON_JOBS: readonly JobEntry<TargetConfig, HorizonClient>[] = [
  { source: "root", networkLevel: true, create: rootJob },
  { source: "fee_stats", networkLevel: true, create: feeStatsJob },
  { source: "ledgers", networkLevel: true, settings: (c) => c.ledgers, create: ledgersJob },
  { source: "liquidity_pools", networkLevel: true, settings: (c) => c.liquidityPools, create: liquidityPoolsJob },
  { source: "accounts", enabled: (target) => target.accounts.length > 0, create: accountsJob },
  { source: "activity", enabled: activityWatched, create: activityJob },
  { source: "assets", networkLevel: true, enabled: (target) => target.assets.length > 0, create: assetsJob },
  { source: "markets", networkLevel: true, enabled: (target) => target.markets.length > 0, create: marketsJob },
  { source: "corridors", networkLevel: true, enabled: corridorsWatched, create: corridorsJob },
  { source: "tx_probe", enabled: (target) => target.txProbe !== undefined, create: txProbeJob },
];

export const HORIZON: TargetKind<TargetConfig, HorizonClient> = {
  label: "horizon",
  title: (target) => target.name,
  client: (target, config, parts) => new HorizonClient(targetHttpOptions(target, config, parts)),
  requestPlan: (target, config) => ({
    planned: plannedRequestsPerHour(target, config),
    budget: target.requestBudgetPerHour,
  }),
  jobs: HORIZON_JOBS,
};
