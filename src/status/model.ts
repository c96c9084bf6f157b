import type { TargetAgreement } from "../agreement/engine.js";
import {
  HORIZON_ACCOUNT_METRICS,
  METRICS,
  RPC_ACCOUNT_METRICS,
  RPC_METRICS,
  type AccountMetricSet,
  type TargetLabel,
} from "../catalog/metrics.js";
import type { Labels } from "../exposition/samples.js";
import type { StoreTarget } from "../exposition/store.js";
import type { EndpointStatus } from "../scheduler/job-runner.js";
import { ASSET_FLAGS } from "../client/asset-schemas.js";
import { corridorReports } from "./corridors.js";
import { figure, HISTORY_WINDOW_MS, StatusBoard, names, poolOf } from "./board.js";
import type { Figure, SeriesReader, SparklineSource, StatusSeries } from "./board.js";

/** `percent`: a ratio, drawn as a percentage. */
type SparklineExtra = Pick<SparklineSource, "labels" | "histogramMean"> & { readonly percent?: true };

function sparkline(id: string, title: string, unit: string, family: string, extra: SparklineExtra = {}) {
  return { id, title, unit, family, ...extra };
}

function inclusionFee(kind: string, title: string, stat: string) {
  const family = RPC_METRICS.inclusionFee.name;
  return sparkline(`rpc_${kind}_fee_${stat}`, `${title} inclusion fee ${stat}`, "stroops", family, {
    labels: { kind, stat },
  });
}
const feeWindowTransactions = RPC_METRICS.feeStatsTransactions.name;

/** Each kind's sparklines, drawn from its own series. */
export const SPARKLINES: Readonly<Record<TargetLabel, readonly ReturnType<typeof sparkline>[]>> = {
  horizon: [
    sparkline("ingest_lag", "Ingest lag", "ledgers", METRICS.ingestLagLedgers.name),
    sparkline("ledger_close_interval", "Ledger close interval", "s", METRICS.ledgerCloseInterval.name, {
      histogramMean: true,
    }),
    sparkline("fee_p50", "Fee charged p50", "stroops", METRICS.feeCharged.name, { labels: { stat: "p50" } }),
    sparkline("fee_p90", "Fee charged p90", "stroops", METRICS.feeCharged.name, { labels: { stat: "p90" } }),
    sparkline("capacity", "Ledger capacity used", "%", METRICS.ledgerCapacityUsage.name, { percent: true }),
  ],
  rpc: [
    inclusionFee("soroban", "Soroban", "p50"),
    inclusionFee("soroban", "Soroban", "p90"),
    inclusionFee("classic", "Classic", "p90"),
    sparkline("rpc_soroban_transactions", "Soroban transactions in the fee window", "tx", feeWindowTransactions, {
      labels: { kind: "soroban" },
    }),
  ],
};

/** Every family the status reads; the board keeps nothing else (no per-pool series). */
const STATUS_FAMILIES: ReadonlySet<string> = new Set([
  // A Horizon's own figures (horizonFigures), sparklines and transaction probe (txProbe).
  ...names(METRICS, ["up", "info", "ingestLatestLedger", "historyLatestLedgerClosedTimestamp", "ingestLagLedgers"]),
  ...names(METRICS, ["currentProtocolVersion", "feeStatsBaseFee", "feeCharged", "ledgerCapacityUsage"]),
  ...names(METRICS, ["transactionsTotal", "ledgerCloseInterval", "liquidityPools", "txProbeSubmissions"]),
  ...names(METRICS, ["txProbeFailures", "txProbeDuration", "txProbeLastSuccess", "txProbeRefused"]),
  // A Horizon's watched assets (assetReports) and markets (marketReports).
  ...names(METRICS, ["assetExists", "assetSupply", "assetHolders", "assetFlag", "assetFlagChanges"]),
  ...names(METRICS, ["marketTraded", "marketPrice", "marketReferencePrice", "marketPriceDeviation"]),
  ...names(METRICS, ["marketBucketTimestamp", "marketTrades", "marketMakerOffers"]),
  // A Horizon's corridors (corridorReports; the duration's buckets through StatusBoard.windowBuckets).
  ...names(METRICS, ["corridorPaths", "corridorBestRate", "corridorBestHops", "corridorMinRate", "corridorRuns"]),
  ...names(METRICS, ["corridorDuration", "corridorLastFound"]),
  // A Stellar RPC's own figures (rpcFigures) and sparklines.
  ...names(RPC_METRICS, ["up", "healthy", "info", "latestLedger", "latestLedgerClosedTimestamp", "oldestLedger"]),
  ...names(RPC_METRICS, ["retentionWindow", "protocolVersion", "inclusionFee", "feeStatsTransactions"]),
  // A Stellar RPC's watched contracts (contracts), and its events for their rate.
  ...names(RPC_METRICS, ["contractEntryExists", "contractEntryArchived", "contractEntryTtl", "contractEntryExpiry"]),
  ...names(RPC_METRICS, ["contractInfo", "contractEvents", "contractLastEvent"]),
  // Either kind's watched accounts (accounts), and a Horizon's payment activity.
  ...[HORIZON_ACCOUNT_METRICS, RPC_ACCOUNT_METRICS].flatMap((catalog) =>
    names(catalog, ["accountExists", "accountBalance", "accountBalanceLowWatermark", "accountSignerChangesTotal"]),
  ),
  ...names(METRICS, ["accountLastPaymentTimestamp"]),
]);

