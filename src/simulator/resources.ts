/**
 * Horizon's JSON resources, field for field and in Horizon's key order, built
 * from the model. `legacy` renders the shapes of an older Horizon (2.x, 2021).
 */

import type { LedgerRecord } from "./ledgers.js";
import type { ModelStatus } from "./model.js";
import { ledgerPagingToken, pageLinks, type Link, type PageLinkInput } from "./paging.js";
import { POOL_FEE_BP, type PoolDefinition, type PoolState } from "./pools.js";
import { LEGACY_HORIZON_VERSION, releaseFor } from "./scenarios.js";
import { formatAmount, formatTimestamp } from "./wire.js";

export type Resource = Record<string, unknown>;
/** A record that can appear in a page. */
export type PagedRecord = Resource & { paging_token: string };

const TESTNET_PASSPHRASE = "Test SDF Network ; September 2015";
const TESTNET_FRIENDBOT = "https://friendbot.stellar.org";

/** Go's `hal.LinkBuilder`: a link is templated exactly when its href has a URI template. */
function link(href: string): Link {
  return href.includes("{") ? { href, templated: true } : { href };
}

function pagedLink(base: string, path: string): Link {
  return link(`${base}${path}{?cursor,limit,order}`);
}

/** A record's `self` link plus a paged link for each related collection. */
function recordLinks(self: string, collections: readonly string[]): Record<string, Link> {
  return Object.fromEntries([["self", link(self)], ...collections.map((name) => [name, pagedLink(self, `/${name}`)])]);
}

const TRADE_PARAMS =
  "base_asset_type={base_asset_type}&base_asset_code={base_asset_code}&base_asset_issuer={base_asset_issuer}" +
  "&counter_asset_type={counter_asset_type}&counter_asset_code={counter_asset_code}" +
  "&counter_asset_issuer={counter_asset_issuer}";

function rootLinks(base: string, networkPassphrase: string, legacy: boolean): Record<string, Link> {
  // Horizon 2.11 had these three templates wrong, `/ledger/{sequence}` included.
  const claimableBalances = legacy
    ? "/claimable_balances?{asset,claimant,sponsor}"
    : "/claimable_balances{?asset,sponsor,claimant,cursor,limit,order}";
  const ledger = legacy ? "/ledger/{sequence}" : "/ledgers/{sequence}";
  const liquidityPools = legacy
    ? "/liquidity_pools?{?reserves,account}"
    : "/liquidity_pools{?reserves,account,cursor,limit,order}";
  const links: Record<string, Link> = {
    account: link(`${base}/accounts/{account_id}`),
    accounts: link(`${base}/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}`),
    account_transactions: pagedLink(base, "/accounts/{account_id}/transactions"),
    claimable_balances: link(base + claimableBalances),
    assets: link(`${base}/assets{?asset_code,asset_issuer,cursor,limit,order}`),
    effects: link(`${base}/effects{?cursor,limit,order}`),
    fee_stats: link(`${base}/fee_stats`),
  };
  // Only deployments configured with a friendbot (SDF's testnet) advertise it.
  if (networkPassphrase === TESTNET_PASSPHRASE) links.friendbot = link(`${TESTNET_FRIENDBOT}/{?addr}`);
  return {
    ...links,
    ledger: link(base + ledger),
    ledgers: link(`${base}/ledgers{?cursor,limit,order}`),
    liquidity_pools: link(base + liquidityPools),
    offer: link(`${base}/offers/{offer_id}`),
    offers: link(`${base}/offers{?selling,buying,seller,sponsor,cursor,limit,order}`),
    operation: link(`${base}/operations/{id}`),
    operations: link(`${base}/operations{?cursor,limit,order,include_failed}`),
    order_book: link(
      `${base}/order_book{?selling_asset_type,selling_asset_code,selling_asset_issuer,` +
        "buying_asset_type,buying_asset_code,buying_asset_issuer,limit}",
    ),
    payments: link(`${base}/payments{?cursor,limit,order,include_failed}`),
    self: link(`${base}/`),
    strict_receive_paths: link(
      `${base}/paths/strict-receive{?source_assets,source_account,destination_account,destination_asset_type,` +
        "destination_asset_issuer,destination_asset_code,destination_amount}",
    ),
    strict_send_paths: link(
      `${base}/paths/strict-send{?destination_account,destination_assets,source_asset_type,source_asset_issuer,` +
        "source_asset_code,source_amount}",
    ),
    trade_aggregations: link(`${base}/trade_aggregations?${TRADE_PARAMS}`),
    trades: link(`${base}/trades?${TRADE_PARAMS}`),
    transaction: link(`${base}/transactions/{hash}`),
    transactions: pagedLink(base, "/transactions"),
  };
}

