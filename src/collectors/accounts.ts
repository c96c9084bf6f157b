import { HORIZON_ACCOUNT_METRICS, type AccountMetricSet } from "../catalog/metrics.js";
import { amountStroops, stroopsToUnits, type Account } from "../client/account-schemas.js";
import type { AccountLookup, AccountsClient } from "../client/accounts.js";
import { PollError } from "../client/errors.js";
import type { WatchedAccount } from "../config/accounts.js";
import type { NetworkView } from "../runtime/network.js";
import type { Collector, PollContext } from "./collector.js";
import { LABEL_TEXT_BOUNDS, labelText } from "./label-text.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";

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
  /** Each account's signers and thresholds at its previous successful read, and the facts they were read from. */
  private readonly signatures = new Map<string, { readonly account: AccountFacts; readonly signature: string }>();

  get counts(): ReadonlyMap<string, number> {
    return this.changes;
  }

  /** Compares each existing account with its previous successful read; the first read only remembers. */
  note(observations: ReadonlyMap<string, AccountObservation>): void {
    for (const [name, observation] of observations) {
      if (!observation.exists) continue;
      const previous = this.signatures.get(name);
      // The same facts as last time (a Stellar RPC poll keeps them while the entries are unchanged) have the same signers.
      if (previous?.account === observation.account) continue;
      const signature = signerSignature(observation.account);
      if (previous !== undefined && previous.signature !== signature) this.changes.set(name, (this.changes.get(name) ?? 0) + 1);
      this.signatures.set(name, { account: observation.account, signature });
    }
  }
}

/** Appends the samples of an account that exists to `samples`. */
function addExistingAccountSamples(
  samples: Sample[],
  metrics: AccountMetricSet,
  watched: SampledAccount,
  observation: Extract<AccountObservation, { exists: true }>,
  baseReserveStroops: number | undefined,
): void {
  const { account } = observation;
  // One labels object per label set, shared by the families that carry it: with ten thousand
  // accounts, their samples are most of what the exporter holds.
  const accountOnly = { account: watched.name };
  const perAsset = new Map<string, { account: string; asset: string }>();
  const ofAsset = (asset: string) => {
    let labels = perAsset.get(asset);
    if (labels === undefined) perAsset.set(asset, (labels = { account: watched.name, asset }));
    return labels;
  };
  samples.push({
    metric: metrics.accountInfo,
    labels: { account: watched.name, account_id: account.id, home_domain: labelText(account.homeDomain, LABEL_TEXT_BOUNDS.homeDomain), cold: String(watched.cold) },
    value: 1,
  });
  for (const balance of account.balances) {
    const labels = ofAsset(balance.asset);
    samples.push({ metric: metrics.accountBalance, labels, value: balance.balance });
    if (balance.buyingLiabilities !== undefined) samples.push({ metric: metrics.accountBuyingLiabilities, labels, value: balance.buyingLiabilities });
    if (balance.sellingLiabilities !== undefined) samples.push({ metric: metrics.accountSellingLiabilities, labels, value: balance.sellingLiabilities });
    if (balance.limit !== undefined) samples.push({ metric: metrics.accountTrustlineLimit, labels, value: balance.limit });
    if (balance.authorized !== undefined) samples.push({ metric: metrics.accountTrustlineAuthorized, labels, value: balance.authorized ? 1 : 0 });
  }
  if (baseReserveStroops !== undefined) {
    samples.push({ metric: metrics.accountMinimumBalance, labels: accountOnly, value: minimumBalance(account, baseReserveStroops) });
  }
  samples.push({ metric: metrics.accountSubentries, labels: accountOnly, value: account.subentryCount });
  samples.push({ metric: metrics.accountSponsoring, labels: accountOnly, value: account.numSponsoring });
  samples.push({ metric: metrics.accountSponsored, labels: accountOnly, value: account.numSponsored });
  if ("accountDataEntries" in metrics && account.dataEntries !== undefined) {
    samples.push({ metric: metrics.accountDataEntries, labels: accountOnly, value: account.dataEntries });
  }
  for (const [level, value] of Object.entries(account.thresholds)) {
    samples.push({ metric: metrics.accountThreshold, labels: { account: watched.name, level }, value });
  }
  for (const signer of account.signers) {
    samples.push({ metric: metrics.accountSignerWeight, labels: { account: watched.name, signer: signer.key, type: signer.type }, value: signer.weight });
  }
  for (const [flag, set] of Object.entries(account.flags)) {
    samples.push({ metric: metrics.accountFlag, labels: { account: watched.name, flag }, value: set ? 1 : 0 });
  }
  if (account.sequenceLedger !== undefined) {
    samples.push({ metric: metrics.accountSequenceLedger, labels: accountOnly, value: account.sequenceLedger });
  }
  if (account.sequenceTime !== undefined) {
    samples.push({ metric: metrics.accountSequenceTimestamp, labels: accountOnly, value: account.sequenceTime });
  }
  for (const [asset, value] of Object.entries(watched.lowBalance)) {
    samples.push({ metric: metrics.accountBalanceLowWatermark, labels: ofAsset(asset), value });
  }
  if ("accountTrustlineExists" in metrics) {
    for (const [asset, exists] of observation.trustlines ?? []) {
      samples.push({ metric: metrics.accountTrustlineExists, labels: ofAsset(asset), value: exists ? 1 : 0 });
    }
  }
  if (!("accountOffers" in metrics)) return;
  if (observation.offers !== undefined) samples.push({ metric: metrics.accountOffers, labels: accountOnly, value: observation.offers });
  if (observation.claimable !== undefined) {
    samples.push({ metric: metrics.accountClaimableBalances, labels: accountOnly, value: observation.claimable.count });
    for (const [asset, stroops] of observation.claimable.stroopsByAsset) {
      samples.push({ metric: metrics.accountClaimableAmount, labels: ofAsset(asset), value: stroopsToUnits(stroops) });
    }
  }
}