export function createStatusBoard(now?: () => number): StatusBoard {
  return new StatusBoard(STATUS_FAMILIES, [...SPARKLINES.horizon, ...SPARKLINES.rpc], now);
}

/** A watched entry's state as alerts/stellar-contracts.rules.yml fire (`missing`: an instance or code entry not
 * returned); `absent`: a configured key not returned (no alert: an expired temporary entry is not returned either);
 * `unknown`: neither TTL nor archival published (a live-until of 0, stellar-rpc#990). */
type ContractEntryState = "live" | "expiring_soon" | "expiring" | "archived" | "missing" | "absent" | "unknown";

/** Seconds to archival below which an entry is `expiring_soon`, as StellarContractEntryExpiringSoon fires. */
export const EXPIRING_SOON_SECONDS = 14 * 86_400;
/** Seconds to archival below which an entry is `expiring`, as StellarContractEntryExpiring fires. */
export const EXPIRING_SECONDS = 3 * 86_400;

/** A value no longer on /metrics (its poll failed or went stale), as last published, and how long ago. */
export type KnownBefore<Value = string | number> = { readonly value: Value; readonly ageSeconds: number };

type EndpointReport = ReturnType<typeof endpointReport>;

/** A target's figures (of its kind: all optional but `state`), its polls and its sparklines' points. */
export type TargetReport = Pick<ReturnType<typeof horizonFigures>, "state"> &
  Partial<ReturnType<typeof horizonFigures> & ReturnType<typeof rpcFigures>> &
  Pick<TargetView, "name" | "title" | "url"> & {
    /** The target's label and its value on /metrics: `horizon` or `rpc`. */
    readonly kind: TargetLabel;
    readonly agreement?: ReturnType<typeof agreementReport>;
    readonly endpoints: readonly EndpointReport[];
    /** Per sparkline, [Unix ms, value] pairs of the last 30 minutes, oldest first. */
    readonly history: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>;
  };

export type StatusReport = ReturnType<typeof statusReport>;

