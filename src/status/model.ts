import { METRICS } from "../catalog/metrics.js";
import type { Labels } from "../exposition/samples.js";
import type { EndpointStatus } from "../scheduler/endpoint-poller.js";
import { HISTORY_WINDOW_MS, StatusBoard, labelsMatch, type SparklineSource, type StatusSeries } from "./board.js";

/**
 * Families of later features, named as their issues' metric contracts name them (#9 watched
 * accounts, #10 transaction probe). Their sections appear once a collector publishes them.
 */
const ACCOUNT_FAMILIES = {
  exists: "stellar_horizon_account_exists",
  balance: "stellar_horizon_account_balance",
  lowWatermark: "stellar_horizon_account_balance_low_watermark",
  signerChanges: "stellar_horizon_account_signer_changes_total",
} as const;

const PROBE_FAMILIES = {
  submissions: "stellar_horizon_tx_probe_submissions_total",
  failures: "stellar_horizon_tx_probe_failures_total",
  duration: "stellar_horizon_tx_probe_duration_seconds",
  lastSuccess: "stellar_horizon_tx_probe_last_success_timestamp_seconds",
} as const;

export interface SparklineDefinition extends SparklineSource {
  readonly title: string;
  readonly unit: string;
  /** Ratios are drawn as percentages. */
  readonly percent?: true;
}

export const SPARKLINES: readonly SparklineDefinition[] = [
  { id: "ingest_lag", title: "Ingest lag", unit: "ledgers", family: METRICS.ingestLagLedgers.name },
  { id: "ledger_close_interval", title: "Ledger close interval", unit: "s", family: METRICS.ledgerCloseInterval.name, histogramMean: true },
  { id: "fee_p50", title: "Fee charged p50", unit: "stroops", family: METRICS.feeCharged.name, labels: { stat: "p50" } },
  { id: "fee_p90", title: "Fee charged p90", unit: "stroops", family: METRICS.feeCharged.name, labels: { stat: "p90" } },
  { id: "capacity", title: "Ledger capacity used", unit: "%", family: METRICS.ledgerCapacityUsage.name, percent: true },
];

/** Every family the status reads; the board keeps nothing else (no per-pool series). */
export const STATUS_FAMILIES: ReadonlySet<string> = new Set([
  METRICS.up.name,
  METRICS.info.name,
  METRICS.ingestLatestLedger.name,
  METRICS.historyLatestLedgerClosedTimestamp.name,
  METRICS.ingestLagLedgers.name,
  METRICS.currentProtocolVersion.name,
  METRICS.feeStatsBaseFee.name,
  METRICS.feeCharged.name,
  METRICS.ledgerCapacityUsage.name,
  METRICS.transactionsTotal.name,
  METRICS.ledgerCloseInterval.name,
  METRICS.liquidityPools.name,
  ...Object.values(ACCOUNT_FAMILIES),
  ...Object.values(PROBE_FAMILIES),
]);

export function createStatusBoard(now?: () => number): StatusBoard {
  return new StatusBoard(STATUS_FAMILIES, SPARKLINES, now);
}

/** A value exactly as on /metrics, with the series it comes from (the `horizon` label aside). */
export interface Figure {
  readonly metric: string;
  readonly labels?: Labels;
  readonly value: number;
}

export type TargetState = "up" | "degraded" | "down" | "waiting";
export type EndpointState = "ok" | "failing" | "running" | "waiting";

export interface EndpointReport {
  readonly endpoint: string;
  readonly schedule: string;
  readonly state: EndpointState;
  readonly polls: number;
  readonly lastSuccessAt?: string;
  readonly runningForSeconds?: number;
  readonly lastError?: { readonly reason: string; readonly message: string; readonly at: string };
}

export interface AccountReport {
  readonly account: string;
  readonly exists?: Figure;
  readonly balances: ReadonlyArray<{ readonly asset: string; readonly balance: Figure; readonly lowWatermark?: Figure; readonly low: boolean }>;
  readonly signerChanges?: Figure;
}

