/**
 * Horizon's `/assets` (asset stats) for the simulator's two demo assets, in the Horizon 23+ shape:
 * amounts as strings, counts as numbers, `contract_id` only where a Stellar Asset Contract is
 * deployed, `_links.toml`. USDC's parts are the simulated accounts' trustlines and claimable
 * balances plus the rest of the network (a pubnet capture's figures), so an account scenario moves
 * them; DEMO is the simulator's own asset, which the `asset_mint` scenario mints and whose issuer
 * then enables revocation and clawback.
 */

import { Asset, StrKey } from "@stellar/stellar-base";
import type { WatchedAsset } from "../config/assets.js";
import { deterministicAccountId, type SimulatedAccounts } from "./accounts.js";
import { USDC, USDC_ISSUER } from "./demo-accounts.js";
import type { PageQuery } from "./paging.js";
import { invalidField, ProblemError } from "./problems.js";
import type { PagedRecord } from "./resources.js";
import { formatAmount } from "./wire.js";

const STROOPS = 10_000_000n;

/** The simulator's own asset's issuer. */
export const DEMO_ISSUER = deterministicAccountId("stellar-horizon-exporter simulator: asset issuer");
export const DEMO_ASSET = `DEMO:${DEMO_ISSUER}`;

/** How the demo (and the end-to-end test) watch the demo assets. */
export const DEMO_WATCHED_ASSETS: readonly WatchedAsset[] = [
  { name: USDC, code: "USDC", issuer: USDC_ISSUER },
  { name: DEMO_ASSET, code: "DEMO", issuer: DEMO_ISSUER },
];

/** What `asset_mint` issues: a fifth of DEMO's supply. */
export const DEMO_MINT = 1_000_000n * STROOPS;

interface Flags {
  auth_required: boolean;
  auth_revocable: boolean;
  auth_immutable: boolean;
  auth_clawback_enabled: boolean;
}

/** Supply and holders beside the simulated accounts' own. */
interface Holdings {
  authorized: bigint;
  authorizedHolders: number;
  claimable: bigint;
  claimableCount: number;
  pools: bigint;
  poolCount: number;
  contracts: bigint;
  contractCount: number;
}

interface AssetDefinition {
  readonly code: string;
  readonly issuer: string;
  readonly homeDomain: string;
  /** Whether the asset's Stellar Asset Contract is deployed. */
  readonly sac: boolean;
  readonly elsewhere: Holdings;
  flags: Flags;
}

const NO_FLAGS: Flags = {
  auth_required: false,
  auth_revocable: false,
  auth_immutable: false,
  auth_clawback_enabled: false,
};

/** A valid `asset_code`: Horizon's `xdr.ValidAssetCode`. */
const ASSET_CODE = /^[A-Za-z0-9]{1,12}$/;

export class SimulatedAssets {
  readonly #definitions: AssetDefinition[];