export interface TargetView extends StoreTarget {
  readonly title: string;
  /** With any credentials removed. */
  readonly url: string;
  readonly endpoints: readonly EndpointStatus[];
  /** Its standing against the other targets of its network, once its network is known. */
  readonly agreement?: TargetAgreement | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** An upstream time as ISO text; undefined past what a Date holds (year 275760), which a uint64 it sent can be. */
export function upstreamIso(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const secondsSince = (atSeconds: number, nowMs: number): number => Math.max(0, Math.round(nowMs / 1000 - atSeconds));
const ageSeconds = (atMs: number, nowMs: number): number => Math.max(0, Math.round((nowMs - atMs) / 1000));

/** Its last poll failed, whether or not another runs now: a retry in flight has not healed it yet. */
const lastFailed = ({ lastSuccessMs, lastError }: EndpointStatus): boolean =>
  lastError !== undefined && (lastSuccessMs ?? 0) < lastError.atMs;

function endpointState(status: EndpointStatus) {
  if (status.runningSinceMs !== undefined) return "running";
  if (lastFailed(status)) return "failing";
  return status.lastSuccessMs === undefined ? "waiting" : "ok";
}

function endpointReport(status: EndpointStatus, nowMs: number) {
  const { lastSuccessMs, runningSinceMs, lastError } = status;
  return {
    endpoint: status.endpoint,
    schedule: status.schedule,
    state: endpointState(status),
    polls: status.polls,
    lastSuccessAt: lastSuccessMs === undefined ? undefined : iso(lastSuccessMs),
    runningForSeconds:
      runningSinceMs === undefined ? undefined : Math.max(0, Math.floor((nowMs - runningSinceMs) / 1000)),
    lastError: lastError && { reason: lastError.reason, message: lastError.message, at: iso(lastError.atMs) },
  };
}

/** Reads one target's series from the board at one instant. */
function targetSeries(board: StatusBoard, target: TargetView, nowMs: number) {
  const all = (metric: string) => board.series(target, metric, nowMs);
  // The series as their polls last published them, even once stale; a family they lack (a persistent counter) now.
  const known: SeriesReader = { all: (metric) => board.lastKnown(target, metric)?.series ?? all(metric) };
  return { board, target, nowMs, all, known };
}
type TargetSeries = ReturnType<typeof targetSeries>;

/** Per section, the family whose last publication dates it and how it is built from series. */
type SectionSource<Section> = readonly [dating: string, build: (read: SeriesReader) => Section | undefined];
type SectionBuilders<Sections> = { readonly [Key in keyof Sections]: SectionSource<Sections[Key]> };

/** An identity figure's source, for its last known value: a label or the value of a family's first series. */
function labelOf(metric: string, label: string): SectionSource<string> {
  return [metric, (read) => read.all(metric)[0]?.labels[label]];
}
const valueOf = (metric: string): SectionSource<number> => [metric, (read) => read.all(metric)[0]?.value];

const HORIZON_IDENTITY = {
  network: labelOf(METRICS.info.name, "network"),
  horizonVersion: labelOf(METRICS.info.name, "horizon_version"),
  coreVersion: labelOf(METRICS.info.name, "core_version"),
  protocolVersion: valueOf(METRICS.currentProtocolVersion.name),
  latestLedger: valueOf(METRICS.ingestLatestLedger.name),
};
const RPC_IDENTITY = {
  network: labelOf(RPC_METRICS.info.name, "network"),
  version: labelOf(RPC_METRICS.info.name, "version"),
  captiveCoreVersion: labelOf(RPC_METRICS.info.name, "captive_core_version"),
  protocolVersion: valueOf(RPC_METRICS.protocolVersion.name),
  latestLedger: valueOf(RPC_METRICS.latestLedger.name),
};

/** Sections from the series /metrics shows now or, once gone (poll failing, target down), as last published, aged. */
function sections<Sections>(series: TargetSeries, builders: SectionBuilders<Sections>) {
  const now: Partial<Sections> = {};
  const known: { [Key in keyof Sections]?: KnownBefore<Sections[Key]> } = {};
  for (const key in builders) {
    const [dating, build] = builders[key];
    const value = build(series);
    if (value !== undefined) {
      now[key] = value;
      continue;
    }
    // Gone from /metrics: built from the series its poll last published, dated by `dating`'s publication.
    const last = series.board.lastKnown(series.target, dating);
    if (last === undefined) continue;
    const kept = build(series.known);
    if (kept !== undefined) known[key] = { value: kept, ageSeconds: ageSeconds(last.atMs, series.nowMs) };
  }
  return { now, known };
}

/** The last known values of the identity figures absent now, beside the kept sections; undefined when none. */
function lastKnown<Identity, Kept>(series: TargetSeries, identity: SectionBuilders<Identity>, kept: Kept) {
  const known = { ...sections(series, identity).known, ...kept };
  return Object.keys(known).length === 0 ? undefined : known;
}

function transactions(series: TargetSeries) {
  const successful = figure(series, METRICS.transactionsTotal.name, { result: "successful" });
  const failed = figure(series, METRICS.transactionsTotal.name, { result: "failed" });
  if (successful === undefined || failed === undefined) return undefined;
  const total = successful.value + failed.value;
  return { successful, failed, failedShare: total === 0 ? null : failed.value / total };
}

/** The liquidity pool of a pool-share balance (asset `pool:<id>`), with its assets when the pools poll tracks it. */
function poolShare(series: SeriesReader, asset: string) {
  const poolId = poolOf(asset);
  if (poolId === undefined) return undefined;
  const info = series.all(METRICS.liquidityPoolInfo.name).find(({ labels }) => labels.pool_id === poolId)?.labels;
  const assets = info?.asset_a && info.asset_b ? ([info.asset_a, info.asset_b] as const) : undefined;
  return { poolId, assets };
}

/** A family's figures by a key naming one series each, so a 10 000-entry report reads the family once. */
function figuresBy(series: SeriesReader, metric: string, keyOf: (labels: Labels) => string) {
  const values = new Map(series.all(metric).map(({ labels, value }) => [keyOf(labels), value]));
  return (labels: Labels): Figure | undefined => {
    const value = values.get(keyOf(labels));
    return value === undefined ? undefined : { metric, labels, value };
  };
}

const byAccount = ({ account }: Labels) => account ?? "";
const byAccountAsset = ({ account, asset }: Labels) => `${account}\u0000${asset}`;

/** Watched accounts from one kind's account families, in the order the poll published them. */
function accounts(series: SeriesReader, metrics: AccountMetricSet, nowMs: number) {
  // Each account's balances, so a report of 10 000 accounts reads the family once.
  const balances = new Map<string, StatusSeries[]>();
  for (const found of series.all(metrics.accountBalance.name)) {
    const account = byAccount(found.labels);
    const group = balances.get(account);
    if (group === undefined) balances.set(account, [found]);
    else group.push(found);
  }
  const names = new Set(series.all(metrics.accountExists.name).map(({ labels }) => byAccount(labels)));
  for (const account of balances.keys()) names.add(account);
  if (names.size === 0) return undefined;
  const exists = figuresBy(series, metrics.accountExists.name, byAccount);
  const lowWatermark = figuresBy(series, metrics.accountBalanceLowWatermark.name, byAccountAsset);
  const signerChanges = figuresBy(series, metrics.accountSignerChangesTotal.name, byAccount);
  const lastPayments = lastPaymentAges(series, nowMs);
  return [...names].map((account) => ({
    account,
    exists: exists({ account }),
    balances: (balances.get(account) ?? []).map(({ labels, value }) => {
      const of = { account, asset: labels.asset ?? "" };
      const low = lowWatermark(of);
      return {
        asset: of.asset,
        balance: { metric: metrics.accountBalance.name, labels: of, value },
        lowWatermark: low,
        low: low !== undefined && value < low.value,
        pool: poolShare(series, of.asset),
      };
    }),
    signerChanges: signerChanges({ account }),
    // Horizon's with `activity: true`: seconds since the newest payment received and sent, once known.
    lastPaymentAgeSeconds: lastPayments.get(account),
  }));
}

/** Per account, seconds since its newest payment in each direction (the activity job's gauge). */
function lastPaymentAges(series: SeriesReader, nowMs: number): Map<string, { received?: number; sent?: number }> {
  const ages = new Map<string, { received?: number; sent?: number }>();
  for (const { labels, value } of series.all(METRICS.accountLastPaymentTimestamp.name)) {
    const { account, direction } = labels;
    if (account === undefined || (direction !== "received" && direction !== "sent")) continue;
    ages.set(account, { ...ages.get(account), [direction]: secondsSince(value, nowMs) });
  }
  return ages;
}

/** An entry's state from its series; `secondsLeft` is to its expected archival. */
export function contractEntryState(
  entry: string,
  exists: number,
  archived: number | undefined,
  secondsLeft: number | undefined,
): ContractEntryState {
  if (exists === 0) return entry === "instance" || entry === "code" ? "missing" : "absent";
  if (archived === 1) return "archived";
  if (archived === undefined || secondsLeft === undefined) return "unknown";
  if (secondsLeft < EXPIRING_SECONDS) return "expiring";
  return secondsLeft < EXPIRING_SOON_SECONDS ? "expiring_soon" : "live";
}

const contractEntryKey = ({ contract, entry, durability }: Labels) => `${contract}\u0000${entry}\u0000${durability}`;

/** A Stellar RPC's watched contract entries, soonest archival first. */
function contracts(series: SeriesReader, nowMs: number, eventsPerSecond: (contract: string) => number | undefined) {
  const entries = series.all(RPC_METRICS.contractEntryExists.name);
  if (entries.length === 0) return undefined;
  const lastEventBy = figuresBy(series, RPC_METRICS.contractLastEvent.name, ({ contract }) => contract ?? "");
  const contractIds = new Map(
    series.all(RPC_METRICS.contractInfo.name).map(({ labels }) => [labels.contract, labels.contract_id]),
  );
  const archivedBy = figuresBy(series, RPC_METRICS.contractEntryArchived.name, contractEntryKey);
  const ttlBy = figuresBy(series, RPC_METRICS.contractEntryTtl.name, contractEntryKey);
  const expiryBy = figuresBy(series, RPC_METRICS.contractEntryExpiry.name, contractEntryKey);
  const reports = entries.map(({ labels, value: exists }) => {
    const { contract = "", entry = "", durability = "" } = labels;
    const of = { contract, entry, durability };
    const archived = archivedBy(of);
    const expiry = expiryBy(of);
    const secondsLeft = expiry === undefined ? undefined : Math.max(0, expiry.value - nowMs / 1000);
    const lastEvent = entry === "instance" ? lastEventBy({ contract })?.value : undefined;
    return {
      contract,
      entry,
      durability,
      state: contractEntryState(entry, exists, archived?.value, secondsLeft),
      exists: { metric: RPC_METRICS.contractEntryExists.name, labels: of, value: exists },
      /** The contract's C... id, when its info series is published. */
      contractId: contractIds.get(contract),
      /** On instance rows: seconds since the newest event's ledger closed; events per second once two polls are in. */
      lastEventAgeSeconds: lastEvent === undefined ? undefined : Math.max(0, nowMs / 1000 - lastEvent),
      eventsPerSecond: entry === "instance" ? eventsPerSecond(contract) : undefined,
      archived,
      ttlLedgers: ttlBy(of),
      expiryTimestampSeconds: expiry,
      expiresAt: expiry && upstreamIso(expiry.value * 1000),
      /** Until the expected archival at the report's time; never below 0. */
      daysLeft: secondsLeft === undefined ? undefined : secondsLeft / 86_400,
    };
  });
  // Time to archival: what is gone already first, then the soonest, then what has no time.
  const archival = ({ state, daysLeft }: (typeof reports)[number]) =>
    state === "archived" || state === "missing" ? -Infinity : (daysLeft ?? Infinity);
  // Code-unit order for ties: localeCompare would take most of a 10 000-entry report's time.
  const byName = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);
  return reports.sort(
    (left, right) =>
      archival(left) - archival(right) || byName(left.contract, right.contract) || byName(left.entry, right.entry),
  );
}

function txProbe(series: TargetSeries) {
  const submissions = figure(series, METRICS.txProbeSubmissions.name);
  if (submissions === undefined) return undefined;
  const failures = series.all(METRICS.txProbeFailures.name).reduce((total, { value }) => total + value, 0);
  const found = series.all(METRICS.txProbeRefused.name).find(({ value }) => value === 1);
  const refused = found && { metric: METRICS.txProbeRefused.name, labels: found.labels, value: found.value };
  return {
    submissions,
    failures,
    successRatio: submissions.value === 0 ? null : (submissions.value - failures) / submissions.value,
    // The mean duration of the runs the latest publication added.
    lastDurationSeconds: series.board.latestMean(series.target, METRICS.txProbeDuration.name),
    lastSuccessTimestampSeconds: figure(series, METRICS.txProbeLastSuccess.name),
    refused,
  };
}

/** A Horizon's watched assets (`CODE:ISSUER`) in their poll's order: supply, holders, flags, age; undefined if none. */
function assetReports(series: SeriesReader, lastSuccessMs: number | undefined, nowMs: number) {
  const exists = series.all(METRICS.assetExists.name);
  if (exists.length === 0) return undefined;
  const age = lastSuccessMs === undefined ? undefined : ageSeconds(lastSuccessMs, nowMs);
  return exists.map(({ labels, value }) => {
    const asset = labels.asset ?? "";
    return {
      asset,
      exists: { metric: METRICS.assetExists.name, labels: { asset }, value },
      flags: ASSET_FLAGS.filter((flag) => figure(series, METRICS.assetFlag.name, { asset, flag })?.value === 1),
      supply: figure(series, METRICS.assetSupply.name, { asset }),
      holders: figure(series, METRICS.assetHolders.name, { asset, held_by: "authorized" }),
      frozenHolders: figure(series, METRICS.assetHolders.name, { asset, held_by: "unauthorized" }),
      flagChanges: figure(series, METRICS.assetFlagChanges.name, { asset }),
      ageSeconds: age,
    };
  });
}

/** A Horizon's watched markets (close, peg, makers) in their poll's order; undefined when it watches none. */
function marketReports(series: SeriesReader) {
  const traded = series.all(METRICS.marketTraded.name);
  if (traded.length === 0) return undefined;
  const of = (metric: string, market: string) => series.all(metric).filter((found) => found.labels.market === market);
  return traded.map(({ labels, value }) => {
    const market = labels.market ?? "";
    const makers = new Map<string, { asks?: number; bids?: number }>();
    for (const { labels: offerLabels, value: count } of of(METRICS.marketMakerOffers.name, market)) {
      const maker = offerLabels.maker ?? "";
      makers.set(maker, { ...makers.get(maker), [offerLabels.side === "ask" ? "asks" : "bids"]: count });
    }
    return {
      market,
      // A trade aggregation record came back for the pair; `close` is its last completed bucket's, counter per base.
      traded: value === 1,
      close: figure(series, METRICS.marketPrice.name, { market, stat: "close" })?.value,
      bucketTimestampSeconds: figure(series, METRICS.marketBucketTimestamp.name, { market })?.value,
      referencePrice: figure(series, METRICS.marketReferencePrice.name, { market })?.value,
      deviationRatio: figure(series, METRICS.marketPriceDeviation.name, { market })?.value,
      // Counted since the exporter started, both trade types.
      trades: of(METRICS.marketTrades.name, market).reduce((sum, trades) => sum + trades.value, 0),
      makers: [...makers].map(([maker, sides]) => ({ maker, ...sides })),
    };
  });
}

/** The state of a target from its heartbeat poll (root, status) and its up series. */
function targetState(heartbeat: string, up: Figure | undefined, endpoints: readonly EndpointStatus[]) {
  const first = endpoints.find((endpoint) => endpoint.endpoint === heartbeat);
  const degraded = endpoints.some(lastFailed);
  // A shard other than 0 runs no heartbeat poll and publishes no up series: the polls it runs are all it knows.
  if (first === undefined) {
    if (!endpoints.some(({ polls }) => polls > 0)) return "waiting";
    return degraded ? "degraded" : "up";
  }
  // A target never reached is down once its heartbeat has failed, whatever its up series says yet.
  const neverUp = first.lastSuccessMs === undefined && first.lastError !== undefined;
  if (neverUp || up?.value === 0) return "down";
  if (first.polls === 0 || up === undefined) return "waiting";
  return degraded ? "degraded" : "up";
}

function closedAtFigures(closedAt: Figure | undefined, nowMs: number) {
  return {
    latestLedgerClosedTimestampSeconds: closedAt,
    latestLedgerAgeSeconds: closedAt && secondsSince(closedAt.value, nowMs),
  };
}

function horizonFigures(series: TargetSeries, nowMs: number) {
  const info = series.all(METRICS.info.name)[0]?.labels;
  const assetsPolled = series.target.endpoints.find(({ endpoint }) => endpoint === "assets")?.lastSuccessMs;
  const kept = sections(series, {
    accounts: [METRICS.accountExists.name, (read) => accounts(read, HORIZON_ACCOUNT_METRICS, nowMs)],
    assets: [METRICS.assetExists.name, (read) => assetReports(read, assetsPolled, nowMs)],
  });
  return {
    state: targetState("root", figure(series, METRICS.up.name), series.target.endpoints),
    network: info?.network,
    horizonVersion: info?.horizon_version,
    coreVersion: info?.core_version,
    protocolVersion: figure(series, METRICS.currentProtocolVersion.name),
    latestLedger: figure(series, METRICS.ingestLatestLedger.name),
    ...closedAtFigures(figure(series, METRICS.historyLatestLedgerClosedTimestamp.name), nowMs),
    ingestLagLedgers: figure(series, METRICS.ingestLagLedgers.name),
    baseFeeStroops: figure(series, METRICS.feeStatsBaseFee.name),
    feeChargedP50Stroops: figure(series, METRICS.feeCharged.name, { stat: "p50" }),
    feeChargedP90Stroops: figure(series, METRICS.feeCharged.name, { stat: "p90" }),
    ledgerCapacityUsageRatio: figure(series, METRICS.ledgerCapacityUsage.name),
    transactions: transactions(series),
    liquidityPools: figure(series, METRICS.liquidityPools.name),
    ...kept.now,
    txProbe: txProbe(series),
    markets: marketReports(series),
    corridors: corridorReports(series, series.board.windowBuckets(series.target, nowMs)),
    lastKnown: lastKnown(series, HORIZON_IDENTITY, kept.known),
  };
}

/** A Stellar RPC's figures: its ledger, its own figures and its watched accounts and contracts. */
function rpcFigures(series: TargetSeries, nowMs: number) {
  const info = series.all(RPC_METRICS.info.name)[0]?.labels;
  const eventsPerSecond = (contract: string) => series.board.eventRate(series.target, contract, nowMs);
  const fee = (kind: string, stat: string) => figure(series, RPC_METRICS.inclusionFee.name, { kind, stat });
  const kept = sections(series, {
    accounts: [RPC_ACCOUNT_METRICS.accountExists.name, (read) => accounts(read, RPC_ACCOUNT_METRICS, nowMs)],
    // Kept entries' days left count down to now: the network archives on time whether or not this RPC answers.
    contracts: [RPC_METRICS.contractEntryExists.name, (read) => contracts(read, nowMs, eventsPerSecond)],
  });
  return {
    state: targetState("status", figure(series, RPC_METRICS.up.name), series.target.endpoints),
    network: info?.network,
    protocolVersion: figure(series, RPC_METRICS.protocolVersion.name),
    latestLedger: figure(series, RPC_METRICS.latestLedger.name),
    ...closedAtFigures(figure(series, RPC_METRICS.latestLedgerClosedTimestamp.name), nowMs),
    // Its own figures: health, versions, retention and inclusion fees.
    rpc: {
      healthy: figure(series, RPC_METRICS.healthy.name),
      version: info?.version,
      captiveCoreVersion: info?.captive_core_version,
      oldestLedger: figure(series, RPC_METRICS.oldestLedger.name),
      retentionWindowLedgers: figure(series, RPC_METRICS.retentionWindow.name),
      sorobanInclusionFeeP50Stroops: fee("soroban", "p50"),
      sorobanInclusionFeeP90Stroops: fee("soroban", "p90"),
      classicInclusionFeeP50Stroops: fee("classic", "p50"),
      classicInclusionFeeP90Stroops: fee("classic", "p90"),
    },
    ...kept.now,
    lastKnown: lastKnown(series, RPC_IDENTITY, kept.known),
  };
}

/** How the target's ledger hashes compare with the other targets' of its network (`disagreeing`: lately). */
function agreementReport(agreement: TargetAgreement | undefined) {
  if (agreement === undefined) return undefined;
  const { network, comparisons, disagreements, disagreeing, lastDisagreement, protocolBehind } = agreement;
  return { network, comparisons, disagreements, disagreeing, lastDisagreementLedger: lastDisagreement, protocolBehind };
}

function targetReport(target: TargetView, board: StatusBoard, nowMs: number): TargetReport {
  const series = targetSeries(board, target, nowMs);
  const endpoints = target.endpoints.map((status) => endpointReport(status, nowMs));
  const points = (id: string) => board.history(target, id, nowMs).map(({ atMs, value }) => [atMs, value] as const);
  const history = Object.fromEntries(SPARKLINES[target.label].map(({ id }) => [id, points(id)]));
  const figures = (target.label === "rpc" ? rpcFigures : horizonFigures)(series, nowMs);
  const { label: kind, name, title, url } = target;
  return { kind, name, title, url, ...figures, agreement: agreementReport(target.agreement), endpoints, history };
}

/** What /status.json shows; a field that is undefined is left out of it, as JSON.stringify leaves it out. */
export function statusReport(version: string, targets: readonly TargetView[], board: StatusBoard, nowMs: number) {
  return {
    version,
    generatedAt: iso(nowMs),
    historyWindowSeconds: HISTORY_WINDOW_MS / 1000,
    targets: targets.map((target) => targetReport(target, board, nowMs)),
  };
}