export function rootResource(base: string, status: ModelStatus, networkPassphrase: string): Resource {
  const { versions } = status;
  const legacy = status.behaviour.legacyShapes;
  return {
    _links: rootLinks(base, networkPassphrase, legacy),
    // The API specification's name for the version; our issue asks the legacy shape to use it, so
    // clients that only know the spec are exercised too.
    ...(legacy
      ? { service_version: LEGACY_HORIZON_VERSION }
      : { horizon_version: releaseFor(versions.horizonSupported).horizonVersion }),
    core_version: releaseFor(versions.coreSupported).coreVersion,
    ingest_latest_ledger: status.ingestLatestLedger,
    history_latest_ledger: status.historyLatestLedger,
    history_latest_ledger_closed_at: formatTimestamp(status.historyLatestClosedAtMs),
    history_elder_ledger: status.historyElderLedger,
    core_latest_ledger: status.coreLatestLedger,
    network_passphrase: networkPassphrase,
    current_protocol_version: versions.current,
    // Added in Horizon 2.19 (2022); older releases do not send it.
    ...(legacy ? {} : { supported_protocol_version: versions.horizonSupported }),
    core_supported_protocol_version: versions.coreSupported,
  };
}

export function ledgerResource(base: string, record: LedgerRecord, legacy: boolean): PagedRecord {
  const self = `${base}/ledgers/${record.sequence}`;
  return {
    _links: recordLinks(self, ["transactions", "operations", "payments", "effects"]),
    id: record.hash,
    paging_token: ledgerPagingToken(record.sequence).toString(),
    hash: record.hash,
    prev_hash: record.prevHash,
    sequence: record.sequence,
    successful_transaction_count: record.successfulTransactionCount,
    // Ledgers ingested by old Horizon releases have no failed count (NULL) and no tx-set operation count.
    failed_transaction_count: legacy ? null : record.failedTransactionCount,
    operation_count: record.operationCount,
    ...(legacy ? {} : { tx_set_operation_count: record.txSetOperationCount }),
    closed_at: formatTimestamp(record.closedAtMs),
    total_coins: formatAmount(record.totalCoins),
    fee_pool: formatAmount(record.feePool),
    base_fee_in_stroops: record.baseFee,
    base_reserve_in_stroops: record.baseReserve,
    max_tx_set_size: record.maxTxSetSize,
    protocol_version: record.protocolVersion,
    header_xdr: record.headerXdr,
  };
}

/** `lastModifiedClosedAtMs` is undefined when that ledger is not in history; Horizon then sends null. */
export function poolResource(
  base: string,
  pool: PoolDefinition,
  state: PoolState,
  lastModifiedClosedAtMs: number | undefined,
  legacy: boolean,
): PagedRecord {
  const self = `${base}/liquidity_pools/${pool.id}`;
  return {
    _links: recordLinks(self, ["transactions", "operations"]),
    id: pool.id,
    paging_token: pool.id,
    fee_bp: POOL_FEE_BP,
    type: "constant_product",
    total_trustlines: String(state.totalTrustlines),
    total_shares: formatAmount(state.totalShares),
    reserves: [
      { asset: pool.assets[0], amount: formatAmount(state.reserves[0]) },
      { asset: pool.assets[1], amount: formatAmount(state.reserves[1]) },
    ],
    last_modified_ledger: state.lastModifiedLedger,
    last_modified_time: legacy || lastModifiedClosedAtMs === undefined ? null : formatTimestamp(lastModifiedClosedAtMs),
  };
}

export function pageResource(links: Omit<PageLinkInput, "pagingTokens">, records: readonly PagedRecord[]): Resource {
  return {
    _links: pageLinks({ ...links, pagingTokens: records.map((record) => record.paging_token) }),
    _embedded: { records },
  };
}
