import { HORIZON_ACCOUNT_METRICS, type AccountMetricSet } from "../catalog/metrics.js";
import { amountStroops, stroopsToUnits, type Account } from "../client/account-schemas.js";
import type { AccountLookup, AccountsClient } from "../client/accounts.js";
import { PollError } from "../client/errors.js";
import type { WatchedAccount } from "../config/accounts.js";
import type { NetworkView } from "../runtime/network.js";
import type { Collector, PollContext } from "./collector.js";
import { LABEL_TEXT_BOUNDS, labelText } from "./label-text.js";
import type { CollectorSamples, Labels, Sample } from "../exposition/samples.js";

/** Open offers and claimable balances counted per account at most (five pages). */
export const ACCOUNT_LIST_CAP = 1000;

/**
 * What the samples read of an account: Horizon's AccountResponse, or the account's ledger entries
 * read over Stellar RPC, which carry no count of data entries.
 */
export type AccountFacts = Omit<Account, "sequence" | "dataEntries"> & { readonly dataEntries?: number };

/** What the samples show of a watched account's configuration, on either kind of target. */
type SampledAccount = Pick<WatchedAccount, "name" | "id" | "lowBalance" | "cold">;

/** What one poll learnt about one watched account. */
export type AccountObservation =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly account: AccountFacts;
      /** Whether each configured trustline exists, where they are asked for one by one (Stellar RPC). */
      readonly trustlines?: ReadonlyMap<string, boolean>;
      /** Open offers, when watched. */
      readonly offers?: number;
      /** Claimable balances: how many, and the exact sum per asset in stroops. */
      readonly claimable?: { readonly count: number; readonly stroopsByAsset: ReadonlyMap<string, bigint> };
    };

/** The account's lumens reserve in XLM, from the latest ledger's base reserve (one rounding). */
export function minimumBalance(account: AccountFacts, baseReserveStroops: number): number {
  const entries = 2 + account.subentryCount + account.numSponsoring - account.numSponsored;
  return stroopsToUnits(BigInt(entries) * BigInt(baseReserveStroops));
}

/** What makes a signer change: the signers, their weights and the thresholds, in a canonical order. */
export function signerSignature(account: AccountFacts): string {
  const signers = account.signers.map((signer) => `${signer.type}:${signer.key}:${signer.weight}`).sort();
  const { low, medium, high } = account.thresholds;
  return JSON.stringify([signers, low, medium, high]);
}

/** Per account, the polls at which its signers, their weights or its thresholds differed from its previous successful read. */
export class SignerChanges {
  private readonly changes = new Map<string, number>();
  /** Each account's signers and thresholds at its previous successful read. */
  private readonly signatures = new Map<string, string>();

  get counts(): ReadonlyMap<string, number> {
    return this.changes;
  }

  /** Compares each existing account with its previous successful read; the first read only remembers. */
  note(observations: ReadonlyMap<string, AccountObservation>): void {
    for (const [name, observation] of observations) {
      if (!observation.exists) continue;
      const signature = signerSignature(observation.account);
      const previous = this.signatures.get(name);
      if (previous !== undefined && previous !== signature) this.changes.set(name, (this.changes.get(name) ?? 0) + 1);
      this.signatures.set(name, signature);
    }
  }
}

