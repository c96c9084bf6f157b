/**
 * Simulated Stellar accounts: balances, trustlines, pool shares, signers, thresholds, flags,
 * sponsorship, offers and claimable balances, kept in stroops and bigints as the ledger keeps
 * them. The HTTP layer renders them in Horizon's wire format (account-resources.ts); tests, the
 * scenarios and the transaction probe's simulator change them through the methods below.
 */

import { hash, Keypair, StrKey } from "@stellar/stellar-base";
import { AccountHistory, type LedgerPoint } from "./account-history.js";

/** Where and when a change happened: the ledger that carried it. */
export type { LedgerPoint };

export interface TrustlineSpec {
  /** `CODE:ISSUER`. */
  readonly asset: string;
  readonly balance: bigint;
  /** Default: the maximum, 922337203685.4775807. */
  readonly limit?: bigint;
  readonly buyingLiabilities?: bigint;
  readonly sellingLiabilities?: bigint;
  readonly authorized?: boolean;
  readonly sponsor?: string;
}

export interface PoolShareSpec {
  readonly poolId: string;
  readonly balance: bigint;
  readonly limit?: bigint;
  readonly sponsor?: string;
}

export interface SignerSpec {
  readonly key: string;
  readonly weight: number;
  /** Horizon's signer type; default ed25519_public_key. */
  readonly type?: string;
}

export interface Thresholds {
  readonly low: number;
  readonly medium: number;
  readonly high: number;
}

export interface AccountFlags {
  readonly authRequired: boolean;
  readonly authRevocable: boolean;
  readonly authImmutable: boolean;
  readonly authClawbackEnabled: boolean;
}

export interface OfferSpec {
  /** `native` or `CODE:ISSUER`. */
  readonly selling: string;
  readonly buying: string;
  readonly amount: bigint;
  /** Price as a fraction n/d. */
  readonly price: { readonly n: number; readonly d: number };
}

export interface AccountSpec {
  readonly id: string;
  /** Native balance in stroops. */
  readonly balance: bigint;
  readonly sequence?: bigint;
  readonly nativeBuyingLiabilities?: bigint;
  readonly nativeSellingLiabilities?: bigint;
  readonly trustlines?: readonly TrustlineSpec[];
  readonly poolShares?: readonly PoolShareSpec[];
  /** Default 1. */
  readonly masterWeight?: number;
  /** Signers besides the master key. */
  readonly signers?: readonly SignerSpec[];
  readonly thresholds?: Thresholds;
  readonly flags?: Partial<AccountFlags>;
  readonly homeDomain?: string;
  /** Data entries, values base64 as Horizon sends them. */
  readonly data?: Readonly<Record<string, string>>;
  readonly numSponsoring?: number;
  readonly numSponsored?: number;
  readonly sponsor?: string;
  readonly offers?: readonly OfferSpec[];
}

export interface Trustline {
  readonly asset: string;
  balance: bigint;
  readonly limit: bigint;
  buyingLiabilities: bigint;
  sellingLiabilities: bigint;
  authorized: boolean;
  readonly sponsor?: string;
  lastModified: LedgerPoint;
}

export interface PoolShare {
  readonly poolId: string;
  balance: bigint;
  readonly limit: bigint;
  readonly sponsor?: string;
  lastModified: LedgerPoint;
}

export interface Signer {
  readonly key: string;
  readonly type: string;
  weight: number;
}

export interface Offer {
  readonly id: bigint;
  readonly seller: string;
  readonly selling: string;
  readonly buying: string;
  readonly amount: bigint;
  readonly price: { readonly n: number; readonly d: number };
  readonly lastModified: LedgerPoint;
}

export interface ClaimableBalance {
  /** Horizon's hex balance id (type prefix `00000000` then a SHA-256). */
  readonly id: string;
  readonly asset: string;
  readonly amount: bigint;
  readonly sponsor: string;
  readonly claimants: readonly string[];
  readonly lastModified: LedgerPoint;
}

export interface SimulatedAccount {
  readonly id: string;
  sequence: bigint;
  /** The ledger and time of the account's last transaction, once it has sent one. */
  sequencePoint?: LedgerPoint;
  balance: bigint;
  nativeBuyingLiabilities: bigint;
  nativeSellingLiabilities: bigint;
  readonly trustlines: Trustline[];
  readonly poolShares: PoolShare[];
  readonly signers: Signer[];
  thresholds: Thresholds;
  flags: AccountFlags;
  homeDomain: string;
  readonly data: Record<string, string>;
  numSponsoring: number;
  numSponsored: number;
  readonly sponsor?: string;
  lastModified: LedgerPoint;
}

