import { POLL_ERROR_REASONS, RPC_ENDPOINTS, RPC_METRICS, type PollErrorReason, type RpcEndpoint } from "../catalog/metrics.js";
import type { RequestObserver } from "../client/http.js";
import { removeSeries, type OwnRegistry } from "./self-metrics.js";

/**
 * The exporter's own view of each Stellar RPC target: requests, polls, failures and freshness,
 * the stellar_horizon_exporter_rpc_* twins of the Horizon self-metrics, in the same registry.
 */
export class RpcExporterMetrics {
  private readonly requests;
  private readonly requestDuration;
  private readonly pollDuration;
  private readonly pollErrors;
  private readonly lastSuccess;
  private readonly invalidRecords;
  private readonly holdsCapped;
  private readonly all;

  constructor(registry: OwnRegistry) {
    this.requests = registry.counter(RPC_METRICS.requestsTotal);
    this.requestDuration = registry.histogram(RPC_METRICS.requestDuration);
    this.pollDuration = registry.histogram(RPC_METRICS.pollDuration);
    this.pollErrors = registry.counter(RPC_METRICS.pollErrorsTotal);
    this.lastSuccess = registry.gauge(RPC_METRICS.lastSuccessTimestamp);
    this.invalidRecords = registry.counter(RPC_METRICS.invalidRecordsTotal);
    this.holdsCapped = registry.counter(RPC_METRICS.rateLimitHoldsCappedTotal);
    this.all = [this.requests, this.requestDuration, this.pollDuration, this.pollErrors, this.lastSuccess, this.invalidRecords, this.holdsCapped];
  }

  /** Zero-initialises a target's error counters so rate() and alerts see them before the first error. */
  addTarget(rpc: string): void {
    this.holdsCapped.inc({ rpc }, 0);
    for (const endpoint of RPC_ENDPOINTS) {
      this.invalidRecords.inc({ rpc, endpoint }, 0);
      for (const reason of Object.keys(POLL_ERROR_REASONS)) this.pollErrors.inc({ rpc, endpoint, reason }, 0);
    }
  }

  removeTarget(rpc: string): Promise<void> {
    return removeSeries(this.all, "rpc", rpc);
  }

  /** Rate-limit headers still hold requests back (in the client); an RPC's are not exported, only the holds cut to the cap. */
  observerFor(rpc: string): RequestObserver<RpcEndpoint> {
    return {
      onRequest: (endpoint, code, durationSeconds) => {
        this.requests.inc({ rpc, endpoint, code });
        this.requestDuration.observe({ rpc, endpoint }, durationSeconds);
      },
      onRateLimitHeaders: () => {},
      onHoldCapped: () => this.holdsCapped.inc({ rpc }),
    };
  }

  invalidRecordsRead(rpc: string, endpoint: RpcEndpoint, count: number): void {
    this.invalidRecords.inc({ rpc, endpoint }, count);
  }

  pollSucceeded(rpc: string, endpoint: RpcEndpoint, durationSeconds: number): void {
    this.pollDuration.observe({ rpc, endpoint }, durationSeconds);
    this.lastSuccess.set({ rpc, endpoint }, Date.now() / 1000);
  }

  pollFailed(rpc: string, endpoint: RpcEndpoint, durationSeconds: number, reason: PollErrorReason): void {
    this.pollDuration.observe({ rpc, endpoint }, durationSeconds);
    this.pollErrors.inc({ rpc, endpoint, reason });
  }
}