function* existingAccountSamples(
  metrics: AccountMetricSet,
  watched: SampledAccount,
  observation: Extract<AccountObservation, { exists: true }>,
  baseReserveStroops: number | undefined,
): Generator<Sample> {
  const { account } = observation;
  // Generic, so each sample's labels keep their names and the compiler checks them against the catalog.
  const of = <Extra extends Labels = Record<never, string>>(labels?: Extra) => ({ account: watched.name, ...labels }) as { account: string } & Extra;
  yield {
    metric: metrics.accountInfo,
    labels: of({ account_id: account.id, home_domain: labelText(account.homeDomain, LABEL_TEXT_BOUNDS.homeDomain), cold: String(watched.cold) }),
    value: 1,
  };
  for (const balance of account.balances) {
    const asset = { asset: balance.asset };
    yield { metric: metrics.accountBalance, labels: of(asset), value: balance.balance };
    if (balance.buyingLiabilities !== undefined) {
      yield { metric: metrics.accountBuyingLiabilities, labels: of(asset), value: balance.buyingLiabilities };
    }
    if (balance.sellingLiabilities !== undefined) {
      yield { metric: metrics.accountSellingLiabilities, labels: of(asset), value: balance.sellingLiabilities };
    }
    if (balance.limit !== undefined) yield { metric: metrics.accountTrustlineLimit, labels: of(asset), value: balance.limit };
    if (balance.authorized !== undefined) {
      yield { metric: metrics.accountTrustlineAuthorized, labels: of(asset), value: balance.authorized ? 1 : 0 };
    }
  }
  if (baseReserveStroops !== undefined) {
    yield { metric: metrics.accountMinimumBalance, labels: of(), value: minimumBalance(account, baseReserveStroops) };
  }
  yield { metric: metrics.accountSubentries, labels: of(), value: account.subentryCount };
  yield { metric: metrics.accountSponsoring, labels: of(), value: account.numSponsoring };
  yield { metric: metrics.accountSponsored, labels: of(), value: account.numSponsored };
  if ("accountDataEntries" in metrics && account.dataEntries !== undefined) {
    yield { metric: metrics.accountDataEntries, labels: of(), value: account.dataEntries };
  }
  for (const [level, value] of Object.entries(account.thresholds)) {
    yield { metric: metrics.accountThreshold, labels: of({ level }), value };
  }
  for (const signer of account.signers) {
    yield { metric: metrics.accountSignerWeight, labels: of({ signer: signer.key, type: signer.type }), value: signer.weight };
  }
  for (const [flag, set] of Object.entries(account.flags)) {
    yield { metric: metrics.accountFlag, labels: of({ flag }), value: set ? 1 : 0 };
  }
  if (account.sequenceLedger !== undefined) {
    yield { metric: metrics.accountSequenceLedger, labels: of(), value: account.sequenceLedger };
  }
  if (account.sequenceTime !== undefined) {
    yield { metric: metrics.accountSequenceTimestamp, labels: of(), value: account.sequenceTime };
  }
  for (const [asset, value] of Object.entries(watched.lowBalance)) {
    yield { metric: metrics.accountBalanceLowWatermark, labels: of({ asset }), value };
  }
  if ("accountTrustlineExists" in metrics) {
    for (const [asset, exists] of observation.trustlines ?? []) {
      yield { metric: metrics.accountTrustlineExists, labels: of({ asset }), value: exists ? 1 : 0 };
    }
  }
  if (!("accountOffers" in metrics)) return;
  if (observation.offers !== undefined) yield { metric: metrics.accountOffers, labels: of(), value: observation.offers };
  if (observation.claimable !== undefined) {
    yield { metric: metrics.accountClaimableBalances, labels: of(), value: observation.claimable.count };
    for (const [asset, stroops] of observation.claimable.stroopsByAsset) {
      yield { metric: metrics.accountClaimableAmount, labels: of({ asset }), value: stroopsToUnits(stroops) };
    }
  }
}

function* allAccountSamples(
  metrics: AccountMetricSet,
  watched: readonly SampledAccount[],
  observations: ReadonlyMap<string, AccountObservation>,
  baseReserveStroops: number | undefined,
): Generator<Sample> {
  for (const account of watched) {
    const observation = observations.get(account.name);
    if (observation === undefined) continue;
    yield { metric: metrics.accountExists, labels: { account: account.name }, value: observation.exists ? 1 : 0 };
    if (observation.exists) yield* existingAccountSamples(metrics, account, observation, baseReserveStroops);
  }
}