/** One account's live samples: `exists`, and when it exists, everything its observation says. */
function samplesOfAccount(metrics: AccountMetricSet, watched: SampledAccount, observation: AccountObservation, baseReserveStroops: number | undefined): Sample[] {
  const samples: Sample[] = [{ metric: metrics.accountExists, labels: { account: watched.name }, value: observation.exists ? 1 : 0 }];
  if (observation.exists) addExistingAccountSamples(samples, metrics, watched, observation, baseReserveStroops);
  return samples;
}

/** An account's samples, and what they were built from. */
interface BuiltSamples {
  readonly observation: AccountObservation;
  readonly baseReserveStroops: number | undefined;
  readonly samples: readonly Sample[];
}

/**
 * The samples of a target's watched accounts. An account whose observation is the very object of
 * the last publication (a Stellar RPC poll keeps it while the account's entries are unchanged),
 * under the same base reserve, gives the same sample objects again, which the store renders by
 * copying their bytes: ten thousand unchanged accounts cost neither new samples nor formatting.
 * A missing account shows only `exists` 0; the signer change counters persist through failed
 * polls and missing accounts.
 */
export class AccountSamples {
  private built = new Map<string, BuiltSamples>();
  /** Each account's signer change counter, and its sample. */
  private counters = new Map<string, { readonly value: number; readonly sample: Sample }>();

  constructor(private readonly metrics: AccountMetricSet) {}

  of(
    watched: readonly SampledAccount[],
    observations: ReadonlyMap<string, AccountObservation> | undefined,
    signerChanges: ReadonlyMap<string, number>,
    baseReserveStroops: number | undefined,
  ): CollectorSamples {
    const counters = new Map<string, { readonly value: number; readonly sample: Sample }>();
    const persistent: Sample[] = watched.map((account) => {
      const value = signerChanges.get(account.name) ?? 0;
      let counter = this.counters.get(account.name);
      if (counter?.value !== value) counter = { value, sample: { metric: this.metrics.accountSignerChangesTotal, labels: { account: account.name }, value } };
      counters.set(account.name, counter);
      return counter.sample;
    });
    this.counters = counters;
    const built = new Map<string, BuiltSamples>();
    const live: Sample[] = [];
    for (const account of watched) {
      const observation = observations?.get(account.name);
      if (observation === undefined) continue;
      let entry = this.built.get(account.name);
      if (entry === undefined || entry.observation !== observation || entry.baseReserveStroops !== baseReserveStroops) {
        entry = { observation, baseReserveStroops, samples: samplesOfAccount(this.metrics, account, observation, baseReserveStroops) };
      }
      built.set(account.name, entry);
      for (const sample of entry.samples) live.push(sample);
    }
    this.built = built;
    return { live, persistent };
  }
}

/** Polls every watched account of a target; one failed request fails the poll, so no account is shown half-read. */
export class AccountsCollector implements Collector {
  readonly endpoint = "accounts";
  private observations: Map<string, AccountObservation> | undefined;
  private readonly signerChanges = new SignerChanges();
  private readonly accountSamples = new AccountSamples(HORIZON_ACCOUNT_METRICS);

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
    return this.accountSamples.of(this.watched, this.observations, this.signerChanges.counts, this.network.current.baseReserveStroops);
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
