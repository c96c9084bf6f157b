/**
 * Horizon's account, offer and claimable-balance resources, field for field and in the key order
 * of Horizon's Go structs (see account-java-sdk.json, offers-java-sdk.json and
 * claimable_balances-java-sdk.json). `legacy` renders Horizon 2.11's account, from before
 * protocol 19 added `sequence_ledger` and `sequence_time`.
 */

import type { ClaimableBalance, Offer, SimulatedAccount, SimulatedAccounts, Trustline, PoolShare } from "./accounts.js";
import type { Link } from "./paging.js";
import type { PagedRecord } from "./resources.js";
import { formatAmount, formatTimestamp } from "./wire.js";
import { assetFields } from "./wire.js";

function link(href: string): Link {
  return href.includes("{") ? { href, templated: true } : { href };
}

function trustlineBalance(line: Trustline): Record<string, unknown> {
  return {
    balance: formatAmount(line.balance),
    limit: formatAmount(line.limit),
    buying_liabilities: formatAmount(line.buyingLiabilities),
    selling_liabilities: formatAmount(line.sellingLiabilities),
    ...(line.sponsor === undefined ? {} : { sponsor: line.sponsor }),
    last_modified_ledger: line.lastModified.ledger,
    is_authorized: line.authorized,
    is_authorized_to_maintain_liabilities: line.authorized,
    ...assetFields(line.asset),
  };
}

/** Pool shares carry no liabilities: they cannot be offered. */
function poolShareBalance(share: PoolShare): Record<string, unknown> {
  return {
    balance: formatAmount(share.balance),
    liquidity_pool_id: share.poolId,
    limit: formatAmount(share.limit),
    ...(share.sponsor === undefined ? {} : { sponsor: share.sponsor }),
    last_modified_ledger: share.lastModified.ledger,
    is_authorized: false,
    is_authorized_to_maintain_liabilities: false,
    asset_type: "liquidity_pool_shares",
  };
}

function unixSeconds(epochMs: number): string {
  return String(Math.floor(epochMs / 1000));
}

export function accountResource(
  base: string,
  account: SimulatedAccount,
  accounts: SimulatedAccounts,
  legacy: boolean,
): PagedRecord {
  const self = `${base}/accounts/${account.id}`;
  const paged = (name: string) => link(`${self}/${name}{?cursor,limit,order}`);
  const sequencePoint = legacy ? undefined : account.sequencePoint;
  return {
    _links: {
      self: link(self),
      transactions: paged("transactions"),
      operations: paged("operations"),
      payments: paged("payments"),
      effects: paged("effects"),
      offers: paged("offers"),
      trades: paged("trades"),
      data: link(`${self}/data/{key}`),
    },
    id: account.id,
    account_id: account.id,
    sequence: account.sequence.toString(),
    ...(sequencePoint === undefined
      ? {}
      : { sequence_ledger: sequencePoint.ledger, sequence_time: unixSeconds(sequencePoint.closedAtMs) }),
    subentry_count: accounts.subentries(account.id),
    ...(account.homeDomain === "" ? {} : { home_domain: account.homeDomain }),
    last_modified_ledger: account.lastModified.ledger,
    last_modified_time: formatTimestamp(account.lastModified.closedAtMs),
    thresholds: {
      low_threshold: account.thresholds.low,
      med_threshold: account.thresholds.medium,
      high_threshold: account.thresholds.high,
    },
    flags: {
      auth_required: account.flags.authRequired,
      auth_revocable: account.flags.authRevocable,
      auth_immutable: account.flags.authImmutable,
      auth_clawback_enabled: account.flags.authClawbackEnabled,
    },
    // Horizon lists pool shares and trustlines first and the native balance last.
    balances: [
      ...account.poolShares.map(poolShareBalance),
      ...account.trustlines.map(trustlineBalance),
      {
        balance: formatAmount(account.balance),
        buying_liabilities: formatAmount(account.nativeBuyingLiabilities),
        selling_liabilities: formatAmount(account.nativeSellingLiabilities),
        asset_type: "native",
      },
    ],
    signers: account.signers.map((signer) => ({ weight: signer.weight, key: signer.key, type: signer.type })),
    data: { ...account.data },
    num_sponsoring: account.numSponsoring,
    num_sponsored: account.numSponsored,
    ...(account.sponsor === undefined ? {} : { sponsor: account.sponsor }),
    paging_token: account.id,
  };
}

/** Horizon renders a price as a 7-decimal string of n/d. */
function formatPrice(price: { n: number; d: number }): string {
  return formatAmount((BigInt(price.n) * 10_000_000n) / BigInt(price.d));
}

export function offerResource(base: string, offer: Offer): PagedRecord {
  const id = offer.id.toString();
  return {
    _links: { self: link(`${base}/offers/${id}`), offer_maker: link(`${base}/accounts/${offer.seller}`) },
    id,
    paging_token: id,
    seller: offer.seller,
    selling: assetFields(offer.selling),
    buying: assetFields(offer.buying),
    amount: formatAmount(offer.amount),
    price_r: { n: offer.price.n, d: offer.price.d },
    price: formatPrice(offer.price),
    last_modified_ledger: offer.lastModified.ledger,
    last_modified_time: formatTimestamp(offer.lastModified.closedAtMs),
  };
}

export function claimableBalanceResource(base: string, balance: ClaimableBalance): PagedRecord {
  const self = `${base}/claimable_balances/${balance.id}`;
  return {
    _links: {
      self: link(self),
      transactions: link(`${self}/transactions{?cursor,limit,order}`),
      operations: link(`${self}/operations{?cursor,limit,order}`),
    },
    id: balance.id,
    asset: balance.asset,
    amount: formatAmount(balance.amount),
    sponsor: balance.sponsor,
    last_modified_ledger: balance.lastModified.ledger,
    last_modified_time: formatTimestamp(balance.lastModified.closedAtMs),
    claimants: balance.claimants.map((destination) => ({ destination, predicate: { unconditional: true } })),
    flags: { clawback_enabled: false },
    paging_token: `${balance.lastModified.ledger}-${balance.id}`,
  };
}