  constructor(
    private readonly accounts: SimulatedAccounts,
    private readonly networkPassphrase: string,
  ) {
    this.#definitions = [
      {
        code: "DEMO",
        issuer: DEMO_ISSUER,
        homeDomain: "issuer.example.com",
        sac: false,
        elsewhere: {
          authorized: 5_000_000n * STROOPS,
          authorizedHolders: 120,
          claimable: 250n * STROOPS,
          claimableCount: 1,
          pools: 40_000n * STROOPS,
          poolCount: 2,
          contracts: 0n,
          contractCount: 0,
        },
        flags: { ...NO_FLAGS },
      },
      {
        code: "USDC",
        issuer: USDC_ISSUER,
        homeDomain: "centre.io",
        sac: true,
        // The rest of the network, as a pubnet capture of 2024 had it.
        elsewhere: {
          authorized: 121_258_232_6884846n,
          authorizedHolders: 1_058_053,
          claimable: 8_567_4304807n,
          claimableCount: 449,
          pools: 6_154_162_8631633n,
          poolCount: 645,
          contracts: 2_734_426_6007745n,
          contractCount: 388,
        },
        flags: { ...NO_FLAGS, auth_revocable: true },
      },
    ];
  }

  /** `asset_mint`: DEMO's issuer pays out new units, then enables revocation and clawback. */
  mint(): void {
    const demo = this.#definitions[0]!;
    demo.elsewhere.authorized += DEMO_MINT;
    demo.flags = { ...demo.flags, auth_revocable: true, auth_clawback_enabled: true };
  }

  /**
   * Horizon's `/assets` filters, checked as Horizon checks them; records in (code, issuer) order.
   * An unknown asset matches nothing (200 with no records).
   */
  matching(code: string | undefined, issuer: string | undefined): AssetDefinition[] {
    return this.#definitions
      .filter(
        (asset) => (code === undefined || asset.code === code) && (issuer === undefined || asset.issuer === issuer),
      )
      .sort((a, b) => compare(a.code, b.code) || compare(a.issuer, b.issuer));
  }

  /**
   * A page of `/assets` as Horizon answers it: filters and cursor checked with Horizon's texts, the
   * records after the cursor (`CODE_ISSUER_TYPE`) in the query's order.
   */
  page(code: string | undefined, issuer: string | undefined, query: PageQuery): PagedRecord[] {
    if (code !== undefined && !ASSET_CODE.test(code))
      throw new ProblemError(invalidField("asset_code", `${code} is not a valid asset code`));
    if (issuer !== undefined && !StrKey.isValidEd25519PublicKey(issuer))
      throw new ProblemError(invalidField("asset_issuer", `${issuer} is not a valid asset issuer`));
    const cursor = /^([A-Za-z0-9]{1,12})_(G[A-Z2-7]{55})_credit_alphanum(4|12)$/.exec(query.cursor);
    if (query.cursor !== "" && cursor === null)
      throw new ProblemError(invalidField("cursor", "the cursor is not a valid paging_token"));
    const ordered = this.matching(code, issuer);
    if (query.order === "desc") ordered.reverse();
    const sign = query.order === "asc" ? 1 : -1;
    const after =
      cursor === null
        ? ordered
        : ordered.filter((asset) => sign * (compare(asset.code, cursor[1]!) || compare(asset.issuer, cursor[2]!)) > 0);
    return after.slice(0, query.limit).map((asset) => this.record(asset));
  }

  /** The record Horizon 23+ sends for `asset`. */
  record(asset: AssetDefinition): PagedRecord {
    const own = this.#fromAccounts(`${asset.code}:${asset.issuer}`);
    const type = asset.code.length <= 4 ? "credit_alphanum4" : "credit_alphanum12";
    const { elsewhere } = asset;
    return {
      _links: { toml: { href: `https://${asset.homeDomain}/.well-known/stellar.toml` } },
      asset_type: type,
      asset_code: asset.code,
      asset_issuer: asset.issuer,
      paging_token: `${asset.code}_${asset.issuer}_${type}`,
      ...(asset.sac ? { contract_id: new Asset(asset.code, asset.issuer).contractId(this.networkPassphrase) } : {}),
      num_claimable_balances: elsewhere.claimableCount + own.claimableCount,
      num_liquidity_pools: elsewhere.poolCount,
      num_contracts: elsewhere.contractCount,
      accounts: {
        authorized: elsewhere.authorizedHolders + own.authorizedHolders,
        authorized_to_maintain_liabilities: 0,
        unauthorized: own.unauthorizedHolders,
      },
      claimable_balances_amount: formatAmount(elsewhere.claimable + own.claimable),
      liquidity_pools_amount: formatAmount(elsewhere.pools),
      contracts_amount: formatAmount(elsewhere.contracts),
      balances: {
        authorized: formatAmount(elsewhere.authorized + own.authorized),
        authorized_to_maintain_liabilities: formatAmount(0n),
        unauthorized: formatAmount(own.unauthorized),
      },
      flags: { ...asset.flags },
    };
  }

  /** What the simulated accounts hold of `asset`: trustlines by authorisation, and claimable balances. */
  #fromAccounts(asset: string) {
    const held = { authorized: 0n, authorizedHolders: 0, unauthorized: 0n, unauthorizedHolders: 0 };
    const claimable = new Map<string, bigint>();
    for (const id of this.accounts.ids()) {
      for (const line of this.accounts.get(id)?.trustlines ?? []) {
        if (line.asset !== asset) continue;
        if (line.authorized) {
          held.authorized += line.balance;
          held.authorizedHolders += 1;
        } else {
          held.unauthorized += line.balance;
          held.unauthorizedHolders += 1;
        }
      }
      for (const balance of this.accounts.claimableBy(id))
        if (balance.asset === asset) claimable.set(balance.id, balance.amount);
    }
    const claimableTotal = [...claimable.values()].reduce((total, amount) => total + amount, 0n);
    return { ...held, claimable: claimableTotal, claimableCount: claimable.size };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
