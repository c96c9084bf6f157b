import { FEE_STATS, METRICS } from "../catalog/metrics.js";
import type { FeeStats } from "../client/schemas.js";
import type { HorizonJobParts } from "../job/job.js";
import { latestDocumentJob } from "./collector.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";

export function feeStatsSamples(stats: FeeStats | undefined): CollectorSamples<Sample> {
  if (stats === undefined) return { live: [], persistent: [] };
  const live: Sample[] = [
    { metric: METRICS.feeStatsLastLedger, value: stats.last_ledger },
    { metric: METRICS.feeStatsBaseFee, value: stats.last_ledger_base_fee },
    { metric: METRICS.ledgerCapacityUsage, value: stats.ledger_capacity_usage },
    ...FEE_STATS.map((stat) => ({ metric: METRICS.feeCharged, labels: { stat }, value: stats.fee_charged[stat] })),
    ...FEE_STATS.map((stat) => ({ metric: METRICS.maxFee, labels: { stat }, value: stats.max_fee[stat] })),
  ];
  return { live, persistent: [] };
}

export function feeStatsJob({ client, network, target }: HorizonJobParts) {
  return latestDocumentJob({
    source: "fee_stats",
    schedule: target.schedules.fee_stats,
    fetch: (signal) => client.feeStats(signal),
    samples: feeStatsSamples,
    learn: (stats) =>
      network.learn({ baseFeeStroops: stats.last_ledger_base_fee, feeP90Stroops: stats.fee_charged.p90 }),
  });
}
