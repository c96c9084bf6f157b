import { FEE_STATS, RPC_METRICS } from "../catalog/metrics.js";
import type { RpcStatus } from "../client/rpc-client.js";
import type { RpcFeeDistribution } from "../client/rpc-schemas.js";
import type { RpcJobParts } from "../job/job.js";
import type { LedgerClose } from "../job/network.js";
import { latestDocumentJob } from "./collector.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";

function* feeSamples(kind: "soroban" | "classic", fees: RpcFeeDistribution): Generator<Sample> {
  // stellar-rpc sends "0" everywhere for a window without transactions of a kind: no transaction paid 0 stroops.
  if (fees.transactionCount > 0)
    for (const stat of FEE_STATS) yield { metric: RPC_METRICS.inclusionFee, labels: { kind, stat }, value: fees[stat] };
  yield { metric: RPC_METRICS.feeStatsTransactions, labels: { kind }, value: fees.transactionCount };
  yield { metric: RPC_METRICS.feeStatsLedgers, labels: { kind }, value: fees.ledgerCount };
}

/** The RPC's latest ledger and its close time, whose age is the RPC's ledger age: getHealth's pair where it carries one
 * (stellar-rpc 27.1+), else getLatestLedger's (25+); a time is never paired with another ledger's sequence. */
function latestClose({ latestLedger, health }: RpcStatus): LedgerClose | undefined {
  if (health?.latestLedgerCloseTime !== undefined)
    return { sequence: health.latestLedger, closeTime: health.latestLedgerCloseTime };
  if (latestLedger.closeTime !== undefined)
    return { sequence: latestLedger.sequence, closeTime: latestLedger.closeTime };
  return undefined;
}

export function rpcStatusSamples(status: RpcStatus | undefined, lastPollSucceeded: boolean): CollectorSamples {
  const persistent: Sample[] = [{ metric: RPC_METRICS.up, value: lastPollSucceeded ? 1 : 0 }];
  if (status === undefined) return { live: [], persistent };
  const { health, latestLedger, feeStats } = status;
  const live: Sample[] = [
    { metric: RPC_METRICS.healthy, value: status.healthy ? 1 : 0 },
    { metric: RPC_METRICS.latestLedger, value: latestLedger.sequence },
    { metric: RPC_METRICS.protocolVersion, value: latestLedger.protocolVersion },
  ];
  // A getHealth result whose status is not "healthy" (catching up, say) is unhealthy too: their help says absent then.
  if (health !== undefined && status.healthy)
    live.push(
      { metric: RPC_METRICS.oldestLedger, value: health.oldestLedger },
      { metric: RPC_METRICS.retentionWindow, value: health.ledgerRetentionWindow },
    );
  const close = latestClose(status);
  if (close !== undefined) live.push({ metric: RPC_METRICS.latestLedgerClosedTimestamp, value: close.closeTime });
  live.push(...feeSamples("soroban", feeStats.sorobanInclusionFee), ...feeSamples("classic", feeStats.inclusionFee));
  return { live, persistent };
}

/** A Stellar RPC's status batch (getHealth, getLatestLedger, getFeeStats): its heartbeat. */
export function rpcStatusJob({ client, network, target }: RpcJobParts) {
  return latestDocumentJob({
    source: "status",
    schedule: target.schedules.status,
    heartbeat: true,
    fetch: (signal) => client.status(signal),
    samples: rpcStatusSamples,
    learn: (status) => {
      // getLatestLedger's `id` is the ledger's hash.
      network.ledgerHash(status.latestLedger.sequence, status.latestLedger.id);
      network.learn({
        feeP90Stroops: status.feeStats.inclusionFee.p90,
        protocolVersion: status.latestLedger.protocolVersion,
        latestLedgerClose: latestClose(status),
      });
    },
  });
}
