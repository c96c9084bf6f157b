/**
 * The exporter's metric contract. Every series the exporter emits is declared here once; the
 * collectors, the metric table of docs/metrics.md, the dashboards and the alert rules are all checked
 * against this list, so a rename cannot silently break one of them.
 */

export type MetricType = "gauge" | "counter" | "histogram";

/** The Horizon endpoints the exporter polls; also the `endpoint` label's values. */
export const ENDPOINTS = [
  "root",
  "fee_stats",
  "ledgers",
  "liquidity_pools",
  "accounts",
  "activity",
  "assets",
  "markets",
  "corridors",
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/**
 * What a Stellar RPC poll reads, also its `endpoint` label: `status` batches getHealth,
 * getLatestLedger and getFeeStats; `versions` batches getNetwork and getVersionInfo, which change
 * only on upgrades and so are polled rarely; `accounts` reads the watched accounts' ledger entries,
 * `contracts` the watched contracts' (getLedgerEntries, 200 keys a call), `events` the watched
 * contracts' events (getEvents, 25 contracts a call).
 */
export const RPC_ENDPOINTS = ["status", "versions", "accounts", "contracts", "events"] as const;
export type RpcEndpoint = (typeof RPC_ENDPOINTS)[number];

/** What a collector polls: a Horizon endpoint or a Stellar RPC batch. */
export type PollEndpoint = Endpoint | RpcEndpoint;

/**
 * Which poll produces the series; `exporter` series describe the exporter itself, `agreement`
 * series compare the targets of a network with each other (src/agreement).
 */
export type MetricSource = PollEndpoint | "tx_probe" | "exporter" | "agreement";

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

function define<const T extends MetricDefinition>(definition: T): T {
  return definition;
}

export const FEE_STATS = [
  "min",
  "mode",
  "p10",
  "p20",
  "p30",
  "p40",
  "p50",
  "p60",
  "p70",
  "p80",
  "p90",
  "p95",
  "p99",
  "max",
] as const;
export type FeeStat = (typeof FEE_STATS)[number];

/**
 * Where a watched account's family exists: a ledger entry read over Stellar RPC has no offer count, claimable balance
 * or data entry count.
 */
type AccountFamilyKind = "horizon" | "rpc";

interface AccountFamily {
  /** The family is `stellar_<kind>_account_<suffix>`. */
  readonly suffix: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labels: readonly string[];
  /** Absent: both kinds. */
  readonly kinds?: readonly AccountFamilyKind[];
}

/**
 * A watched account's families, defined once for both kinds of target: Horizon's (`/accounts/:id`,
 * its offers and claimable balances) and Stellar RPC's (the account's and its trustlines' ledger
 * entries through getLedgerEntries), alike in suffix, type, labels and meaning.
 */
const ACCOUNT_FAMILIES = {
  accountInfo: {
    suffix: "info",
    type: "gauge",
    help: "A watched account's id, home domain and whether it is configured as cold; always 1.",
    labels: ["account", "account_id", "home_domain", "cold"],
  },
  accountExists: {
    suffix: "exists",
    type: "gauge",
    help:
      "1 when the account exists (Horizon: not a 404; Stellar RPC: getLedgerEntries returns its entry), 0 when " +
      "it does not (never created, or merged away).",
    labels: ["account"],
  },
  accountBalance: {
    suffix: "balance",
    type: "gauge",
    help:
      "Balance of an account in an asset (native, CODE:ISSUER, or pool:<id> for pool shares), in units of that " +
      "asset.",
    labels: ["account", "asset"],
  },
  accountBuyingLiabilities: {
    suffix: "buying_liabilities",
    type: "gauge",
    help: "Amount of an asset the account's open offers may buy, in units of that asset.",
    labels: ["account", "asset"],
  },
  accountSellingLiabilities: {
    suffix: "selling_liabilities",
    type: "gauge",
    help: "Amount of an asset the account's open offers may sell, in units of that asset (not spendable).",
    labels: ["account", "asset"],
  },
  accountTrustlineLimit: {
    suffix: "trustline_limit",
    type: "gauge",
    help: "Limit of a trustline or pool share holding, in units of the asset.",
    labels: ["account", "asset"],
  },
  accountTrustlineAuthorized: {
    suffix: "trustline_authorized",
    type: "gauge",
    help:
      "1 when the issuer authorises the trustline (the trustline's AUTHORIZED flag, Horizon's is_authorized), " +
      "else 0.",
    labels: ["account", "asset"],
  },
  accountTrustlineExists: {
    suffix: "trustline_exists",
    type: "gauge",
    help:
      "1 when the account holds a trustline to a configured asset (Stellar RPC targets' `assets:`), 0 when it " +
      "does not.",
    labels: ["account", "asset"],
    kinds: ["rpc"],
  },
  accountMinimumBalance: {
    suffix: "minimum_balance",
    type: "gauge",
    help:
      "Lumens the account must keep: (2 + subentries + sponsoring - sponsored) x the latest ledger's base " +
      "reserve, in XLM; absent until a ledger has been read.",
    labels: ["account"],
  },
  accountSubentries: {
    suffix: "subentries",
    type: "gauge",
    help: "Subentries of the account (trustlines, offers, signers, data entries).",
    labels: ["account"],
  },
  accountSponsoring: {
    suffix: "sponsoring",
    type: "gauge",
    help: "Reserves the account sponsors for other entries (num_sponsoring).",
    labels: ["account"],
  },
  accountSponsored: {
    suffix: "sponsored",
    type: "gauge",
    help: "Reserves of the account sponsored by others (num_sponsored).",
    labels: ["account"],
  },
  accountDataEntries: {
    suffix: "data_entries",
    type: "gauge",
    help: "Data entries of the account.",
    labels: ["account"],
    kinds: ["horizon"],
  },
  accountThreshold: {
    suffix: "threshold",
    type: "gauge",
    help: "Signature weight an operation of the level (low, medium, high) needs.",
    labels: ["account", "level"],
  },
  accountSignerWeight: {
    suffix: "signer_weight",
    type: "gauge",
    help:
      "Weight of each signer of the account, by signer key (G..., T..., X..., P...) and Horizon's signer type; a " +
      "master key of weight 0 is not a signer.",
    labels: ["account", "signer", "type"],
  },
  accountFlag: {
    suffix: "flag",
    type: "gauge",
    help:
      "1 when an account flag (auth_required, auth_revocable, auth_immutable, auth_clawback_enabled) is set, " +
      "else 0.",
    labels: ["account", "flag"],
  },
  accountSignerChangesTotal: {
    suffix: "signer_changes_total",
    type: "counter",
    help:
      "Polls at which the account's signers, their weights or its thresholds differed from the previous " +
      "successful poll.",
    labels: ["account"],
  },
  accountSequenceLedger: {
    suffix: "sequence_ledger",
    type: "gauge",
    help:
      "Ledger of the account's last transaction (sequence_ledger, seqLedger); absent when the source does not " +
      "carry it.",
    labels: ["account"],
  },
  accountSequenceTimestamp: {
    suffix: "sequence_timestamp_seconds",
    type: "gauge",
    help:
      "Close time of the account's last transaction (sequence_time, seqTime), as a Unix timestamp; absent when " +
      "the source does not carry it.",
    labels: ["account"],
  },
  accountBalanceLowWatermark: {
    suffix: "balance_low_watermark",
    type: "gauge",
    help: "Configured low-water mark of an account's balance in an asset, in units of that asset.",
    labels: ["account", "asset"],
  },
  accountOffers: {
    suffix: "offers",
    type: "gauge",
    help: "Open offers of the account (counted up to 1000), when offers: true.",
    labels: ["account"],
    kinds: ["horizon"],
  },
  accountClaimableBalances: {
    suffix: "claimable_balances",
    type: "gauge",
    help: "Claimable balances the account can claim (counted up to 1000), when claimable_balances: true.",
    labels: ["account"],
    kinds: ["horizon"],
  },
  accountClaimableAmount: {
    suffix: "claimable_amount",
    type: "gauge",
    help: "Sum of what the account can claim in an asset, in units of that asset, when claimable_balances: true.",
    labels: ["account", "asset"],
    kinds: ["horizon"],
  },
} as const satisfies Record<string, AccountFamily>;
type AccountFamilies = typeof ACCOUNT_FAMILIES;

/** One kind's account metrics, keyed as in ACCOUNT_FAMILIES, with literal label lists for the samples' type checks. */
type AccountMetrics<Kind extends AccountFamilyKind> = {
  readonly [K in keyof AccountFamilies as AccountFamilies[K] extends { readonly kinds: readonly (infer Only)[] }
    ? Kind extends Only
      ? K
      : never
    : K]: {
    readonly name: string;
    readonly type: AccountFamilies[K]["type"];
    readonly help: string;
    readonly labels: AccountFamilies[K]["labels"];
    readonly source: "accounts";
  } & (Kind extends "rpc" ? { readonly targetLabel: "rpc" } : unknown);
};

function accountMetrics<Kind extends AccountFamilyKind>(kind: Kind): AccountMetrics<Kind> {
  const metrics: Record<string, MetricDefinition> = {};
  for (const [key, family] of Object.entries(ACCOUNT_FAMILIES) as [string, AccountFamily][]) {
    if (family.kinds !== undefined && !family.kinds.includes(kind)) continue;
    metrics[key] = {
      name: `stellar_${kind}_account_${family.suffix}`,
      type: family.type,
      help: family.help,
      labels: family.labels,
      source: "accounts",
      ...(kind === "rpc" ? { targetLabel: "rpc" as const } : {}),
    };
  }
  return metrics as AccountMetrics<Kind>;
}

/** Horizon's watched-account families (`horizon` label). */
export const HORIZON_ACCOUNT_METRICS = accountMetrics("horizon");
/** Stellar RPC's watched-account families (`rpc` label). */
export const RPC_ACCOUNT_METRICS = accountMetrics("rpc");
/** Either kind's: what the accounts samples are built from. */
export type AccountMetricSet = typeof HORIZON_ACCOUNT_METRICS | typeof RPC_ACCOUNT_METRICS;

export const METRICS = {
  // Root endpoint `/`.
  up: define({
    name: "stellar_horizon_up",
    type: "gauge",
    help: "1 while the latest root data is fresh and the last root poll succeeded, else 0.",
    labels: [],
    source: "root",
  }),
  info: define({
    name: "stellar_horizon_info",
    type: "gauge",
    help: "Horizon and stellar-core versions and the network this Horizon serves; always 1.",
    labels: ["horizon_version", "core_version", "network", "network_passphrase"],
    source: "root",
  }),
  ingestLatestLedger: define({
    name: "stellar_horizon_ingest_latest_ledger",
    type: "gauge",
    help: "Latest ledger ingested by Horizon.",
    labels: [],
    source: "root",
  }),
  historyLatestLedger: define({
    name: "stellar_horizon_history_latest_ledger",
    type: "gauge",
    help: "Latest ledger in Horizon's history database.",
    labels: [],
    source: "root",
  }),
  historyElderLedger: define({
    name: "stellar_horizon_history_elder_ledger",
    type: "gauge",
    help: "Oldest ledger in Horizon's history database.",
    labels: [],
    source: "root",
  }),
  coreLatestLedger: define({
    name: "stellar_horizon_core_latest_ledger",
    type: "gauge",
    help: "Latest ledger known to the stellar-core instance behind Horizon.",
    labels: [],
    source: "root",
  }),
  ingestLagLedgers: define({
    name: "stellar_horizon_ingest_lag_ledgers",
    type: "gauge",
    help: "Ledgers stellar-core is ahead of Horizon ingestion (core_latest_ledger - ingest_latest_ledger).",
    labels: [],
    source: "root",
  }),
  historyLatestLedgerClosedTimestamp: define({
    name: "stellar_horizon_history_latest_ledger_closed_timestamp_seconds",
    type: "gauge",
    help:
      "Close time of the latest ledger in Horizon's history database, as a Unix timestamp; absent on a node that " +
      "has ingested nothing.",
    labels: [],
    source: "root",
  }),
  currentProtocolVersion: define({
    name: "stellar_horizon_current_protocol_version",
    type: "gauge",
    help: "Protocol version the network currently runs, as reported by Horizon.",
    labels: [],
    source: "root",
  }),
  supportedProtocolVersion: define({
    name: "stellar_horizon_supported_protocol_version",
    type: "gauge",
    help: "Highest protocol version this Horizon supports; absent when Horizon does not report it.",
    labels: [],
    source: "root",
  }),
  coreSupportedProtocolVersion: define({
    name: "stellar_horizon_core_supported_protocol_version",
    type: "gauge",
    help: "Highest protocol version the stellar-core behind Horizon supports.",
    labels: [],
    source: "root",
  }),

  // `/fee_stats`.
  feeStatsLastLedger: define({
    name: "stellar_horizon_fee_stats_last_ledger",
    type: "gauge",
    help: "Ledger the latest fee statistics were computed at.",
    labels: [],
    source: "fee_stats",
  }),
  feeStatsBaseFee: define({
    name: "stellar_horizon_fee_stats_base_fee_stroops",
    type: "gauge",
    help: "Base fee of the last ledger in the fee statistics, in stroops.",
    labels: [],
    source: "fee_stats",
  }),
  ledgerCapacityUsage: define({
    name: "stellar_horizon_ledger_capacity_usage_ratio",
    type: "gauge",
    help: "Share of ledger capacity used over Horizon's recent ledger window (0 to 1).",
    labels: [],
    source: "fee_stats",
  }),
  feeCharged: define({
    name: "stellar_horizon_fee_charged_stroops",
    type: "gauge",
    help: "Fee charged per operation over Horizon's recent ledger window, in stroops, by statistic.",
    labels: ["stat"],
    source: "fee_stats",
  }),
  maxFee: define({
    name: "stellar_horizon_max_fee_stroops",
    type: "gauge",
    help: "Maximum fee bid per operation over Horizon's recent ledger window, in stroops, by statistic.",
    labels: ["stat"],
    source: "fee_stats",
  }),

  // `/ledgers`.
  ledgersTotal: define({
    name: "stellar_horizon_ledgers_total",
    type: "counter",
    help: "Ledgers the exporter has read from Horizon since it started.",
    labels: [],
    source: "ledgers",
  }),
  transactionsTotal: define({
    name: "stellar_horizon_transactions_total",
    type: "counter",
    help: "Transactions in the ledgers read, by result (successful, failed).",
    labels: ["result"],
    source: "ledgers",
  }),
  operationsTotal: define({
    name: "stellar_horizon_operations_total",
    type: "counter",
    help: "Operations in successful transactions of the ledgers read (operation_count).",
    labels: [],
    source: "ledgers",
  }),
  txSetOperationsTotal: define({
    name: "stellar_horizon_tx_set_operations_total",
    type: "counter",
    help: "Operations in the transaction sets of the ledgers read, failed ones included (tx_set_operation_count).",
    labels: [],
    source: "ledgers",
  }),
  ledgersSkippedTotal: define({
    name: "stellar_horizon_ledgers_skipped_total",
    type: "counter",
    help: "Ledgers not read: passed over when catch-up hit its page cap, missing from Horizon, or invalid.",
    labels: [],
    source: "ledgers",
  }),
  ledgerResyncsTotal: define({
    name: "stellar_horizon_ledger_resyncs_total",
    type: "counter",
    help:
      "Times the ledger sequence went backwards, the chain changed (e.g. a testnet reset) or Horizon refused the " +
      "paging cursor, and the exporter resynchronised from the latest ledger.",
    labels: [],
    source: "ledgers",
  }),
  ledgerCloseInterval: define({
    name: "stellar_horizon_ledger_close_interval_seconds",
    type: "histogram",
    help: "Time between the close of consecutive ledgers.",
    labels: [],
    source: "ledgers",
    buckets: [1, 2, 3, 4, 5, 5.5, 6, 6.5, 7, 8, 10, 15, 30, 60],
  }),
  ledgerTxSetCapacity: define({
    name: "stellar_horizon_ledger_tx_set_capacity_ratio",
    type: "histogram",
    help: "Share of the ledger's transaction set capacity used (tx_set_operation_count / max_tx_set_size).",
    labels: [],
    source: "ledgers",
    buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
  }),
  ledgerSequence: define({
    name: "stellar_horizon_ledger_sequence",
    type: "gauge",
    help: "Sequence of the latest ledger read.",
    labels: [],
    source: "ledgers",
  }),
  ledgerClosedTimestamp: define({
    name: "stellar_horizon_ledger_closed_timestamp_seconds",
    type: "gauge",
    help: "Close time of the latest ledger read, as a Unix timestamp.",
    labels: [],
    source: "ledgers",
  }),
  ledgerBaseFee: define({
    name: "stellar_horizon_ledger_base_fee_stroops",
    type: "gauge",
    help: "Base fee of the latest ledger read, in stroops.",
    labels: [],
    source: "ledgers",
  }),
  ledgerBaseReserve: define({
    name: "stellar_horizon_ledger_base_reserve_stroops",
    type: "gauge",
    help: "Base reserve of the latest ledger read, in stroops.",
    labels: [],
    source: "ledgers",
  }),
  ledgerMaxTxSetSize: define({
    name: "stellar_horizon_ledger_max_tx_set_size",
    type: "gauge",
    help: "Maximum transaction set size of the latest ledger read, in operations.",
    labels: [],
    source: "ledgers",
  }),
  ledgerProtocolVersion: define({
    name: "stellar_horizon_ledger_protocol_version",
    type: "gauge",
    help: "Protocol version of the latest ledger read.",
    labels: [],
    source: "ledgers",
  }),
  ledgerTotalCoins: define({
    name: "stellar_horizon_ledger_total_coins",
    type: "gauge",
    help: "Lumens in existence at the latest ledger read, in XLM.",
    labels: [],
    source: "ledgers",
  }),
  ledgerFeePool: define({
    name: "stellar_horizon_ledger_fee_pool",
    type: "gauge",
    help: "Fee pool at the latest ledger read, in XLM.",
    labels: [],
    source: "ledgers",
  }),

  // `/liquidity_pools`.
  liquidityPools: define({
    name: "stellar_horizon_liquidity_pools",
    type: "gauge",
    help: "Liquidity pools the exporter tracks.",
    labels: [],
    source: "liquidity_pools",
  }),
  liquidityPoolInfo: define({
    name: "stellar_horizon_liquidity_pool_info",
    type: "gauge",
    help: "A tracked liquidity pool's type, fee and assets; always 1.",
    labels: ["pool_id", "type", "fee_bp", "asset_a", "asset_b"],
    source: "liquidity_pools",
  }),
  liquidityPoolReserve: define({
    name: "stellar_horizon_liquidity_pool_reserve",
    type: "gauge",
    help: "Amount of an asset held by a liquidity pool, in units of that asset.",
    labels: ["pool_id", "asset"],
    source: "liquidity_pools",
  }),
  liquidityPoolShares: define({
    name: "stellar_horizon_liquidity_pool_shares",
    type: "gauge",
    help: "Total pool shares issued by a liquidity pool.",
    labels: ["pool_id"],
    source: "liquidity_pools",
  }),
  liquidityPoolTrustlines: define({
    name: "stellar_horizon_liquidity_pool_trustlines",
    type: "gauge",
    help: "Trustlines held to a liquidity pool's shares.",
    labels: ["pool_id"],
    source: "liquidity_pools",
  }),

  // The transaction-submission probe (`tx_probe` of a target).
  txProbeSubmissions: define({
    name: "stellar_horizon_tx_probe_submissions_total",
    type: "counter",
    help: "Transactions the probe submitted to Horizon (POST /transactions).",
    labels: [],
    source: "tx_probe",
  }),
  txProbeFailures: define({
    name: "stellar_horizon_tx_probe_failures_total",
    type: "counter",
    help:
      "Probe submissions that did not succeed, by reason: Horizon's transaction result code (tx_bad_seq, " +
      "tx_insufficient_fee, ...; tx_other when unrecognised) or a request failure reason (timeout, network, " +
      "http_5xx, ...).",
    labels: ["reason"],
    source: "tx_probe",
  }),
  txProbeDuration: define({
    name: "stellar_horizon_tx_probe_duration_seconds",
    type: "histogram",
    help: "Time from the probe's submission to Horizon's success answer (the transaction is in a ledger).",
    labels: [],
    source: "tx_probe",
    buckets: [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 45, 60],
  }),
  txProbeInclusionLedgers: define({
    name: "stellar_horizon_tx_probe_inclusion_ledgers",
    type: "histogram",
    help: "Ledgers between the latest ledger known at submission and the ledger that included the probe's transaction.",
    labels: [],
    source: "tx_probe",
    buckets: [0, 1, 2, 3, 4, 5, 7, 10, 15, 20],
  }),
  txProbeFeeCharged: define({
    name: "stellar_horizon_tx_probe_fee_charged_stroops",
    type: "gauge",
    help: "Fee charged for the probe's last successful transaction, in stroops.",
    labels: [],
    source: "tx_probe",
  }),
  txProbeLastSuccess: define({
    name: "stellar_horizon_tx_probe_last_success_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the probe's last successful submission.",
    labels: [],
    source: "tx_probe",
  }),
  txProbeRefused: define({
    name: "stellar_horizon_tx_probe_refused",
    type: "gauge",
    help:
      "1 while the probe refuses to submit, by reason: pubnet (the Horizon serves pubnet and allow_pubnet is " +
      "false), unfunded (its account does not exist), no_key (its key cannot sign for the account); else 0.",
    labels: ["reason"],
    source: "tx_probe",
  }),

  // `/accounts/:id` (and its offers and claimable balances), per watched account: ACCOUNT_FAMILIES.
  ...HORIZON_ACCOUNT_METRICS,

  // A watched account's flow with `activity: true`: its payments, transactions and operations streams.
  accountPaymentsTotal: define({
    name: "stellar_horizon_account_payments_total",
    type: "counter",
    help:
      "Successful payments of a watched account (payment, path payments, create_account, account_merge, and " +
      "transfer, mint and clawback balance changes of invoke_host_function), by direction (received, sent) and " +
      "asset.",
    labels: ["account", "direction", "asset"],
    source: "activity",
  }),
  accountPaymentAmountTotal: define({
    name: "stellar_horizon_account_payment_amount_total",
    type: "counter",
    help:
      "Amount of a watched account's successful payments, by direction and asset, in units of the asset (exact " +
      "stroop sums; an account merge counts no amount).",
    labels: ["account", "direction", "asset"],
    source: "activity",
  }),
  accountLastPaymentTimestamp: define({
    name: "stellar_horizon_account_last_payment_timestamp_seconds",
    type: "gauge",
    help:
      "created_at of the newest payment counted in a direction (received, sent), as a Unix timestamp; the first " +
      "poll's newest payment sets it.",
    labels: ["account", "direction"],
    source: "activity",
  }),
  accountPaymentExpectedWithin: define({
    name: "stellar_horizon_account_payment_expected_within_seconds",
    type: "gauge",
    help: "The account's configured expect_payment_within, in seconds; only with one.",
    labels: ["account"],
    source: "activity",
  }),
  accountOutflowLimitPerHour: define({
    name: "stellar_horizon_account_outflow_limit_per_hour",
    type: "gauge",
    help: "The account's configured max_outflow_per_hour of an asset, in units of the asset; only with one.",
    labels: ["account", "asset"],
    source: "activity",
  }),
  accountTransactionsTotal: define({
    name: "stellar_horizon_account_transactions_total",
    type: "counter",
    help: "Transactions whose source account is the watched account, by result (successful, failed).",
    labels: ["account", "result"],
    source: "activity",
  }),
  accountFeeChargedStroopsTotal: define({
    name: "stellar_horizon_account_fee_charged_stroops_total",
    type: "counter",
    help: "fee_charged of the transactions whose fee account is the watched account, failed ones included, in stroops.",
    labels: ["account"],
    source: "activity",
  }),
  accountTransactionFailuresTotal: define({
    name: "stellar_horizon_account_transaction_failures_total",
    type: "counter",
    help:
      "Failed transactions of the watched account by result code decoded from result_xdr: the transaction's " +
      "(tx_bad_seq, ...), or for tx_failed the first failing operation's (op_underfunded, ...).",
    labels: ["account", "code"],
    source: "activity",
  }),
  accountOperationsTotal: define({
    name: "stellar_horizon_account_operations_total",
    type: "counter",
    help:
      "Successful operations of the watched account by Horizon's type name (payment, set_options, ...), with " +
      "operations: true.",
    labels: ["account", "type"],
    source: "activity",
  }),
  // `/assets?asset_code=&asset_issuer=`, per watched asset (`asset` is CODE:ISSUER).
  assetExists: define({
    name: "stellar_horizon_asset_exists",
    type: "gauge",
    help: "1 when Horizon's /assets returns the watched asset's record, 0 when it returns none.",
    labels: ["asset"],
    source: "assets",
  }),
  assetSupply: define({
    name: "stellar_horizon_asset_supply",
    type: "gauge",
    help:
      "An asset's supply, in units of the asset: its balances (authorized, authorized to maintain liabilities, " +
      "unauthorized) plus the amounts in claimable balances, liquidity pools and contracts, summed exactly.",
    labels: ["asset"],
    source: "assets",
  }),
  assetAmount: define({
    name: "stellar_horizon_asset_amount",
    type: "gauge",
    help:
      "Part of an asset's supply by holder kind (authorized, authorized_to_maintain_liabilities, unauthorized, " +
      "claimable_balances, liquidity_pools, contracts), in units of the asset; absent when Horizon does not send " +
      "it.",
    labels: ["asset", "held_by"],
    source: "assets",
  }),
  assetHolders: define({
    name: "stellar_horizon_asset_holders",
    type: "gauge",
    help:
      "Accounts, claimable balances, liquidity pools and contracts holding an asset, by holder kind; absent when " +
      "Horizon does not send it.",
    labels: ["asset", "held_by"],
    source: "assets",
  }),
  assetFlag: define({
    name: "stellar_horizon_asset_flag",
    type: "gauge",
    help:
      "1 when the asset's issuer has the flag set (auth_required, auth_revocable, auth_immutable, " +
      "auth_clawback_enabled), else 0.",
    labels: ["asset", "flag"],
    source: "assets",
  }),
  assetFlagChanges: define({
    name: "stellar_horizon_asset_flag_changes_total",
    type: "counter",
    help: "Polls at which any of the asset's flags differed from the last poll that returned a valid record.",
    labels: ["asset"],
    source: "assets",
  }),
  assetInfo: define({
    name: "stellar_horizon_asset_info",
    type: "gauge",
    help:
      "A watched asset's Stellar Asset Contract id (empty when none is deployed, or Horizon is older than 2.27); " +
      "always 1.",
    labels: ["asset", "contract_id"],
    source: "assets",
  }),
  // Watched DEX markets (`markets:`): `/trade_aggregations`, `/trades` and the makers' `/offers`.
  marketPrice: define({
    name: "stellar_horizon_market_price",
    type: "gauge",
    help:
      "Price of the last completed trade aggregation bucket with trades, in counter per base, by stat (open, " +
      "high, low, close, avg).",
    labels: ["market", "stat"],
    source: "markets",
  }),
  marketBucketVolume: define({
    name: "stellar_horizon_market_bucket_volume",
    type: "gauge",
    help: "Volume traded in that bucket, by asset (base, counter), in units of that asset.",
    labels: ["market", "asset"],
    source: "markets",
  }),
  marketBucketTrades: define({
    name: "stellar_horizon_market_bucket_trades",
    type: "gauge",
    help: "Trades in that bucket (its trade_count).",
    labels: ["market"],
    source: "markets",
  }),
  marketBucketTimestamp: define({
    name: "stellar_horizon_market_bucket_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the start of that bucket.",
    labels: ["market"],
    source: "markets",
  }),
  marketPriceDeviation: define({
    name: "stellar_horizon_market_price_deviation_ratio",
    type: "gauge",
    help: "(close - reference_price) / reference_price, for a market configured with a reference price.",
    labels: ["market"],
    source: "markets",
  }),
  marketReferencePrice: define({
    name: "stellar_horizon_market_reference_price",
    type: "gauge",
    help: "The configured reference price (a peg), in counter per base.",
    labels: ["market"],
    source: "markets",
  }),
  marketTraded: define({
    name: "stellar_horizon_market_traded",
    type: "gauge",
    help: "1 once /trade_aggregations returned a record for the pair, else 0 (a pair that never traded).",
    labels: ["market"],
    source: "markets",
  }),
  marketTrades: define({
    name: "stellar_horizon_market_trades_total",
    type: "counter",
    help:
      "Trades of the pair counted since the exporter started, each once, by trade_type (orderbook, " +
      "liquidity_pool).",
    labels: ["market", "trade_type"],
    source: "markets",
  }),
  marketTradedAmount: define({
    name: "stellar_horizon_market_traded_amount_total",
    type: "counter",
    help: "Sum of the amounts of the trades counted, by asset (base, counter), in units of that asset.",
    labels: ["market", "asset"],
    source: "markets",
  }),
  marketLastTrade: define({
    name: "stellar_horizon_market_last_trade_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the ledger close of the newest trade counted.",
    labels: ["market"],
    source: "markets",
  }),
  marketMakerOffers: define({
    name: "stellar_horizon_market_maker_offers",
    type: "gauge",
    help: "A maker's open offers on a side of the market (ask: sells base for counter; bid: sells counter for base).",
    labels: ["market", "maker", "side"],
    source: "markets",
  }),
  marketMakerOfferAmount: define({
    name: "stellar_horizon_market_maker_offer_amount",
    type: "gauge",
    help: "Sum of a maker's offer amounts on a side, in units of the asset that side sells.",
    labels: ["market", "maker", "side"],
    source: "markets",
  }),
  marketMakerBestPrice: define({
    name: "stellar_horizon_market_maker_best_price",
    type: "gauge",
    help:
      "A maker's best price on a side, in counter per base: an ask's lowest price, a bid's highest 1 / price (d " +
      "/ n of price_r).",
    labels: ["market", "maker", "side"],
    source: "markets",
  }),
  marketMakerOfferAge: define({
    name: "stellar_horizon_market_maker_offer_age_seconds",
    type: "gauge",
    help: "Seconds since the oldest last_modified_time of a maker's offers on a side.",
    labels: ["market", "maker", "side"],
    source: "markets",
  }),
  // `/paths/strict-send` and `/paths/strict-receive`, per configured corridor (src/collectors/corridors.ts).
  corridorPaths: define({
    name: "stellar_horizon_corridor_paths",
    type: "gauge",
    help:
      "Paths the corridor's last answered request returned (0 when none); kept through failed runs until its " +
      "freshness ends.",
    labels: ["corridor"],
    source: "corridors",
  }),
  corridorBestAmount: define({
    name: "stellar_horizon_corridor_best_amount",
    type: "gauge",
    help:
      "Best path's amount: strict_send, the highest destination_amount; strict_receive, the lowest " +
      "source_amount; in units of that asset.",
    labels: ["corridor"],
    source: "corridors",
  }),
  corridorBestRate: define({
    name: "stellar_horizon_corridor_best_rate",
    type: "gauge",
    help: "Destination units per source unit of the best path.",
    labels: ["corridor"],
    source: "corridors",
  }),
  corridorBestHops: define({
    name: "stellar_horizon_corridor_best_hops",
    type: "gauge",
    help: "Intermediate assets of the best path (its `path` length; 0 for a direct market).",
    labels: ["corridor"],
    source: "corridors",
  }),
  corridorMinRate: define({
    name: "stellar_horizon_corridor_min_rate",
    type: "gauge",
    help: "The corridor's configured min_rate (destination per source), only when configured.",
    labels: ["corridor"],
    source: "corridors",
  }),
  corridorDuration: define({
    name: "stellar_horizon_corridor_duration_seconds",
    type: "histogram",
    help: "Request time of each corridor run, answered or not.",
    labels: ["corridor"],
    source: "corridors",
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  corridorRuns: define({
    name: "stellar_horizon_corridor_runs_total",
    type: "counter",
    help:
      "Corridor runs by outcome: found, none, disabled (404), over_capacity, still_ingesting, timeout, error; " +
      "runs skipped while path finding is disabled are not counted.",
    labels: ["corridor", "result"],
    source: "corridors",
  }),
  corridorLastFound: define({
    name: "stellar_horizon_corridor_last_found_timestamp_seconds",
    type: "gauge",
    help: "Unix time at the end of the corridor's last run that found a path.",
    labels: ["corridor"],
    source: "corridors",
  }),

  // The exporter itself.
  buildInfo: define({
    name: "stellar_horizon_exporter_build_info",
    type: "gauge",
    help: "Version of the exporter and of Node.js it runs on; always 1.",
    labels: ["version", "node_version"],
    source: "exporter",
    perTarget: false,
  }),
  shardInfo: define({
    name: "stellar_horizon_exporter_shard_info",
    type: "gauge",
    help: "Which shard of the watched accounts and contracts this replica exports (--shard=INDEX/TOTAL); always 1.",
    labels: ["index", "total"],
    source: "exporter",
    perTarget: false,
  }),
  requestsTotal: define({
    name: "stellar_horizon_exporter_requests_total",
    type: "counter",
    help: 'HTTP requests sent to Horizon, by endpoint and status code (code="error" when no response arrived).',
    labels: ["endpoint", "code"],
    source: "exporter",
  }),
  requestDuration: define({
    name: "stellar_horizon_exporter_request_duration_seconds",
    type: "histogram",
    help: "Duration of HTTP requests to Horizon, body read included.",
    labels: ["endpoint"],
    source: "exporter",
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  pollDuration: define({
    name: "stellar_horizon_exporter_poll_duration_seconds",
    type: "histogram",
    help: "Duration of a whole poll of an endpoint, retries and paging included.",
    labels: ["endpoint"],
    source: "exporter",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  }),
  pollErrorsTotal: define({
    name: "stellar_horizon_exporter_poll_errors_total",
    type: "counter",
    help: "Failed polls, by endpoint and reason (see the README for the reasons).",
    labels: ["endpoint", "reason"],
    source: "exporter",
  }),
  invalidRecordsTotal: define({
    name: "stellar_horizon_exporter_invalid_records_total",
    type: "counter",
    help:
      "Records of a Horizon answer (a page's records, or a whole document such as an account or the fee stats) " +
      "that failed validation and were left out.",
    labels: ["endpoint"],
    source: "exporter",
  }),
  lastSuccessTimestamp: define({
    name: "stellar_horizon_exporter_last_success_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the last successful poll of an endpoint.",
    labels: ["endpoint"],
    source: "exporter",
  }),
  plannedRequestsPerHour: define({
    name: "stellar_horizon_exporter_planned_requests_per_hour",
    type: "gauge",
    help: "Requests per hour the configured schedules and page limits plan to send to a Horizon, retries excluded.",
    labels: [],
    source: "exporter",
  }),
  requestBudgetPerHour: define({
    name: "stellar_horizon_exporter_request_budget_per_hour",
    type: "gauge",
    help:
      "Requests per hour this Horizon allows the exporter (request_budget_per_hour; 3600 is the public Horizon's " +
      "limit).",
    labels: [],
    source: "exporter",
  }),
  publishFailuresTotal: define({
    name: "stellar_horizon_exporter_publish_failures_total",
    type: "counter",
    help:
      "Publications of a target's series to the metric store that failed (a bug: the log says why); the next run " +
      "publishes again.",
    labels: [],
    source: "exporter",
    perTarget: false,
  }),
  configLastReloadSuccessful: define({
    name: "stellar_horizon_exporter_config_last_reload_successful",
    type: "gauge",
    help: "1 when the last configuration (re)load succeeded, 0 when the last SIGHUP reload was rejected.",
    labels: [],
    source: "exporter",
    perTarget: false,
  }),
  configLastReloadSuccessTimestamp: define({
    name: "stellar_horizon_exporter_config_last_reload_success_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the last successful configuration (re)load.",
    labels: [],
    source: "exporter",
    perTarget: false,
  }),
  rateLimitLimit: define({
    name: "stellar_horizon_rate_limit_limit",
    type: "gauge",
    help: "Requests allowed per rate-limit window, from Horizon's X-Ratelimit-Limit header.",
    labels: [],
    source: "exporter",
  }),
  rateLimitRemaining: define({
    name: "stellar_horizon_rate_limit_remaining",
    type: "gauge",
    help: "Requests left in the current rate-limit window, from Horizon's X-Ratelimit-Remaining header.",
    labels: [],
    source: "exporter",
  }),
  rateLimitReset: define({
    name: "stellar_horizon_rate_limit_reset_seconds",
    type: "gauge",
    help:
      "Seconds until Horizon's rate-limit window resets, from its X-Ratelimit-Reset header (seconds, a Unix " +
      "epoch or an HTTP date).",
    labels: [],
    source: "exporter",
  }),
  rateLimitHoldsCappedTotal: define({
    name: "stellar_horizon_exporter_rate_limit_holds_capped_total",
    type: "counter",
    help:
      "Times Horizon asked the exporter to hold back (Retry-After, or an exhausted rate limit until " +
      "X-Ratelimit-Reset) for longer than one hour, or the target's longest freshness window if longer, and the " +
      "hold was cut to that.",
    labels: [],
    source: "exporter",
  }),
} as const satisfies Record<string, MetricDefinition>;

/**
 * Every value of the `reason` label of stellar_horizon_exporter_poll_errors_total. A fixed set, so
 * alerts and dashboards can rely on it and the series can be initialised to zero.
 */
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

const ENTRY_LABELS = ["contract", "entry", "durability"] as const;

/** Stellar RPC targets' series, labelled `rpc` with the target's name. */
export const RPC_METRICS = {
  up: define({
    name: "stellar_rpc_up",
    type: "gauge",
    help: "1 when the last status poll of the Stellar RPC (getHealth, getLatestLedger, getFeeStats) succeeded, else 0.",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  healthy: define({
    name: "stellar_rpc_healthy",
    type: "gauge",
    help: "1 when getHealth said healthy, 0 when it answered an error or another status.",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  latestLedger: define({
    name: "stellar_rpc_latest_ledger",
    type: "gauge",
    help: "Latest ledger the Stellar RPC has ingested (getLatestLedger).",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  oldestLedger: define({
    name: "stellar_rpc_oldest_ledger",
    type: "gauge",
    help: "Oldest ledger the Stellar RPC still serves (getHealth); absent while unhealthy.",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  retentionWindow: define({
    name: "stellar_rpc_ledger_retention_window_ledgers",
    type: "gauge",
    help: "Ledgers the Stellar RPC is configured to retain (getHealth); absent while unhealthy.",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  latestLedgerClosedTimestamp: define({
    name: "stellar_rpc_latest_ledger_closed_timestamp_seconds",
    type: "gauge",
    help: "Close time of the Stellar RPC's latest ledger, as a Unix timestamp; absent when the RPC does not report it.",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  protocolVersion: define({
    name: "stellar_rpc_protocol_version",
    type: "gauge",
    help: "Protocol version of the Stellar RPC's latest ledger.",
    labels: [],
    source: "status",
    targetLabel: "rpc",
  }),
  inclusionFee: define({
    name: "stellar_rpc_inclusion_fee_stroops",
    type: "gauge",
    help:
      "Inclusion fee over the Stellar RPC's recent ledger window, in stroops, by transaction kind (soroban, " +
      "classic) and statistic.",
    labels: ["kind", "stat"],
    source: "status",
    targetLabel: "rpc",
  }),
  feeStatsTransactions: define({
    name: "stellar_rpc_fee_stats_transactions",
    type: "gauge",
    help: "Transactions the Stellar RPC's fee statistics are computed from, by kind.",
    labels: ["kind"],
    source: "status",
    targetLabel: "rpc",
  }),
  feeStatsLedgers: define({
    name: "stellar_rpc_fee_stats_ledgers",
    type: "gauge",
    help: "Ledgers the Stellar RPC's fee statistics window spans, by kind.",
    labels: ["kind"],
    source: "status",
    targetLabel: "rpc",
  }),
  info: define({
    name: "stellar_rpc_info",
    type: "gauge",
    help: "Stellar RPC and captive stellar-core versions and the network this RPC serves; always 1.",
    labels: ["version", "captive_core_version", "network", "network_passphrase"],
    source: "versions",
    targetLabel: "rpc",
  }),

  // Watched Soroban contracts' entries (getLedgerEntries): `entry` is instance, code or a configured key's name.
  contractEntryExists: define({
    name: "stellar_rpc_contract_entry_exists",
    type: "gauge",
    help:
      "1 when getLedgerEntries returned the contract entry (live or archived), 0 when it did not: never created, " +
      "deleted, or an expired temporary entry.",
    labels: ENTRY_LABELS,
    source: "contracts",
    targetLabel: "rpc",
  }),
  contractEntryArchived: define({
    name: "stellar_rpc_contract_entry_archived",
    type: "gauge",
    help:
      "1 when the contract entry is archived (live-until 0 or behind the latest ledger), 0 while live; absent " +
      "while unknown (a 0 the exporter saw live ahead, stellar-rpc#990).",
    labels: ENTRY_LABELS,
    source: "contracts",
    targetLabel: "rpc",
  }),
  contractEntryLiveUntil: define({
    name: "stellar_rpc_contract_entry_live_until_ledger",
    type: "gauge",
    help: "Last ledger the live contract entry lives through (liveUntilLedgerSeq); live entries only.",
    labels: ENTRY_LABELS,
    source: "contracts",
    targetLabel: "rpc",
  }),
  contractEntryTtl: define({
    name: "stellar_rpc_contract_entry_ttl_ledgers",
    type: "gauge",
    help:
      "Ledgers the live contract entry has left: liveUntilLedgerSeq minus latestLedger of the same response; " +
      "live entries only.",
    labels: ENTRY_LABELS,
    source: "contracts",
    targetLabel: "rpc",
  }),
  contractEntryExpiry: define({
    name: "stellar_rpc_contract_entry_expiry_timestamp_seconds",
    type: "gauge",
    help:
      "When the live contract entry is expected to be archived, as a Unix timestamp: now plus its TTL times the " +
      "RPC's mean ledger close interval over the last hour (5 s until it has shown one); live entries only.",
    labels: ENTRY_LABELS,
    source: "contracts",
    targetLabel: "rpc",
  }),
  contractInfo: define({
    name: "stellar_rpc_contract_info",
    type: "gauge",
    help:
      "A watched contract: its id, executable (wasm or stellar_asset) and wasm hash (hex, empty for a Stellar " +
      "Asset Contract); always 1.",
    labels: ["contract", "contract_id", "executable", "wasm_hash"],
    source: "contracts",
    targetLabel: "rpc",
  }),
  stateArchivalMaxEntryTtl: define({
    name: "stellar_rpc_state_archival_max_entry_ttl_ledgers",
    type: "gauge",
    help:
      "The network's longest TTL an entry can be extended to, in ledgers (CONFIG_SETTING_STATE_ARCHIVAL " +
      "maxEntryTTL).",
    labels: [],
    source: "contracts",
    targetLabel: "rpc",
  }),
  stateArchivalMinPersistentTtl: define({
    name: "stellar_rpc_state_archival_min_persistent_ttl_ledgers",
    type: "gauge",
    help:
      "The network's TTL of a new or restored persistent entry, in ledgers (CONFIG_SETTING_STATE_ARCHIVAL " +
      "minPersistentTTL).",
    labels: [],
    source: "contracts",
    targetLabel: "rpc",
  }),
  stateArchivalMinTemporaryTtl: define({
    name: "stellar_rpc_state_archival_min_temporary_ttl_ledgers",
    type: "gauge",
    help: "The network's TTL of a new temporary entry, in ledgers (CONFIG_SETTING_STATE_ARCHIVAL minTemporaryTTL).",
    labels: [],
    source: "contracts",
    targetLabel: "rpc",
  }),

  // Watched contracts' events (getEvents, src/collectors/contract-events.ts).
  contractEvents: define({
    name: "stellar_rpc_contract_events_total",
    type: "counter",
    help:
      "Events of a watched contract (failed calls' included), by type (contract, system) and first topic: a " +
      "symbol or string as its text, else its ScVal type; a contract's first 50 distinct topics, later ones as " +
      "other.",
    labels: ["contract", "type", "topic"],
    source: "events",
    targetLabel: "rpc",
  }),
  contractFailedCallEvents: define({
    name: "stellar_rpc_contract_failed_call_events_total",
    type: "counter",
    help: "Events of a watched contract emitted in a contract call that failed (inSuccessfulContractCall false).",
    labels: ["contract"],
    source: "events",
    targetLabel: "rpc",
  }),
  contractLastEvent: define({
    name: "stellar_rpc_contract_last_event_timestamp_seconds",
    type: "gauge",
    help:
      "Close time (ledgerClosedAt) of the ledger of the newest event counted of a watched contract, as a Unix " +
      "timestamp.",
    labels: ["contract"],
    source: "events",
    targetLabel: "rpc",
  }),
  contractEventsExpectedWithin: define({
    name: "stellar_rpc_contract_events_expected_within_seconds",
    type: "gauge",
    help: "The configured expect_events_within of a watched contract: it normally emits an event at least this often.",
    labels: ["contract"],
    source: "events",
    targetLabel: "rpc",
  }),
  contractUpgrades: define({
    name: "stellar_rpc_contract_upgrades_total",
    type: "counter",
    help:
      "Upgrades of a watched contract: system events whose first topic is executable_update (its code was " +
      "replaced).",
    labels: ["contract"],
    source: "events",
    targetLabel: "rpc",
  }),
  contractEventsSkippedLedgers: define({
    name: "stellar_rpc_contract_events_skipped_ledgers_total",
    type: "counter",
    help:
      "Ledgers whose events were never read: the event cursor fell out of the RPC's retention window and the " +
      "poll restarted at its oldest ledger.",
    labels: [],
    source: "events",
    targetLabel: "rpc",
  }),

  // The exporter's own view of each Stellar RPC, as the stellar_horizon_exporter_* series give for Horizon.
  requestsTotal: define({
    name: "stellar_horizon_exporter_rpc_requests_total",
    type: "counter",
    help: 'HTTP requests sent to a Stellar RPC, by endpoint and status code (code="error" when no response arrived).',
    labels: ["endpoint", "code"],
    source: "exporter",
    targetLabel: "rpc",
  }),
  requestDuration: define({
    name: "stellar_horizon_exporter_rpc_request_duration_seconds",
    type: "histogram",
    help: "Duration of HTTP requests to a Stellar RPC, body read included.",
    labels: ["endpoint"],
    source: "exporter",
    targetLabel: "rpc",
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  pollDuration: define({
    name: "stellar_horizon_exporter_rpc_poll_duration_seconds",
    type: "histogram",
    help: "Duration of a whole poll of a Stellar RPC endpoint, retries included.",
    labels: ["endpoint"],
    source: "exporter",
    targetLabel: "rpc",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  }),
  pollErrorsTotal: define({
    name: "stellar_horizon_exporter_rpc_poll_errors_total",
    type: "counter",
    help: "Failed polls of a Stellar RPC, by endpoint and reason (see the README for the reasons).",
    labels: ["endpoint", "reason"],
    source: "exporter",
    targetLabel: "rpc",
  }),
  lastSuccessTimestamp: define({
    name: "stellar_horizon_exporter_rpc_last_success_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the last successful poll of a Stellar RPC endpoint.",
    labels: ["endpoint"],
    source: "exporter",
    targetLabel: "rpc",
  }),
  invalidRecordsTotal: define({
    name: "stellar_horizon_exporter_rpc_invalid_records_total",
    type: "counter",
    help:
      "Results of a Stellar RPC (getHealth, getFeeStats, getVersionInfo, ...) that failed validation and were " +
      "left out.",
    labels: ["endpoint"],
    source: "exporter",
    targetLabel: "rpc",
  }),
  rateLimitHoldsCappedTotal: define({
    name: "stellar_horizon_exporter_rpc_rate_limit_holds_capped_total",
    type: "counter",
    help:
      "Times a Stellar RPC asked the exporter to hold back (Retry-After, or an exhausted rate limit until " +
      "X-Ratelimit-Reset) for longer than one hour, or the target's longest freshness window if longer, and the " +
      "hold was cut to that.",
    labels: [],
    source: "exporter",
    targetLabel: "rpc",
  }),

  // Watched accounts' ledger entries through getLedgerEntries: ACCOUNT_FAMILIES.
  ...RPC_ACCOUNT_METRICS,
} as const satisfies Record<string, MetricDefinition>;

/**
 * The targets of a network checked against each other, labelled by `network` (pubnet, testnet,
 * futurenet, else the first 8 hex digits of the passphrase's SHA-256), `kind` (horizon, rpc) and
 * `target` (the target's name) rather than by a target label: a view over what the targets' polls
 * already read.
 */
export const AGREEMENT_METRICS = {
  networkTargets: define({
    name: "stellar_network_targets",
    type: "gauge",
    help: "Targets (Horizons and Stellar RPCs) serving the network, as their network passphrases say.",
    labels: ["network"],
    source: "agreement",
    perTarget: false,
  }),
  ledgerHashComparisons: define({
    name: "stellar_network_ledger_hash_comparisons_total",
    type: "counter",
    help:
      "Ledgers at which the hash this target showed was compared with the hash other targets of its network " +
      "showed.",
    labels: ["network", "kind", "target"],
    source: "agreement",
    perTarget: false,
  }),
  ledgerHashDisagreements: define({
    name: "stellar_network_ledger_hash_disagreements_total",
    type: "counter",
    help:
      "Ledgers at which this target's hash was judged wrong: against the majority of three or more targets, or " +
      "differing from the only other target's.",
    labels: ["network", "kind", "target"],
    source: "agreement",
    perTarget: false,
  }),
  protocolBehind: define({
    name: "stellar_network_target_protocol_behind",
    type: "gauge",
    help: "The network's highest protocol version reported by any of its targets, minus the one this target reports.",
    labels: ["network", "kind", "target"],
    source: "agreement",
    perTarget: false,
  }),
} as const satisfies Record<string, MetricDefinition>;

/**
 * Reasons of stellar_horizon_tx_probe_failures_total initialised to zero. Any other transaction
 * result code matching `^tx_[a-z_]{1,40}$` appears when it first happens.
 */
export const TX_PROBE_COMMON_FAILURE_REASONS = [
  "tx_bad_seq",
  "tx_insufficient_fee",
  "tx_insufficient_balance",
  "tx_too_late",
  "tx_bad_auth",
  "tx_failed",
  "tx_other",
  "timeout",
  "network",
  "http_4xx",
  "http_5xx",
  "rate_limited",
  "invalid_json",
  "schema",
] as const;

/** Why the transaction probe refuses to submit: every reason is exported, 1 for the current one. */
export const TX_PROBE_REFUSAL_REASONS = ["pubnet", "unfunded", "no_key"] as const;
export type TxProbeRefusal = (typeof TX_PROBE_REFUSAL_REASONS)[number];

/** How a corridor run ends, the `result` label of stellar_horizon_corridor_runs_total. */
export const CORRIDOR_RESULTS = [
  "found",
  "none",
  "disabled",
  "over_capacity",
  "still_ingesting",
  "timeout",
  "error",
] as const;
export type CorridorResult = (typeof CORRIDOR_RESULTS)[number];

export const ALL_METRICS: readonly MetricDefinition[] = [
  ...Object.values(METRICS),
  ...Object.values(RPC_METRICS),
  ...Object.values(AGREEMENT_METRICS),
];

/** The label that names the target on a per-target series. */
export function targetLabelOf(metric: MetricDefinition): TargetLabel {
  return metric.targetLabel ?? "horizon";
}

/** The label naming the target of a source's series: every metric of one source shares it. */
export function targetLabelOfSource(source: PublishedSource): TargetLabel {
  const metric = ALL_METRICS.find((candidate) => candidate.source === source);
  return metric === undefined ? "horizon" : targetLabelOf(metric);
}

/** Names a PromQL expression may use for a metric: the family name and, for histograms, its series. */
export function exposedSeriesNames(metric: MetricDefinition): string[] {
  if (metric.type !== "histogram") return [metric.name];
  return ["_bucket", "_sum", "_count"].map((suffix) => metric.name + suffix);
}
