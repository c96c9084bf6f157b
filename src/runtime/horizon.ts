import type { Endpoint } from "../catalog/metrics.js";
import { AccountsClient } from "../client/accounts.js";
import { HorizonClient } from "../client/horizon-client.js";
import { targetHttpOptions } from "../client/http.js";
import { AccountActivityJob } from "../collectors/account-activity.js";
import { AccountsCollector } from "../collectors/accounts.js";
import { AssetsJob } from "../collectors/assets.js";
import type { Collector } from "../collectors/collector.js";
import { CorridorsJob } from "../collectors/corridors.js";
import { feeStatsCollector } from "../collectors/fee-stats.js";
import { LedgersCollector } from "../collectors/ledgers.js";
import { LiquidityPoolsCollector } from "../collectors/liquidity-pools.js";
import { MarketsJob } from "../collectors/markets.js";
import { rootCollector } from "../collectors/root.js";
import type { ExporterConfig, TargetConfig } from "../config/config.js";
import { txProbeFor } from "../probers/tx-probe.js";
import { plannedRequestsPerHour, requestsPerPoll } from "../scheduler/request-plan.js";
import { pollJob, type JobPlan } from "./job.js";
import type { JobParts, TargetKind } from "./runtime.js";

/**
 * What a job is built from beyond the target's own settings (which are in the runtime's key): the
 * freshness every job's deadline and staleness follow, and the global settings of its endpoint.
 */
function jobKey(endpoint: Endpoint | "tx_probe", config: ExporterConfig): string {
  const own =
    endpoint === "ledgers" ? config.ledgers : endpoint === "liquidity_pools" ? config.liquidityPools : undefined;
  return JSON.stringify({ endpoint, staleAfterIntervals: config.staleAfterIntervals, own });
}

/**
 * A Horizon: root, fee_stats, ledgers and liquidity_pools polls, accounts where some are watched,
 * and the transaction probe where configured. A new Horizon surface is one more plan here, with
 * its job in a file of its own.
 */
export const HORIZON: TargetKind<TargetConfig, HorizonClient> = {
  label: "horizon",
  title: (target) => target.name,
  metrics: (metrics) => metrics.horizon,
  client: (target, config, parts) => new HorizonClient(targetHttpOptions(target, config, parts)),
  requestPlan: (target, config) => ({
    planned: plannedRequestsPerHour(target, config),
    budget: target.requestBudgetPerHour,
  }),
  // The probe's submissions are requests to `transactions`.
  requestSources: { transactions: "tx_probe" },
  jobs(target, config, { client, network, log, clock }: JobParts<HorizonClient>): JobPlan[] {
    const poll = (endpoint: Endpoint, collector: () => Collector, heartbeat = false): JobPlan => ({
      source: endpoint,
      key: jobKey(endpoint, config),
      create: () =>
        pollJob(collector(), target.schedules[endpoint], requestsPerPoll(endpoint, target, config), heartbeat),
    });
    // Network-level series come from shard 0 alone; another shard polls its accounts only, and
    // reads the base reserve their minimum balances need itself.
    const networkLevel = config.shard.index === 0;
    const plans = networkLevel
      ? [
          poll("root", () => rootCollector(client, network), true),
          poll("fee_stats", () => feeStatsCollector(client, network)),
          poll(
            "ledgers",
            () => new LedgersCollector(client, config.ledgers, log.child({ endpoint: "ledgers" }), network),
          ),
          poll("liquidity_pools", () => new LiquidityPoolsCollector(client, config.liquidityPools)),
        ]
      : [];
    if (target.accounts.length > 0) {
      plans.push(
        poll(
          "accounts",
          () => new AccountsCollector(new AccountsClient(client), target.accounts, network, !networkLevel),
        ),
      );
    }
    // The flow of the accounts this shard watches (the config keeps only its share of them).
    if (target.accounts.some((account) => account.activity === true || account.operations === true)) {
      plans.push({
        source: "activity",
        key: jobKey("activity", config),
        create: () => new AccountActivityJob(client, target.accounts, target.schedules.activity),
      });
    }
    // Assets are network-level: shard 0 alone polls them.
    if (networkLevel && target.assets.length > 0) {
      plans.push({
        source: "assets",
        key: jobKey("assets", config),
        create: () => new AssetsJob(client, target.assets, target.schedules.assets),
      });
    }
    // Markets are network-level: shard 0 alone reads them.
    if (networkLevel && target.markets.length > 0) {
      plans.push({
        source: "markets",
        key: jobKey("markets", config),
        create: () => new MarketsJob(client, target.markets, target.schedules.markets, () => clock.now()),
      });
    }
    // Corridors: a poll whose run counts each corridor's outcome and never fails for them.
    const corridors = target.corridors ?? [];
    if (networkLevel && corridors.length > 0) {
      const schedule = target.schedules.corridors;
      plans.push({
        source: "corridors",
        key: jobKey("corridors", config),
        create: () => {
          const corridorLog = log.child({ endpoint: "corridors" });
          if (target.corridorsRaisedFrom !== undefined)
            corridorLog.warn(
              { pollInterval: target.corridorsRaisedFrom, schedule: schedule.text },
              "--poll.interval is shorter than corridors may run: corridors run every 15s",
            );
          const freshnessMs = config.staleAfterIntervals * schedule.periodMs;
          return new CorridorsJob(corridors, schedule, {
            client,
            log: corridorLog,
            now: () => clock.now(),
            freshnessMs,
          });
        },
      });
    }
    const probe = target.txProbe;
    if (probe !== undefined) {
      plans.push({
        source: "tx_probe",
        key: jobKey("tx_probe", config),
        create: () => txProbeFor(probe, { client, network, log, now: () => clock.now() }),
      });
    }
    return plans;
  },
};