export interface ProbeReport {
  readonly submissions: Figure;
  /** Failures summed over every reason. */
  readonly failures: number;
  /** (submissions − failures) / submissions; null before the first submission. */
  readonly successRatio: number | null;
  /** Mean duration of the runs the latest publication added, from the histogram's `_sum` and `_count`. */
  readonly lastDurationSeconds?: number;
  readonly lastSuccessTimestampSeconds?: Figure;
}

export interface TargetReport {
  readonly name: string;
  readonly url: string;
  readonly state: TargetState;
  readonly network?: string;
  readonly horizonVersion?: string;
  readonly coreVersion?: string;
  readonly protocolVersion?: Figure;
  readonly latestLedger?: Figure;
  readonly latestLedgerClosedTimestampSeconds?: Figure;
  readonly latestLedgerAgeSeconds?: number;
  readonly ingestLagLedgers?: Figure;
  readonly baseFeeStroops?: Figure;
  readonly feeChargedP50Stroops?: Figure;
  readonly feeChargedP90Stroops?: Figure;
  readonly ledgerCapacityUsageRatio?: Figure;
  readonly transactions?: { readonly successful: Figure; readonly failed: Figure; readonly failedShare: number | null };
  readonly liquidityPools?: Figure;
  readonly accounts?: readonly AccountReport[];
  readonly txProbe?: ProbeReport;
  readonly endpoints: readonly EndpointReport[];
  /** Per sparkline, [Unix ms, value] pairs of the last 30 minutes, oldest first. */
  readonly history: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>;
}

export interface StatusReport {
  readonly version: string;
  readonly generatedAt: string;
  readonly historyWindowSeconds: number;
  readonly targets: readonly TargetReport[];
}

export interface TargetView {
  readonly name: string;
  /** With any credentials removed. */
  readonly url: string;
  readonly endpoints: readonly EndpointStatus[];
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function endpointReport(status: EndpointStatus, nowMs: number): EndpointReport {
  const failing = status.lastError !== undefined && (status.lastSuccessMs ?? 0) < status.lastError.atMs;
  const state: EndpointState =
    status.runningSinceMs !== undefined ? "running" : failing ? "failing" : status.lastSuccessMs !== undefined ? "ok" : "waiting";
  return {
    endpoint: status.endpoint,
    schedule: status.schedule,
    state,
    polls: status.polls,
    ...(status.lastSuccessMs !== undefined ? { lastSuccessAt: iso(status.lastSuccessMs) } : {}),
    ...(status.runningSinceMs !== undefined ? { runningForSeconds: Math.max(0, Math.floor((nowMs - status.runningSinceMs) / 1000)) } : {}),
    ...(status.lastError !== undefined
      ? { lastError: { reason: status.lastError.reason, message: status.lastError.message, at: iso(status.lastError.atMs) } }
      : {}),
  };
}

/** Reads one target's series from the board at one instant. */
class TargetSeries {
  constructor(
    private readonly board: StatusBoard,
    private readonly target: string,
    private readonly nowMs: number,
  ) {}

  all(metric: string): readonly StatusSeries[] {
    return this.board.series(this.target, metric, this.nowMs);
  }