/**
 * Samples of the watched accounts. A missing account shows only `exists` 0; the signer change
 * counters persist through failed polls and missing accounts.
 */
export function accountSamples(
  metrics: AccountMetricSet,
  watched: readonly SampledAccount[],
  observations: ReadonlyMap<string, AccountObservation> | undefined,
  signerChanges: ReadonlyMap<string, number>,
  baseReserveStroops: number | undefined,
): CollectorSamples {
  const persistent: Sample[] = watched.map((account) => ({
    metric: metrics.accountSignerChangesTotal,
    labels: { account: account.name },
    value: signerChanges.get(account.name) ?? 0,
  }));
  return { live: observations === undefined ? [] : [...allAccountSamples(metrics, watched, observations, baseReserveStroops)], persistent };
}

/** Polls every watched account of a target; one failed request fails the poll, so no account is shown half-read. */
export class AccountsCollector implements Collector {
  readonly endpoint = "accounts";
  private observations: Map<string, AccountObservation> | undefined;
  private readonly signerChanges = new SignerChanges();

  constructor(
    private readonly client: AccountsClient,
    private readonly watched: readonly WatchedAccount[],
    /** The target's network view: minimum balances follow the latest ledger's base reserve. */
    private readonly network: NetworkView,
    /** Where no ledgers poll runs (a shard other than 0): read the latest ledger's base reserve each poll. */
    private readonly readsBaseReserve = false,
  ) {}

  async poll(context: PollContext): Promise<void> {
    if (this.readsBaseReserve) this.network.learn({ baseReserveStroops: await this.client.latestBaseReserve(context.signal) });
    const observations = new Map<string, AccountObservation>();
    for (const watched of this.watched) {
      const observation = await this.observe(watched, context);
      if (observation !== undefined) observations.set(watched.name, observation);
    }
    this.signerChanges.note(observations);
    this.observations = observations;
  }

  samples(): CollectorSamples {
    return accountSamples(HORIZON_ACCOUNT_METRICS, this.watched, this.observations, this.signerChanges.counts, this.network.current.baseReserveStroops);
  }

  /** What one poll learnt of the account; undefined when Horizon's answer was invalid (counted, and the account left out). */
  private async observe(watched: WatchedAccount, { signal, invalidRecords }: PollContext): Promise<AccountObservation | undefined> {
    const lookup = await this.lookUp(watched, signal);
    if (lookup === undefined) {
      invalidRecords(1);
      return undefined;
    }
    if (lookup.status === "missing") return { exists: false };
    let offers: number | undefined;
    if (watched.offers) {
      const list = await this.client.offers(watched.id, ACCOUNT_LIST_CAP, signal);
      offers = list.records.length;
      invalidRecords(list.invalidRecords);
    }
    let claimable: { count: number; stroopsByAsset: Map<string, bigint> } | undefined;
    if (watched.claimableBalances) {
      const list = await this.client.claimableBalances(watched.id, ACCOUNT_LIST_CAP, signal);
      const stroopsByAsset = new Map<string, bigint>();
      for (const balance of list.records) {
        stroopsByAsset.set(balance.asset, (stroopsByAsset.get(balance.asset) ?? 0n) + amountStroops(balance.amount));
      }
      claimable = { count: list.records.length, stroopsByAsset };
      invalidRecords(list.invalidRecords);
    }
    return {
      exists: true,
      account: lookup.account,
      ...(offers === undefined ? {} : { offers }),
      ...(claimable === undefined ? {} : { claimable }),
    };
  }

  /**
   * The account as Horizon answers; undefined when the answer fails the schema (a value out of its
   * range, a balance or signer listed twice), which leaves this account out, not the others.
   */
  private async lookUp(watched: WatchedAccount, signal: AbortSignal): Promise<AccountLookup | undefined> {
    try {
      return await this.client.account(watched.id, signal);
    } catch (error) {
      if (error instanceof PollError && error.reason === "schema") return undefined;
      throw error;
    }
  }
}