/** 2^63 − 1 stroops: Horizon's limit of a trustline added without one. */
export const MAX_TRUSTLINE_LIMIT = (1n << 63n) - 1n;
const MASTER_KEY_TYPE = "ed25519_public_key";
const DEFAULT_THRESHOLDS: Thresholds = { low: 0, medium: 0, high: 0 };
const NO_FLAGS: AccountFlags = {
  authRequired: false,
  authRevocable: false,
  authImmutable: false,
  authClawbackEnabled: false,
};

export class AccountError extends Error {
  override readonly name = "AccountError";
}

/** A Stellar account id derived from a phrase: stable across runs, valid StrKey, no secret kept. */
export function deterministicAccountId(phrase: string): string {
  return Keypair.fromRawEd25519Seed(hash(Buffer.from(phrase))).publicKey();
}

function checkedAccountId(id: string): string {
  if (!StrKey.isValidEd25519PublicKey(id)) throw new AccountError(`not a valid G... account id: ${id}`);
  return id;
}

/** A ledger's first sequence number for a new account: the ledger in the high 32 bits. */
function startingSequence(ledger: number): bigint {
  return BigInt(ledger) << 32n;
}

function sortedByKey(signers: Signer[]): void {
  signers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The accounts of the simulated ledger, keyed by G... id. */
export class SimulatedAccounts {
  /** What the accounts did: the per-account streams Horizon serves (payments, transactions, operations). */
  readonly history = new AccountHistory();
  readonly #accounts = new Map<string, SimulatedAccount>();
  readonly #offers: Offer[] = [];
  readonly #claimableBalances: ClaimableBalance[] = [];
  #nextOfferId = 1_000_000n;

  /** Adds an account as it stands at `at`; throws AccountError for a bad or duplicate id. */
  add(spec: AccountSpec, at: LedgerPoint): SimulatedAccount {
    const id = checkedAccountId(spec.id);
    if (this.#accounts.has(id)) throw new AccountError(`account ${id} already exists`);
    const signers: Signer[] = [
      { key: id, type: MASTER_KEY_TYPE, weight: spec.masterWeight ?? 1 },
      ...(spec.signers ?? []).map((signer) => ({
        key: signer.key,
        type: signer.type ?? MASTER_KEY_TYPE,
        weight: signer.weight,
      })),
    ];
    const account: SimulatedAccount = {
      id,
      sequence: spec.sequence ?? startingSequence(at.ledger),
      balance: spec.balance,
      nativeBuyingLiabilities: spec.nativeBuyingLiabilities ?? 0n,
      nativeSellingLiabilities: spec.nativeSellingLiabilities ?? 0n,
      trustlines: (spec.trustlines ?? []).map((line) => ({
        asset: line.asset,
        balance: line.balance,
        limit: line.limit ?? MAX_TRUSTLINE_LIMIT,
        buyingLiabilities: line.buyingLiabilities ?? 0n,
        sellingLiabilities: line.sellingLiabilities ?? 0n,
        authorized: line.authorized ?? true,
        ...(line.sponsor === undefined ? {} : { sponsor: line.sponsor }),
        lastModified: at,
      })),
      poolShares: (spec.poolShares ?? []).map((share) => ({
        poolId: share.poolId,
        balance: share.balance,
        limit: share.limit ?? MAX_TRUSTLINE_LIMIT,
        ...(share.sponsor === undefined ? {} : { sponsor: share.sponsor }),
        lastModified: at,
      })),
      signers,
      thresholds: spec.thresholds ?? DEFAULT_THRESHOLDS,
      flags: { ...NO_FLAGS, ...spec.flags },
      homeDomain: spec.homeDomain ?? "",
      data: { ...spec.data },
      numSponsoring: spec.numSponsoring ?? 0,
      numSponsored: spec.numSponsored ?? 0,
      ...(spec.sponsor === undefined ? {} : { sponsor: spec.sponsor }),
      lastModified: at,
    };
    this.#accounts.set(id, account);
    for (const offer of spec.offers ?? []) this.addOffer(id, offer, at);
    return account;
  }

  get(id: string): SimulatedAccount | undefined {
    return this.#accounts.get(id);
  }

  ids(): string[] {
    return [...this.#accounts.keys()];
  }

  /** Subentries as the ledger counts them: trustlines (pool shares count twice), offers, extra signers, data. */
  subentries(id: string): number {
    const account = this.#require(id);
    return (
      account.trustlines.length +
      2 * account.poolShares.length +
      this.offersOf(id).length +
      account.signers.filter((signer) => signer.key !== id).length +
      Object.keys(account.data).length
    );
  }

  /** A transaction from the account at `at`: the sequence moves to `to` (BumpSequence) or by one. */
  bumpSequence(id: string, at: LedgerPoint, to?: bigint): bigint {
    const account = this.#require(id);
    account.sequence = to !== undefined && to > account.sequence ? to : account.sequence + 1n;
    account.sequencePoint = at;
    account.lastModified = at;
    return account.sequence;
  }

  /** Takes a transaction fee from the native balance; throws AccountError when it cannot be paid. */
  chargeFee(id: string, stroops: bigint, at: LedgerPoint): void {
    const account = this.#require(id);
    if (stroops < 0n) throw new AccountError(`a fee cannot be negative: ${stroops}`);
    if (account.balance - account.nativeSellingLiabilities < stroops) {
      throw new AccountError(`account ${id} cannot pay a fee of ${stroops} stroops`);
    }
    account.balance -= stroops;
    account.lastModified = at;
  }

  /** Sets the native balance, or a trustline's or pool share's (`CODE:ISSUER`, `pool:<id>`). */
  setBalance(id: string, asset: string, stroops: bigint, at: LedgerPoint): void {
    const account = this.#require(id);
    if (asset === "native") {
      account.balance = stroops;
      account.lastModified = at;
      return;
    }
    const holding = asset.startsWith("pool:")
      ? account.poolShares.find((share) => `pool:${share.poolId}` === asset)
      : account.trustlines.find((line) => line.asset === asset);
    if (holding === undefined) throw new AccountError(`account ${id} holds no ${asset}`);
    holding.balance = stroops;
    holding.lastModified = at;
  }

  /** The issuer authorises or revokes a trustline (the holder's sequence does not move). */
  setAuthorized(id: string, asset: string, authorized: boolean, at: LedgerPoint): void {
    const line = this.#require(id).trustlines.find((candidate) => candidate.asset === asset);
    if (line === undefined) throw new AccountError(`account ${id} has no trustline to ${asset}`);
    line.authorized = authorized;
    line.lastModified = at;
  }

  /** Adds, reweights or (weight 0) removes a signer. */
  setSigner(id: string, signer: SignerSpec, at: LedgerPoint): void {
    const account = this.#require(id);
    const index = account.signers.findIndex((candidate) => candidate.key === signer.key);
    if (index >= 0 && signer.weight === 0 && signer.key !== id) account.signers.splice(index, 1);
    else if (index >= 0) account.signers[index]!.weight = signer.weight;
    else if (signer.weight > 0)
      account.signers.push({ key: signer.key, type: signer.type ?? MASTER_KEY_TYPE, weight: signer.weight });
    // Horizon lists the master key first, then the other signers by key.
    const [master, ...others] = account.signers;
    sortedByKey(others);
    account.signers.splice(0, account.signers.length, ...(master ? [master] : []), ...others);
    account.lastModified = at;
  }

  setThresholds(id: string, thresholds: Thresholds, at: LedgerPoint): void {
    const account = this.#require(id);
    account.thresholds = thresholds;
    account.lastModified = at;
  }

  addOffer(seller: string, spec: OfferSpec, at: LedgerPoint): Offer {
    this.#require(seller);
    const offer: Offer = { id: this.#nextOfferId++, seller, ...spec, lastModified: at };
    this.#offers.push(offer);
    return offer;
  }

  /** Every open offer of every account, by id. */
  get offers(): readonly Offer[] {
    return this.#offers;
  }

  /** The account's open offers, by id. */
  offersOf(seller: string): Offer[] {
    return this.#offers.filter((offer) => offer.seller === seller);
  }

  addClaimableBalance(balance: Omit<ClaimableBalance, "id">): ClaimableBalance {
    const seed = `claimable ${this.#claimableBalances.length} ${balance.sponsor}`;
    const id = `00000000${Buffer.from(hash(Buffer.from(seed))).toString("hex")}`;
    const created = { id, ...balance };
    this.#claimableBalances.push(created);
    return created;
  }

  /** Balances the account can claim, by paging token (ledger, then id), as Horizon orders them. */
  claimableBy(claimant: string): ClaimableBalance[] {
    return this.#claimableBalances
      .filter((balance) => balance.claimants.includes(claimant))
      .sort((a, b) => a.lastModified.ledger - b.lastModified.ledger || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** AccountMerge: the source leaves the ledger (its offers with it) and its lumens go to `into`. */
  merge(id: string, into: string, at: LedgerPoint): void {
    const source = this.#require(id);
    const destination = this.#require(into);
    this.bumpSequence(id, at);
    destination.balance += source.balance;
    destination.lastModified = at;
    for (let index = this.#offers.length - 1; index >= 0; index -= 1) {
      if (this.#offers[index]!.seller === id) this.#offers.splice(index, 1);
    }
    this.#accounts.delete(id);
  }

  #require(id: string): SimulatedAccount {
    const account = this.#accounts.get(id);
    if (account === undefined) throw new AccountError(`no account ${id}`);
    return account;
  }
}
