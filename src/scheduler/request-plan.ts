import { ENDPOINTS, type Endpoint } from "../catalog/metrics.js";
import { marketRequestsPerPoll } from "../config/markets.js";
import { PAGE_LIMIT } from "../client/paging.js";
import { ACCOUNT_LIST_CAP } from "../client/accounts.js";
import type { ExporterConfig, TargetConfig } from "../config/config.js";
import { activityRequestsPerPoll } from "../config/account-streams.js";

/** Stellar closes a ledger every 5 to 7 s; polling faster finds empty pages half the time. */
const TYPICAL_LEDGER_CLOSE_MS = 6_000;

/** Requests a read of up to `cap` records sends at most: its full pages, and one more to learn whether more follow. */
const pagesUpTo = (cap: number) => Math.floor(cap / PAGE_LIMIT) + 1;

/** Requests one poll of an endpoint sends in steady state: the least the API allows for what is tracked, a list read
 * whole at every poll (pools, an account's offers) counted to its cap. Ledger polls faster than ledgers close add a
 * probe for resets on each empty page. On a shard other than 0, which polls no ledgers, an accounts poll reads the
 * latest ledger's base reserve itself. */
export function requestsPerPoll(endpoint: Endpoint, target: TargetConfig, config: ExporterConfig): number {
  switch (endpoint) {
    case "root":
    case "fee_stats":
      return 1;
    case "ledgers":
      return target.schedules.ledgers.periodMs < TYPICAL_LEDGER_CLOSE_MS ? 2 : 1;
    case "liquidity_pools": {
      const { ids, max } = config.liquidityPools;
      return ids.length > 0 ? Math.min(ids.length, max) : pagesUpTo(max);
    }
    case "accounts": {
      // The account, plus its offers and its claimable balances where asked for: each list is read whole at every
      // poll, so counted at its cap, as the pools' pages are.
      const listPages = pagesUpTo(ACCOUNT_LIST_CAP);
      const accounts = target.accounts.reduce(
        (sum, a) => sum + 1 + (Number(a.offers) + Number(a.claimableBalances)) * listPages,
        0,
      );
      return accounts > 0 && config.shard.index !== 0 ? accounts + 1 : accounts;
    }
    case "activity":
      return activityRequestsPerPoll(target.accounts);
    case "assets":
      // One `/assets?asset_code=&asset_issuer=&limit=1` per watched asset.
      return target.assets.length;
    case "markets":
      return marketRequestsPerPoll(target.markets);
    case "corridors":
      // One path-finding request per corridor, never retried.
      return target.corridors?.length ?? 0;
  }
}

/** A probe run reads the source account's sequence, then submits: two requests. */
export const REQUESTS_PER_PROBE_RUN = 2;

/** Requests per hour a target's schedules (its transaction probe's included) plan to send, retries excluded. */
export function plannedRequestsPerHour(target: TargetConfig, config: ExporterConfig): number {
  let total = 0;
  // A shard other than 0 polls its accounts only.
  for (const endpoint of config.shard.index === 0 ? ENDPOINTS : (["accounts", "activity"] as const)) {
    total += (3_600_000 / target.schedules[endpoint].periodMs) * requestsPerPoll(endpoint, target, config);
  }
  if (target.txProbe) total += (3_600_000 / target.txProbe.schedule.periodMs) * REQUESTS_PER_PROBE_RUN;
  return Math.round(total);
}
