// The exporter's metric contract, declared once: docs/metrics.md, the dashboards and the alert rules are checked
// against it, so a rename cannot silently break one of them.

type MetricType = "gauge" | "counter" | "histogram";

/** The Horizon endpoints the exporter polls, the network's then the watched items'; the `endpoint` label's values. */
export const ENDPOINTS = [
  ...["root", "fee_stats", "ledgers", "liquidity_pools"],
  ...["accounts", "activity", "assets", "markets", "corridors"],
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** A Stellar RPC poll (`endpoint` label): `status` batches getHealth, getLatestLedger, getFeeStats; `versions` the rare
 * getNetwork, getVersionInfo; `accounts`/`contracts` getLedgerEntries (200 keys), `events` getEvents (25 contracts). */
export const RPC_ENDPOINTS = ["status", "versions", "accounts", "contracts", "events"] as const;
export type RpcEndpoint = (typeof RPC_ENDPOINTS)[number];

export type PollEndpoint = Endpoint | RpcEndpoint;

/** Which poll produces the series; `exporter` series describe the exporter, `agreement` ones compare targets. */
type MetricSource = PollEndpoint | "tx_probe" | "exporter" | "agreement";

/** Sources whose series a target publishes to the metric store. */
export type PublishedSource = Exclude<MetricSource, "exporter" | "agreement">;

/** What an HTTP request to Horizon was for: an endpoint's poll, or the probe's submission. */
export type RequestPurpose = Endpoint | "transactions";

/** The label naming the target of a per-target series. */
export type TargetLabel = "horizon" | "rpc";

export interface MetricDefinition {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  /** Labels besides the target label, which every per-target series carries. */
  readonly labels: readonly string[];
  /** `rpc` for the series of Stellar RPC targets; `horizon` when absent. */
  readonly targetLabel?: "rpc";
  readonly source: MetricSource;
  readonly buckets?: readonly number[];
  /** False for the few exporter-wide series that carry no `horizon` label. */
  readonly perTarget?: false;
}

type Scope = Pick<MetricDefinition, "targetLabel" | "perTarget">;
type LabelNames = readonly string[];
type Defined<S, T, L> = Readonly<{ name: string; help: string; type: T; labels: L; source: S }>;

/** One source's metric constructors: the name and labels (literal, for the samples' type checks), then the help and a
 * histogram's buckets; `scope` adds the `rpc` target label or marks the series exporter-wide. */
function metricsOf<const S extends MetricSource, const E extends Scope = Record<never, never>>(source: S, scope?: E) {
  const of =
    <T extends MetricType>(type: T) =>
    <const L extends LabelNames = readonly []>(name: string, labels?: L) =>
    (help: string) =>
      ({ name, type, help, labels: labels ?? [], source, ...scope }) as Defined<S, T, L> & E;
  return {
    gauge: of("gauge"),
    counter: of("counter"),
    histogram:
      <const L extends LabelNames = readonly []>(name: string, labels?: L) =>
      (help: string, buckets: readonly number[]) => ({ ...of("histogram")(name, labels)(help), buckets }),
  };
}

const rpc = { targetLabel: "rpc" } as const;

export const FEE_STATS = [
  "min",
  "mode",
  ...["p10", "p20", "p30", "p40", "p50", "p60", "p70", "p80", "p90", "p95", "p99"],
  "max",
] as const;

const account = metricsOf("accounts");

/** A watched account's families, defined once for Horizon and Stellar RPC: alike in suffix, type, labels, meaning. */
const ACCOUNT_FAMILIES = {
  accountInfo: account.gauge("info", ["account", "account_id", "home_domain", "cold"])(
    "A watched account's id, home domain and whether it is configured as cold; always 1.",
  ),
  accountExists: account.gauge("exists", ["account"])(
    "1 when the account exists (Horizon returns it; Stellar RPC: getLedgerEntries returns its entry), 0 when it " +
      "does not (Horizon's 404 not_found problem, or no entry: never created, or merged away).",
  ),
  accountBalance: account.gauge("balance", ["account", "asset"])(
    "Balance of an account in an asset (native, CODE:ISSUER, or pool:<id> for pool shares), in units of that asset.",
  ),
  accountBuyingLiabilities: account.gauge("buying_liabilities", ["account", "asset"])(
    "Amount of an asset the account's open offers may buy, in units of that asset.",
  ),
  accountSellingLiabilities: account.gauge("selling_liabilities", ["account", "asset"])(
    "Amount of an asset the account's open offers may sell, in units of that asset (not spendable).",
  ),
  accountTrustlineLimit: account.gauge("trustline_limit", ["account", "asset"])(
    "Limit of a trustline or pool share holding, in units of the asset.",
  ),
  accountTrustlineAuthorized: account.gauge("trustline_authorized", ["account", "asset"])(
    "1 when the issuer authorises the trustline (the trustline's AUTHORIZED flag, Horizon's is_authorized), else 0.",
  ),
  accountTrustlineExists: account.gauge("trustline_exists", ["account", "asset"])(
    "1 when the account holds a trustline to a configured asset (Stellar RPC targets' `assets:`), 0 when it does not.",
  ),
  accountMinimumBalance: account.gauge("minimum_balance", ["account"])(
    "Lumens the account must keep: (2 + subentries + sponsoring - sponsored) x the latest ledger's base reserve, " +
      "in XLM; absent until a ledger has been read.",
  ),
  accountSubentries: account.gauge("subentries", ["account"])(
    "Subentries of the account (trustlines, offers, signers, data entries).",
  ),
  accountSponsoring: account.gauge("sponsoring", ["account"])(
    "Reserves the account sponsors for other entries (num_sponsoring).",
  ),
  accountSponsored: account.gauge("sponsored", ["account"])(
    "Reserves of the account sponsored by others (num_sponsored).",
  ),
  accountDataEntries: account.gauge("data_entries", ["account"])("Data entries of the account."),
  accountThreshold: account.gauge("threshold", ["account", "level"])(
    "Signature weight an operation of the level (low, medium, high) needs.",
  ),
  accountSignerWeight: account.gauge("signer_weight", ["account", "signer", "type"])(
    "Weight of each signer of the account, by signer key (G..., T..., X..., P...) and Horizon's signer type; a " +
      "master key of weight 0 is not a signer.",
  ),
  accountFlag: account.gauge("flag", ["account", "flag"])(
    "1 when an account flag (auth_required, auth_revocable, auth_immutable, auth_clawback_enabled) is set, else 0.",
  ),
  accountSignerChangesTotal: account.counter("signer_changes_total", ["account"])(
    "Polls at which the account's signers, their weights or its thresholds differed from the previous successful poll.",
  ),
  accountSequenceLedger: account.gauge("sequence_ledger", ["account"])(
    "Ledger of the account's last transaction (sequence_ledger, seqLedger); absent when the source does not carry it.",
  ),
  accountSequenceTimestamp: account.gauge("sequence_timestamp_seconds", ["account"])(
    "Close time of the account's last transaction (sequence_time, seqTime), as a Unix timestamp; absent when the " +
      "source does not carry it.",
  ),
  accountBalanceLowWatermark: account.gauge("balance_low_watermark", ["account", "asset"])(
    "Configured low-water mark of an account's balance in an asset, in units of that asset.",
  ),
  accountOffers: account.gauge("offers", ["account"])(
    "Open offers of the account (counted up to 1000), when offers: true.",
  ),
  accountClaimableBalances: account.gauge("claimable_balances", ["account"])(
    "Claimable balances the account can claim (counted up to 1000), when claimable_balances: true.",
  ),
  accountClaimableAmount: account.gauge("claimable_amount", ["account", "asset"])(
    "Sum of what the account can claim in an asset, in units of that asset, when claimable_balances: true; " +
      "native, the low_balance assets and the first others to 20 assets in all (spam assets get no amount).",
  ),
};
type AccountFamilies = typeof ACCOUNT_FAMILIES;

/** The families a kind lacks: a ledger entry read over Stellar RPC has no offer, claimable or data count, and only a
 * Stellar RPC target checks trustlines to the assets it is configured with (`assets:`). */
const LACKING = {
  horizon: ["accountTrustlineExists"],
  rpc: ["accountDataEntries", "accountOffers", "accountClaimableBalances", "accountClaimableAmount"],
} as const;

/** One kind's account metrics, keyed as in ACCOUNT_FAMILIES, with literal label lists for the samples' type checks. */
type AccountMetrics<Kind extends TargetLabel> = {
  readonly [K in Exclude<keyof AccountFamilies, (typeof LACKING)[Kind][number]>]: AccountFamilies[K] &
    (Kind extends "rpc" ? typeof rpc : unknown);
};

function accountMetrics<Kind extends TargetLabel>(kind: Kind): AccountMetrics<Kind> {
  const lacking: readonly string[] = LACKING[kind];
  const scope = kind === "rpc" ? rpc : {};
  return Object.fromEntries(
    Object.entries(ACCOUNT_FAMILIES)
      .filter(([key]) => !lacking.includes(key))
      .map(([key, family]) => [key, { ...family, name: `stellar_${kind}_account_${family.name}`, ...scope }]),
  ) as AccountMetrics<Kind>;
}

export const HORIZON_ACCOUNT_METRICS = accountMetrics("horizon");
export const RPC_ACCOUNT_METRICS = accountMetrics("rpc");
/** Either kind's: what the accounts samples are built from. */
export type AccountMetricSet = typeof HORIZON_ACCOUNT_METRICS | typeof RPC_ACCOUNT_METRICS;

const root = metricsOf("root");
const feeStats = metricsOf("fee_stats");
const ledgers = metricsOf("ledgers");
const pools = metricsOf("liquidity_pools");
const txProbe = metricsOf("tx_probe");
const activity = metricsOf("activity");
const assets = metricsOf("assets");
const markets = metricsOf("markets");
const corridors = metricsOf("corridors");
const exporter = metricsOf("exporter");
const exporterWide = metricsOf("exporter", { perTarget: false });

/** Both kinds' request and poll durations share their buckets, so their histograms compare bucket for bucket. */
const REQUEST_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const POLL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const METRICS = {
  up: root.gauge("stellar_horizon_up")(
    "1 while the latest root data is fresh and the last root poll succeeded, else 0.",
  ),
  info: root.gauge("stellar_horizon_info", ["horizon_version", "core_version", "network", "network_passphrase"])(
    "Horizon and stellar-core versions and the network this Horizon serves; always 1.",
  ),
  ingestLatestLedger: root.gauge("stellar_horizon_ingest_latest_ledger")("Latest ledger ingested by Horizon."),
  historyLatestLedger: root.gauge("stellar_horizon_history_latest_ledger")(
    "Latest ledger in Horizon's history database.",
  ),
  historyElderLedger: root.gauge("stellar_horizon_history_elder_ledger")(
    "Oldest ledger in Horizon's history database.",
  ),
  coreLatestLedger: root.gauge("stellar_horizon_core_latest_ledger")(
    "Latest ledger known to the stellar-core instance behind Horizon.",
  ),
  ingestLagLedgers: root.gauge("stellar_horizon_ingest_lag_ledgers")(
    "Ledgers stellar-core is ahead of Horizon ingestion (core_latest_ledger - ingest_latest_ledger); absent while " +
      "core_latest_ledger is 0 (core not known yet).",
  ),
  historyLatestLedgerClosedTimestamp: root.gauge("stellar_horizon_history_latest_ledger_closed_timestamp_seconds")(
    "Close time of the latest ledger in Horizon's history database, as a Unix timestamp; absent on a node that has " +
      "ingested nothing.",
  ),
  currentProtocolVersion: root.gauge("stellar_horizon_current_protocol_version")(
    "Protocol version the network currently runs, as reported by Horizon.",
  ),
  supportedProtocolVersion: root.gauge("stellar_horizon_supported_protocol_version")(
    "Highest protocol version this Horizon supports; absent when Horizon does not report it.",
  ),
  coreSupportedProtocolVersion: root.gauge("stellar_horizon_core_supported_protocol_version")(
    "Highest protocol version the stellar-core behind Horizon supports.",
  ),
  feeStatsLastLedger: feeStats.gauge("stellar_horizon_fee_stats_last_ledger")(
    "Ledger the latest fee statistics were computed at.",
  ),
  feeStatsBaseFee: feeStats.gauge("stellar_horizon_fee_stats_base_fee_stroops")(
    "Base fee of the last ledger in the fee statistics, in stroops.",
  ),
  ledgerCapacityUsage: feeStats.gauge("stellar_horizon_ledger_capacity_usage_ratio")(
    "Share of ledger capacity used over Horizon's recent ledger window (0 to 1).",
  ),
  feeCharged: feeStats.gauge("stellar_horizon_fee_charged_stroops", ["stat"])(
    "Fee charged per operation over Horizon's recent ledger window, in stroops, by statistic.",
  ),
  maxFee: feeStats.gauge("stellar_horizon_max_fee_stroops", ["stat"])(
    "Maximum fee bid per operation over Horizon's recent ledger window, in stroops, by statistic.",
  ),
  ledgersTotal: ledgers.counter("stellar_horizon_ledgers_total")(
    "Ledgers the exporter has read from Horizon since it started.",
  ),
  transactionsTotal: ledgers.counter("stellar_horizon_transactions_total", ["result"])(
    "Transactions in the ledgers read, by result (successful, failed).",
  ),
  operationsTotal: ledgers.counter("stellar_horizon_operations_total")(
    "Operations in successful transactions of the ledgers read (operation_count).",
  ),
  txSetOperationsTotal: ledgers.counter("stellar_horizon_tx_set_operations_total")(
    "Operations in the transaction sets of the ledgers read, failed ones included (tx_set_operation_count).",
  ),
  ledgersSkippedTotal: ledgers.counter("stellar_horizon_ledgers_skipped_total")(
    "Ledgers not read: passed over when catch-up hit its page cap, missing from Horizon, or invalid.",
  ),
  ledgerResyncsTotal: ledgers.counter("stellar_horizon_ledger_resyncs_total")(
    "Times the ledger sequence fell below half the latest read or a ledger read before came back with another hash " +
      "(a new chain, e.g. a testnet reset), the hash chain broke, the root poll learnt another network passphrase or " +
      "Horizon refused the paging cursor, and the exporter resynchronised.",
  ),
  ledgerCloseInterval: ledgers.histogram("stellar_horizon_ledger_close_interval_seconds")(
    "Time between the close of consecutive ledgers.",
    [1, 2, 3, 4, 5, 5.5, 6, 6.5, 7, 8, 10, 15, 30, 60],
  ),
  ledgerTxSetCapacity: ledgers.histogram("stellar_horizon_ledger_tx_set_capacity_ratio")(
    "Share of the ledger's transaction set capacity used (tx_set_operation_count / max_tx_set_size).",
    [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
  ),
  ledgerSequence: ledgers.gauge("stellar_horizon_ledger_sequence")("Sequence of the latest ledger read."),
  ledgerClosedTimestamp: ledgers.gauge("stellar_horizon_ledger_closed_timestamp_seconds")(
    "Close time of the latest ledger read, as a Unix timestamp.",
  ),
  ledgerBaseFee: ledgers.gauge("stellar_horizon_ledger_base_fee_stroops")(
    "Base fee of the latest ledger read, in stroops.",
  ),
  ledgerBaseReserve: ledgers.gauge("stellar_horizon_ledger_base_reserve_stroops")(
    "Base reserve of the latest ledger read, in stroops.",
  ),
  ledgerMaxTxSetSize: ledgers.gauge("stellar_horizon_ledger_max_tx_set_size")(
    "Maximum transaction set size of the latest ledger read, in operations.",
  ),
  ledgerProtocolVersion: ledgers.gauge("stellar_horizon_ledger_protocol_version")(
    "Protocol version of the latest ledger read.",
  ),
  ledgerTotalCoins: ledgers.gauge("stellar_horizon_ledger_total_coins")(
    "Lumens in existence at the latest ledger read, in XLM.",
  ),
  ledgerFeePool: ledgers.gauge("stellar_horizon_ledger_fee_pool")("Fee pool at the latest ledger read, in XLM."),
  liquidityPools: pools.gauge("stellar_horizon_liquidity_pools")("Liquidity pools the exporter tracks."),
  liquidityPoolInfo: pools.gauge("stellar_horizon_liquidity_pool_info", [
    "pool_id",
    "type",
    "fee_bp",
    "asset_a",
    "asset_b",
  ])("A tracked liquidity pool's type, fee and assets; always 1."),
  liquidityPoolReserve: pools.gauge("stellar_horizon_liquidity_pool_reserve", ["pool_id", "asset"])(
    "Amount of an asset held by a liquidity pool, in units of that asset.",
  ),
  liquidityPoolShares: pools.gauge("stellar_horizon_liquidity_pool_shares", ["pool_id"])(
    "Total pool shares issued by a liquidity pool.",
  ),
  liquidityPoolTrustlines: pools.gauge("stellar_horizon_liquidity_pool_trustlines", ["pool_id"])(
    "Trustlines held to a liquidity pool's shares.",
  ),
  txProbeSubmissions: txProbe.counter("stellar_horizon_tx_probe_submissions_total")(
    "Transactions the probe submitted to Horizon (POST /transactions).",
  ),
  txProbeFailures: txProbe.counter("stellar_horizon_tx_probe_failures_total", ["reason"])(
    "Probe submissions that did not succeed, by reason: Horizon's transaction result code (tx_bad_seq, " +
      "tx_insufficient_fee, ...; tx_other when unrecognised) or a request failure reason (timeout, network, " +
      "http_5xx, ...).",
  ),
  txProbeDuration: txProbe.histogram("stellar_horizon_tx_probe_duration_seconds")(
    "Time from the probe's submission to Horizon's success answer (the transaction is in a ledger).",
    [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 45, 60],
  ),
  txProbeInclusionLedgers: txProbe.histogram("stellar_horizon_tx_probe_inclusion_ledgers")(
    "Ledgers between the latest ledger known at submission and the ledger that included the probe's transaction.",
    [0, 1, 2, 3, 4, 5, 7, 10, 15, 20],
  ),
  txProbeFeeCharged: txProbe.gauge("stellar_horizon_tx_probe_fee_charged_stroops")(
    "Fee charged for the probe's last successful transaction, in stroops.",
  ),
  txProbeLastSuccess: txProbe.gauge("stellar_horizon_tx_probe_last_success_timestamp_seconds")(
    "Unix time of the probe's last successful submission.",
  ),
  txProbeRefused: txProbe.gauge("stellar_horizon_tx_probe_refused", ["reason"])(
    "1 while the probe refuses to submit, by reason: pubnet (the Horizon serves pubnet and allow_pubnet is false), " +
      "unfunded (its account does not exist), no_key (its key cannot sign for the account); else 0.",
  ),
  // `/accounts/:id` (and its offers and claimable balances), per watched account.
  ...HORIZON_ACCOUNT_METRICS,
  // A watched account's flow with `activity: true`: its payments, transactions and operations streams.
  accountPaymentsTotal: activity.counter("stellar_horizon_account_payments_total", ["account", "direction", "asset"])(
    "Successful payments of a watched account (payment, path payments, create_account, account_merge, and " +
      "transfer, mint and clawback balance changes of invoke_host_function), by direction (received, sent) and asset.",
  ),
  accountPaymentAmountTotal: activity.counter("stellar_horizon_account_payment_amount_total", [
    "account",
    "direction",
    "asset",
  ])(
    "Amount of a watched account's successful payments, by direction and asset, in units of the asset (exact " +
      "stroop sums; an account merge counts no amount).",
  ),
  accountLastPaymentTimestamp: activity.gauge("stellar_horizon_account_last_payment_timestamp_seconds", [
    "account",
    "direction",
  ])(
    "created_at of the newest payment counted in a direction (received, sent), as a Unix timestamp; the first " +
      "poll's newest payment sets it.",
  ),
  accountPaymentExpectedWithin: activity.gauge("stellar_horizon_account_payment_expected_within_seconds", ["account"])(
    "The account's configured expect_payment_within, in seconds; only with one.",
  ),
  accountOutflowLimitPerHour: activity.gauge("stellar_horizon_account_outflow_limit_per_hour", ["account", "asset"])(
    "The account's configured max_outflow_per_hour of an asset, in units of the asset; only with one.",
  ),
  accountTransactionsTotal: activity.counter("stellar_horizon_account_transactions_total", ["account", "result"])(
    "Transactions whose source account is the watched account, by result (successful, failed).",
  ),
  accountFeeChargedStroopsTotal: activity.counter("stellar_horizon_account_fee_charged_stroops_total", ["account"])(
    "fee_charged of the transactions whose fee account is the watched account, failed ones included, in stroops.",
  ),
  accountTransactionFailuresTotal: activity.counter("stellar_horizon_account_transaction_failures_total", [
    "account",
    "code",
  ])(
    "Failed transactions of the watched account by result code decoded from result_xdr: the transaction's " +
      "(tx_bad_seq, ...), or for tx_failed the first failing operation's (op_underfunded, ...); tx_other when " +
      "result_xdr does not decode or names no failure.",
  ),
  accountOperationsTotal: activity.counter("stellar_horizon_account_operations_total", ["account", "type"])(
    "Successful operations of the watched account by Horizon's type name (payment, set_options, ...), with " +
      "operations: true.",
  ),
  // `/assets?asset_code=&asset_issuer=`, per watched asset (`asset` is CODE:ISSUER).
  assetExists: assets.gauge("stellar_horizon_asset_exists", ["asset"])(
    "1 when Horizon's /assets returns the watched asset's record, 0 when it returns none.",
  ),
  assetSupply: assets.gauge("stellar_horizon_asset_supply", ["asset"])(
    "An asset's supply, in units of the asset: its balances (authorized, authorized to maintain liabilities, " +
      "unauthorized) plus the amounts in claimable balances, liquidity pools and contracts, summed exactly.",
  ),
  assetAmount: assets.gauge("stellar_horizon_asset_amount", ["asset", "held_by"])(
    "Part of an asset's supply by holder kind (authorized, authorized_to_maintain_liabilities, unauthorized, " +
      "claimable_balances, liquidity_pools, contracts), in units of the asset; absent when Horizon does not send it.",
  ),
  assetHolders: assets.gauge("stellar_horizon_asset_holders", ["asset", "held_by"])(
    "Accounts, claimable balances, liquidity pools and contracts holding an asset, by holder kind; absent when " +
      "Horizon does not send it.",
  ),
  assetFlag: assets.gauge("stellar_horizon_asset_flag", ["asset", "flag"])(
    "1 when the asset's issuer has the flag set (auth_required, auth_revocable, auth_immutable, " +
      "auth_clawback_enabled), else 0.",
  ),
  assetFlagChanges: assets.counter("stellar_horizon_asset_flag_changes_total", ["asset"])(
    "Polls at which any of the asset's flags differed from the last poll that returned a valid record.",
  ),
  assetInfo: assets.gauge("stellar_horizon_asset_info", ["asset", "contract_id"])(
    "A watched asset's Stellar Asset Contract id (empty when none is deployed, or Horizon is older than 2.27); " +
      "always 1.",
  ),
  // Watched DEX markets (`markets:`): `/trade_aggregations`, `/trades` and the makers' `/offers`.
  marketPrice: markets.gauge("stellar_horizon_market_price", ["market", "stat"])(
    "Price of the last completed trade aggregation bucket with trades, in counter per base, by stat (open, high, " +
      "low, close: n / d of open_r and the like; avg: Horizon's decimal, having no rational).",
  ),
  marketBucketVolume: markets.gauge("stellar_horizon_market_bucket_volume", ["market", "asset"])(
    "Volume traded in that bucket, by asset (base, counter), in units of that asset.",
  ),
  marketBucketTrades: markets.gauge("stellar_horizon_market_bucket_trades", ["market"])(
    "Trades in that bucket (its trade_count).",
  ),
  marketBucketTimestamp: markets.gauge("stellar_horizon_market_bucket_timestamp_seconds", ["market"])(
    "Unix time of the start of that bucket.",
  ),
  marketPriceDeviation: markets.gauge("stellar_horizon_market_price_deviation_ratio", ["market"])(
    "(close - reference_price) / reference_price, for a market configured with a reference price.",
  ),
  marketReferencePrice: markets.gauge("stellar_horizon_market_reference_price", ["market"])(
    "The configured reference price (a peg), in counter per base.",
  ),
  marketTraded: markets.gauge("stellar_horizon_market_traded", ["market"])(
    "1 once /trade_aggregations returned a record for the pair, else 0 (a pair that never traded).",
  ),
  marketTrades: markets.counter("stellar_horizon_market_trades_total", ["market", "trade_type"])(
    "Trades of the pair counted since the exporter started, each once, by trade_type (orderbook, liquidity_pool).",
  ),
  marketTradedAmount: markets.counter("stellar_horizon_market_traded_amount_total", ["market", "asset"])(
    "Sum of the amounts of the trades counted, by asset (base, counter), in units of that asset.",
  ),
  marketLastTrade: markets.gauge("stellar_horizon_market_last_trade_timestamp_seconds", ["market"])(
    "Unix time of the ledger close of the newest trade counted.",
  ),
  marketMakerOffers: markets.gauge("stellar_horizon_market_maker_offers", ["market", "maker", "side"])(
    "A maker's open offers on a side of the market (ask: sells base for counter; bid: sells counter for base).",
  ),
  marketMakerOfferAmount: markets.gauge("stellar_horizon_market_maker_offer_amount", ["market", "maker", "side"])(
    "Sum of a maker's offer amounts on a side, in units of the asset that side sells.",
  ),
  marketMakerBestPrice: markets.gauge("stellar_horizon_market_maker_best_price", ["market", "maker", "side"])(
    "A maker's best price on a side, in counter per base: an ask's lowest price (n / d of price_r), a bid's highest " +
      "1 / price (d / n of price_r).",
  ),
  marketMakerOfferAge: markets.gauge("stellar_horizon_market_maker_offer_age_seconds", ["market", "maker", "side"])(
    "Seconds since the oldest last_modified_time of a maker's offers on a side; absent when an offer of the side has " +
      "none (last modified before Horizon's history starts, so older than any dated one).",
  ),
  // `/paths/strict-send` and `/paths/strict-receive`, per configured corridor.
  corridorPaths: corridors.gauge("stellar_horizon_corridor_paths", ["corridor"])(
    "Paths the corridor's last answered request returned (0 when none); kept through failed runs until its " +
      "freshness ends.",
  ),
  corridorBestAmount: corridors.gauge("stellar_horizon_corridor_best_amount", ["corridor"])(
    "Best path's amount: strict_send, the highest destination_amount; strict_receive, the lowest source_amount; in " +
      "units of that asset.",
  ),
  corridorBestRate: corridors.gauge("stellar_horizon_corridor_best_rate", ["corridor"])(
    "Destination units per source unit of the best path.",
  ),
  corridorBestHops: corridors.gauge("stellar_horizon_corridor_best_hops", ["corridor"])(
    "Intermediate assets of the best path (its `path` length; 0 for a direct market).",
  ),
  corridorMinRate: corridors.gauge("stellar_horizon_corridor_min_rate", ["corridor"])(
    "The corridor's configured min_rate (destination per source), only when configured.",
  ),
  corridorDuration: corridors.histogram("stellar_horizon_corridor_duration_seconds", ["corridor"])(
    "Request time of each corridor run, answered or not.",
    [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  ),
  corridorRuns: corridors.counter("stellar_horizon_corridor_runs_total", ["corridor", "result"])(
    "Corridor runs by outcome: found, none, disabled (404), over_capacity, still_ingesting, timeout, error; runs " +
      "skipped while path finding is disabled are not counted.",
  ),
  corridorLastFound: corridors.gauge("stellar_horizon_corridor_last_found_timestamp_seconds", ["corridor"])(
    "Unix time at the end of the corridor's last run that found a path.",
  ),
  buildInfo: exporterWide.gauge("stellar_horizon_exporter_build_info", ["version", "node_version"])(
    "Version of the exporter and of Node.js it runs on; always 1.",
  ),
  shardInfo: exporterWide.gauge("stellar_horizon_exporter_shard_info", ["index", "total"])(
    "Which shard of the watched accounts and contracts this replica exports (--shard=INDEX/TOTAL); always 1.",
  ),
  requestsTotal: exporter.counter("stellar_horizon_exporter_requests_total", ["endpoint", "code"])(
    'HTTP requests sent to Horizon, by endpoint and status code (code="error" when no response arrived).',
  ),
  requestDuration: exporter.histogram("stellar_horizon_exporter_request_duration_seconds", ["endpoint"])(
    "Duration of HTTP requests to Horizon, body read included.",
    REQUEST_BUCKETS,
  ),
  pollDuration: exporter.histogram("stellar_horizon_exporter_poll_duration_seconds", ["endpoint"])(
    "Duration of a whole poll of an endpoint, retries and paging included.",
    POLL_BUCKETS,
  ),
  pollErrorsTotal: exporter.counter("stellar_horizon_exporter_poll_errors_total", ["endpoint", "reason"])(
    "Failed polls, by endpoint and reason (see the README for the reasons).",
  ),
  invalidRecordsTotal: exporter.counter("stellar_horizon_exporter_invalid_records_total", ["endpoint"])(
    "Records of a Horizon answer (a page's records, or a whole document such as an account or the fee stats) that " +
      "failed validation and were left out.",
  ),
  lastSuccessTimestamp: exporter.gauge("stellar_horizon_exporter_last_success_timestamp_seconds", ["endpoint"])(
    "Unix time of the last successful poll of an endpoint.",
  ),
  plannedRequestsPerHour: exporter.gauge("stellar_horizon_exporter_planned_requests_per_hour")(
    "Requests per hour the configured schedules and page limits plan to send to a Horizon, retries excluded.",
  ),
  requestBudgetPerHour: exporter.gauge("stellar_horizon_exporter_request_budget_per_hour")(
    "Requests per hour this Horizon allows the exporter (request_budget_per_hour; 3600 is the public Horizon's limit).",
  ),
  publishFailuresTotal: exporterWide.counter("stellar_horizon_exporter_publish_failures_total")(
    "Publications of a target's series to the metric store that failed (a bug: the log says why); the next run " +
      "publishes again.",
  ),
  configLastReloadSuccessful: exporterWide.gauge("stellar_horizon_exporter_config_last_reload_successful")(
    "1 when the last configuration (re)load succeeded, 0 when the last SIGHUP reload was rejected.",
  ),
  configLastReloadSuccessTimestamp: exporterWide.gauge(
    "stellar_horizon_exporter_config_last_reload_success_timestamp_seconds",
  )("Unix time of the last successful configuration (re)load."),
  rateLimitLimit: exporter.gauge("stellar_horizon_rate_limit_limit")(
    "Requests allowed per rate-limit window, from Horizon's X-Ratelimit-Limit header.",
  ),
  rateLimitRemaining: exporter.gauge("stellar_horizon_rate_limit_remaining")(
    "Requests left in the current rate-limit window, from Horizon's X-Ratelimit-Remaining header.",
  ),
  rateLimitReset: exporter.gauge("stellar_horizon_rate_limit_reset_seconds")(
    "Seconds until Horizon's rate-limit window resets, from its X-Ratelimit-Reset header (seconds, a Unix epoch or " +
      "an HTTP date).",
  ),
  rateLimitHoldsCappedTotal: exporter.counter("stellar_horizon_exporter_rate_limit_holds_capped_total")(
    "Times Horizon asked the exporter to hold back (Retry-After, or an exhausted rate limit until X-Ratelimit-Reset) " +
      "for longer than one hour, or the target's longest freshness window if longer, and the hold was cut to that.",
  ),
} as const satisfies Record<string, MetricDefinition>;

/** The `reason` values of stellar_horizon_exporter_poll_errors_total: fixed, for alerts, and at zero from the start. */
export const POLL_ERROR_REASONS = {
  timeout: "No complete response within the request timeout, or the poll reached its deadline.",
  network: "Connection refused or reset, DNS failure, TLS failure, too many redirects.",
  rate_limited: "Horizon answered 429, or the exporter held back because Retry-After had not passed.",
  http_4xx: "Horizon answered with a 4xx status other than 429.",
  http_5xx: "Horizon (or a proxy in front of it) answered with a 5xx status.",
  invalid_json: "A 2xx response whose body is not JSON (an HTML page from a proxy, a truncated body).",
  schema: "A 2xx JSON response that does not have the shape of Horizon's API.",
  body_too_large: "The response body exceeded the configured size cap and was abandoned.",
  paging: "Paging made no progress: the cursor did not advance.",
  rpc_error:
    "Stellar RPC answered a call with a JSON-RPC error object (except getHealth, whose error means unhealthy).",
  internal: "An unexpected error inside the exporter: a bug, please report it with the log line.",
} as const;
export type PollErrorReason = keyof typeof POLL_ERROR_REASONS;

const rpcStatus = metricsOf("status", rpc);
const rpcVersions = metricsOf("versions", rpc);
const contracts = metricsOf("contracts", rpc);
const events = metricsOf("events", rpc);
const rpcExporter = metricsOf("exporter", rpc);

/** Stellar RPC targets' series, labelled `rpc` with the target's name. */
export const RPC_METRICS = {
  up: rpcStatus.gauge("stellar_rpc_up")(
    "1 when the last status poll of the Stellar RPC (getHealth, getLatestLedger, getFeeStats) succeeded, else 0.",
  ),
  healthy: rpcStatus.gauge("stellar_rpc_healthy")(
    "1 when getHealth said healthy, 0 when it answered an error or another status.",
  ),
  latestLedger: rpcStatus.gauge("stellar_rpc_latest_ledger")(
    "Latest ledger the Stellar RPC has ingested (getLatestLedger).",
  ),
  oldestLedger: rpcStatus.gauge("stellar_rpc_oldest_ledger")(
    "Oldest ledger the Stellar RPC still serves (getHealth); absent while unhealthy.",
  ),
  retentionWindow: rpcStatus.gauge("stellar_rpc_ledger_retention_window_ledgers")(
    "Ledgers the Stellar RPC is configured to retain (getHealth); absent while unhealthy.",
  ),
  latestLedgerClosedTimestamp: rpcStatus.gauge("stellar_rpc_latest_ledger_closed_timestamp_seconds")(
    "Close time of the Stellar RPC's latest ledger, as a Unix timestamp; absent when the RPC does not report it.",
  ),
  protocolVersion: rpcStatus.gauge("stellar_rpc_protocol_version")(
    "Protocol version of the Stellar RPC's latest ledger.",
  ),
  inclusionFee: rpcStatus.gauge("stellar_rpc_inclusion_fee_stroops", ["kind", "stat"])(
    "Inclusion fee over the Stellar RPC's recent ledger window, in stroops, by transaction kind (soroban, classic) " +
      "and statistic; absent for a kind with no transactions in the window.",
  ),
  feeStatsTransactions: rpcStatus.gauge("stellar_rpc_fee_stats_transactions", ["kind"])(
    "Transactions the Stellar RPC's fee statistics are computed from, by kind.",
  ),
  feeStatsLedgers: rpcStatus.gauge("stellar_rpc_fee_stats_ledgers", ["kind"])(
    "Ledgers the Stellar RPC's fee statistics window spans, by kind.",
  ),
  info: rpcVersions.gauge("stellar_rpc_info", ["version", "captive_core_version", "network", "network_passphrase"])(
    "Stellar RPC and captive stellar-core versions and the network this RPC serves; always 1.",
  ),
  // Watched contracts' entries (getLedgerEntries): `entry` is instance, code or a configured key's name.
  contractEntryExists: contracts.gauge("stellar_rpc_contract_entry_exists", ["contract", "entry", "durability"])(
    "1 when getLedgerEntries returned the contract entry (live or archived), 0 when it did not: never created, " +
      "deleted, or an expired temporary entry.",
  ),
  contractEntryArchived: contracts.gauge("stellar_rpc_contract_entry_archived", ["contract", "entry", "durability"])(
    "1 when the contract entry is archived (live-until 0 or behind the latest ledger), 0 while live; absent while " +
      "unknown (a 0 the exporter saw live ahead, stellar-rpc#990).",
  ),
  contractEntryLiveUntil: contracts.gauge("stellar_rpc_contract_entry_live_until_ledger", [
    "contract",
    "entry",
    "durability",
  ])("Last ledger the live contract entry lives through (liveUntilLedgerSeq); live entries only."),
  contractEntryTtl: contracts.gauge("stellar_rpc_contract_entry_ttl_ledgers", ["contract", "entry", "durability"])(
    "Ledgers the live contract entry has left: liveUntilLedgerSeq minus latestLedger of the same response; live " +
      "entries only.",
  ),
  contractEntryExpiry: contracts.gauge("stellar_rpc_contract_entry_expiry_timestamp_seconds", [
    "contract",
    "entry",
    "durability",
  ])(
    "When the live contract entry is expected to be archived, as a Unix timestamp: now plus its TTL times the " +
      "RPC's mean ledger close interval over the last hour, or since the last poll if longer ago (5 s until two " +
      "closes are seen); live entries only.",
  ),
  contractInfo: contracts.gauge("stellar_rpc_contract_info", ["contract", "contract_id", "executable", "wasm_hash"])(
    "A watched contract: its id, executable (wasm or stellar_asset) and wasm hash (hex, empty for a Stellar Asset " +
      "Contract); always 1.",
  ),
  stateArchivalMaxEntryTtl: contracts.gauge("stellar_rpc_state_archival_max_entry_ttl_ledgers")(
    "The network's longest TTL an entry can be extended to, in ledgers (CONFIG_SETTING_STATE_ARCHIVAL maxEntryTTL).",
  ),
  stateArchivalMinPersistentTtl: contracts.gauge("stellar_rpc_state_archival_min_persistent_ttl_ledgers")(
    "The network's TTL of a new or restored persistent entry, in ledgers (CONFIG_SETTING_STATE_ARCHIVAL " +
      "minPersistentTTL).",
  ),
  stateArchivalMinTemporaryTtl: contracts.gauge("stellar_rpc_state_archival_min_temporary_ttl_ledgers")(
    "The network's TTL of a new temporary entry, in ledgers (CONFIG_SETTING_STATE_ARCHIVAL minTemporaryTTL).",
  ),
  contractEvents: events.counter("stellar_rpc_contract_events_total", ["contract", "type", "topic"])(
    "Events of a watched contract (failed calls' included), by type (contract, system) and first topic: a symbol " +
      "or string as its text, else its ScVal type; a contract's first 50 distinct topics, later ones as other.",
  ),
  contractFailedCallEvents: events.counter("stellar_rpc_contract_failed_call_events_total", ["contract"])(
    "Events of a watched contract emitted in a contract call that failed (inSuccessfulContractCall false).",
  ),
  contractLastEvent: events.gauge("stellar_rpc_contract_last_event_timestamp_seconds", ["contract"])(
    "Close time (ledgerClosedAt) of the ledger of the newest event counted of a watched contract, as a Unix timestamp.",
  ),
  contractEventsExpectedWithin: events.gauge("stellar_rpc_contract_events_expected_within_seconds", ["contract"])(
    "The configured expect_events_within of a watched contract: it normally emits an event at least this often.",
  ),
  contractUpgrades: events.counter("stellar_rpc_contract_upgrades_total", ["contract"])(
    "Upgrades of a watched contract: system events whose first topic is executable_update (its code was replaced).",
  ),
  contractEventsSkippedLedgers: events.counter("stellar_rpc_contract_events_skipped_ledgers_total")(
    "Ledgers whose events were never read: the event cursor fell out of the RPC's retention window and the poll " +
      "restarted at its oldest ledger.",
  ),
  requestsTotal: rpcExporter.counter("stellar_horizon_exporter_rpc_requests_total", ["endpoint", "code"])(
    'HTTP requests sent to a Stellar RPC, by endpoint and status code (code="error" when no response arrived).',
  ),
  requestDuration: rpcExporter.histogram("stellar_horizon_exporter_rpc_request_duration_seconds", ["endpoint"])(
    "Duration of HTTP requests to a Stellar RPC, body read included.",
    REQUEST_BUCKETS,
  ),
  pollDuration: rpcExporter.histogram("stellar_horizon_exporter_rpc_poll_duration_seconds", ["endpoint"])(
    "Duration of a whole poll of a Stellar RPC endpoint, retries included.",
    POLL_BUCKETS,
  ),
  pollErrorsTotal: rpcExporter.counter("stellar_horizon_exporter_rpc_poll_errors_total", ["endpoint", "reason"])(
    "Failed polls of a Stellar RPC, by endpoint and reason (see the README for the reasons).",
  ),
  lastSuccessTimestamp: rpcExporter.gauge("stellar_horizon_exporter_rpc_last_success_timestamp_seconds", ["endpoint"])(
    "Unix time of the last successful poll of a Stellar RPC endpoint.",
  ),
  invalidRecordsTotal: rpcExporter.counter("stellar_horizon_exporter_rpc_invalid_records_total", ["endpoint"])(
    "Results of a Stellar RPC (getHealth, getFeeStats, getVersionInfo, ...) that failed validation and were left out.",
  ),
  rateLimitHoldsCappedTotal: rpcExporter.counter("stellar_horizon_exporter_rpc_rate_limit_holds_capped_total")(
    "Times a Stellar RPC asked the exporter to hold back (Retry-After, or an exhausted rate limit until " +
      "X-Ratelimit-Reset) for longer than one hour, or the target's longest freshness window if longer, and the hold " +
      "was cut to that.",
  ),
  ...RPC_ACCOUNT_METRICS,
} as const satisfies Record<string, MetricDefinition>;

/** Targets of one network checked against each other; `network` is pubnet, testnet, futurenet or 8 hex digits of the
 * passphrase's SHA-256. */
const agreement = metricsOf("agreement", { perTarget: false });
export const AGREEMENT_METRICS = {
  networkTargets: agreement.gauge("stellar_network_targets", ["network"])(
    "Targets (Horizons and Stellar RPCs) serving the network, as their network passphrases say.",
  ),
  ledgerHashComparisons: agreement.counter("stellar_network_ledger_hash_comparisons_total", [
    "network",
    "kind",
    "target",
  ])("Ledgers at which the hash this target showed was compared with the hash other targets of its network showed."),
  ledgerHashDisagreements: agreement.counter("stellar_network_ledger_hash_disagreements_total", [
    "network",
    "kind",
    "target",
  ])(
    "Ledgers at which this target's hash was judged wrong: against the majority of three or more targets, or " +
      "differing from the only other target's.",
  ),
  protocolBehind: agreement.gauge("stellar_network_target_protocol_behind", ["network", "kind", "target"])(
    "The network's highest protocol version reported by any of its targets, minus the one this target reports.",
  ),
} as const satisfies Record<string, MetricDefinition>;

/** Reasons of stellar_horizon_tx_probe_failures_total at zero from the start (other tx_ result codes come later). */
export const TX_PROBE_COMMON_FAILURE_REASONS = [
  ...["tx_bad_seq", "tx_insufficient_fee", "tx_insufficient_balance", "tx_too_late", "tx_bad_auth", "tx_failed"],
  ...["tx_other", "timeout", "network", "http_4xx", "http_5xx", "rate_limited", "invalid_json", "schema"],
] as const;

/** Why the transaction probe refuses to submit: every reason is exported, 1 for the current one. */
export const TX_PROBE_REFUSAL_REASONS = ["pubnet", "unfunded", "no_key"] as const;
export type TxProbeRefusal = (typeof TX_PROBE_REFUSAL_REASONS)[number];

/** How a corridor run ends, the `result` label of stellar_horizon_corridor_runs_total: answered, or why not. */
export const CORRIDOR_RESULTS = [
  ...["found", "none"],
  ...["disabled", "over_capacity", "still_ingesting", "timeout", "error"],
] as const;
export type CorridorResult = (typeof CORRIDOR_RESULTS)[number];

export const ALL_METRICS: readonly MetricDefinition[] = [
  ...Object.values(METRICS),
  ...Object.values(RPC_METRICS),
  ...Object.values(AGREEMENT_METRICS),
];

export function targetLabelOf(metric: MetricDefinition): TargetLabel {
  return metric.targetLabel ?? "horizon";
}

/** The label naming the target of a source's series: every metric of one source shares it. */
export function targetLabelOfSource(source: PublishedSource): TargetLabel {
  return ALL_METRICS.find((metric) => metric.source === source)?.targetLabel ?? "horizon";
}

/** Names a PromQL expression may use for a metric: the family name and, for histograms, its series. */
export function exposedSeriesNames(metric: MetricDefinition): string[] {
  if (metric.type !== "histogram") return [metric.name];
  return ["_bucket", "_sum", "_count"].map((suffix) => metric.name + suffix);
}