  figure(metric: string, labels?: Labels): Figure | undefined {
    const found = this.all(metric).find((series) => labelsMatch(series.labels, labels));
    if (found === undefined) return undefined;
    return { metric, ...(labels !== undefined ? { labels } : {}), value: found.value };
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function transactions(series: TargetSeries): TargetReport["transactions"] {
  const successful = series.figure(METRICS.transactionsTotal.name, { result: "successful" });
  const failed = series.figure(METRICS.transactionsTotal.name, { result: "failed" });
  if (successful === undefined || failed === undefined) return undefined;
  const total = successful.value + failed.value;
  return { successful, failed, failedShare: total === 0 ? null : failed.value / total };
}

function accounts(series: TargetSeries): AccountReport[] | undefined {
  const names = new Set<string>();
  for (const family of [ACCOUNT_FAMILIES.exists, ACCOUNT_FAMILIES.balance]) {
    for (const { labels } of series.all(family)) if (labels.account !== undefined) names.add(labels.account);
  }
  if (names.size === 0) return undefined;
  return [...names].map((account) => ({
    account,
    ...optional("exists", series.figure(ACCOUNT_FAMILIES.exists, { account })),
    balances: series
      .all(ACCOUNT_FAMILIES.balance)
      .filter(({ labels }) => labels.account === account && labels.asset !== undefined)
      .map(({ labels, value }) => {
        const asset = labels.asset!;
        const lowWatermark = series.figure(ACCOUNT_FAMILIES.lowWatermark, { account, asset });
        return {
          asset,
          balance: { metric: ACCOUNT_FAMILIES.balance, labels: { account, asset }, value },
          ...optional("lowWatermark", lowWatermark),
          low: lowWatermark !== undefined && value < lowWatermark.value,
        };
      }),
    ...optional("signerChanges", series.figure(ACCOUNT_FAMILIES.signerChanges, { account })),
  }));
}

function txProbe(series: TargetSeries, board: StatusBoard, target: string): ProbeReport | undefined {
  const submissions = series.figure(PROBE_FAMILIES.submissions);
  if (submissions === undefined) return undefined;
  const failures = series.all(PROBE_FAMILIES.failures).reduce((total, { value }) => total + value, 0);
  return {
    submissions,
    failures,
    successRatio: submissions.value === 0 ? null : (submissions.value - failures) / submissions.value,
    ...optional("lastDurationSeconds", board.latestMean(target, PROBE_FAMILIES.duration)),
    ...optional("lastSuccessTimestampSeconds", series.figure(PROBE_FAMILIES.lastSuccess)),
  };
}

function targetState(up: Figure | undefined, endpoints: readonly EndpointReport[]): TargetState {
  const root = endpoints.find((endpoint) => endpoint.endpoint === "root");
  if (root === undefined || root.polls === 0 || up === undefined) return "waiting";
  if (up.value === 0) return "down";
  return endpoints.some((endpoint) => endpoint.state === "failing") ? "degraded" : "up";
}

export function targetReport(target: TargetView, board: StatusBoard, nowMs: number): TargetReport {
  const series = new TargetSeries(board, target.name, nowMs);
  const endpoints = target.endpoints.map((status) => endpointReport(status, nowMs));
  const info = series.all(METRICS.info.name)[0]?.labels;
  const closedAt = series.figure(METRICS.historyLatestLedgerClosedTimestamp.name);
  const history: Record<string, Array<[number, number]>> = {};
  for (const { id } of SPARKLINES) history[id] = board.history(target.name, id, nowMs).map(({ atMs, value }) => [atMs, value]);
  return {
    name: target.name,
    url: target.url,
    state: targetState(series.figure(METRICS.up.name), endpoints),
    ...optional("network", info?.network),
    ...optional("horizonVersion", info?.horizon_version),
    ...optional("coreVersion", info?.core_version),
    ...optional("protocolVersion", series.figure(METRICS.currentProtocolVersion.name)),
    ...optional("latestLedger", series.figure(METRICS.ingestLatestLedger.name)),
    ...optional("latestLedgerClosedTimestampSeconds", closedAt),
    ...optional("latestLedgerAgeSeconds", closedAt === undefined ? undefined : Math.max(0, Math.round(nowMs / 1000 - closedAt.value))),
    ...optional("ingestLagLedgers", series.figure(METRICS.ingestLagLedgers.name)),
    ...optional("baseFeeStroops", series.figure(METRICS.feeStatsBaseFee.name)),
    ...optional("feeChargedP50Stroops", series.figure(METRICS.feeCharged.name, { stat: "p50" })),
    ...optional("feeChargedP90Stroops", series.figure(METRICS.feeCharged.name, { stat: "p90" })),
    ...optional("ledgerCapacityUsageRatio", series.figure(METRICS.ledgerCapacityUsage.name)),
    ...optional("transactions", transactions(series)),
    ...optional("liquidityPools", series.figure(METRICS.liquidityPools.name)),
    ...optional("accounts", accounts(series)),
    ...optional("txProbe", txProbe(series, board, target.name)),
    endpoints,
    history,
  };
}

export function statusReport(version: string, targets: readonly TargetView[], board: StatusBoard, nowMs: number): StatusReport {
  return {
    version,
    generatedAt: iso(nowMs),
    historyWindowSeconds: HISTORY_WINDOW_MS / 1000,
    targets: targets.map((target) => targetReport(target, board, nowMs)),
  };
}
