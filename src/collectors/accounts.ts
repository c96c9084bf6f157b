import { HORIZON_ACCOUNT_METRICS, type AccountMetricSet, type MetricDefinition } from "../catalog/metrics.js";
import { amountStroops, stroopsToUnits, type AccountFacts } from "../client/account-schemas.js";
import type { AccountLookup } from "../client/accounts.js";
import { PollError } from "../client/errors.js";
import type { WatchedAccount } from "../config/accounts.js";
import type { NetworkView } from "../job/network.js";
import type { HorizonJobParts, JobTiming, PollContext, PollJob } from "../job/job.js";
import { AccountsClient } from "../client/accounts.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import { LABEL_TEXT_BOUNDS, labelText } from "./label-text.js";
import type { CollectorSamples, Sample, SeriesGroup } from "../exposition/samples.js";

/** Open offers and claimable balances counted per account at most (five pages). */
export const ACCOUNT_LIST_CAP = 1000;

/** What the samples show of a watched account's configuration, on either kind of target. */
type SampledAccount = Pick<WatchedAccount, "name" | "id" | "lowBalance" | "cold">;

/** What one poll learnt about one watched account. */
export type AccountObservation =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly account: AccountFacts;
      /** Whether each configured trustline exists, where they are asked for one by one (Stellar RPC), by asset. */
      readonly trustlines?: readonly (readonly [asset: string, exists: boolean])[];
      /** Open offers, when watched. */
      readonly offers?: number;
      /** Claimable balances: how many, and the exact sum per asset in stroops. */
      readonly claimable?: { readonly count: number; readonly stroopsByAsset: ReadonlyMap<string, bigint> };
    };

/**
 * What a poll learnt of each watched account, in the order of the watch list: undefined for one
 * whose answer was invalid (left out). A list, not a map by name: one is made every poll.
 */
export type AccountObservations = readonly (AccountObservation | undefined)[];

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

/**
 * Per account, the polls at which its signers, their weights or its thresholds differed from its
 * previous successful read.
 */
export class SignerChanges {
  private readonly changes = new Map<string, number>();
  /**
   * Each account's facts at its previous successful read, whose signers and thresholds the next
   * read's are compared with: the facts, not their signature, which would be one more string per
   * account held between polls (the facts are held anyway, as the account's observation).
   */
  private readonly previous = new Map<string, AccountFacts>();

  get counts(): ReadonlyMap<string, number> {
    return this.changes;
  }

  /** Compares each existing account with its previous successful read; the first read only remembers. */
  note(watched: readonly SampledAccount[], observations: AccountObservations): void {
    for (const [index, { name }] of watched.entries()) {
      const observation = observations[index];
      if (observation?.exists !== true) continue;
      const previous = this.previous.get(name);
      // The same facts as last time (a Stellar RPC poll keeps them while the entries are unchanged)
      // have the same signers.
      if (previous === observation.account) continue;
      if (previous !== undefined && signerSignature(previous) !== signerSignature(observation.account))
        this.changes.set(name, (this.changes.get(name) ?? 0) + 1);
      this.previous.set(name, observation.account);
    }
  }
}

/**
 * One watched account's live series, as a group the store holds instead of a sample per series:
 * `exists`, and when the account exists, everything its observation says. Each family's samples
 * are made only when asked for.
 */
class AccountGroup implements SeriesGroup {
  constructor(
    private readonly metrics: AccountMetricSet,
    /** The kind's families, one list shared by its groups. */
    readonly families: readonly MetricDefinition[],
    readonly watched: SampledAccount,
    readonly observation: AccountObservation,
    readonly baseReserveStroops: number | undefined,
  ) {}

  samplesOf(metric: MetricDefinition): Sample[] {
    const { metrics, watched, observation } = this;
    const account = { account: watched.name };
    if (metric === metrics.accountExists)
      return [{ metric: metrics.accountExists, labels: account, value: observation.exists ? 1 : 0 }];
    if (!observation.exists) return [];
    const facts = observation.account;
    const samples: Sample[] = [];
    switch (metric) {
      case metrics.accountInfo: {
        const homeDomain = labelText(facts.homeDomain, LABEL_TEXT_BOUNDS.homeDomain);
        samples.push({
          metric: metrics.accountInfo,
          labels: { account: watched.name, account_id: facts.id, home_domain: homeDomain, cold: String(watched.cold) },
          value: 1,
        });
        break;
      }
      case metrics.accountMinimumBalance:
        if (this.baseReserveStroops !== undefined) {
          samples.push({
            metric: metrics.accountMinimumBalance,
            labels: account,
            value: minimumBalance(facts, this.baseReserveStroops),
          });
        }
        break;
      case metrics.accountSubentries:
        samples.push({ metric: metrics.accountSubentries, labels: account, value: facts.subentryCount });
        break;
      case metrics.accountSponsoring:
        samples.push({ metric: metrics.accountSponsoring, labels: account, value: facts.numSponsoring });
        break;
      case metrics.accountSponsored:
        samples.push({ metric: metrics.accountSponsored, labels: account, value: facts.numSponsored });
        break;
      case metrics.accountThreshold:
        for (const [level, value] of Object.entries(facts.thresholds))
          samples.push({ metric: metrics.accountThreshold, labels: { account: watched.name, level }, value });
        break;
      case metrics.accountSignerWeight:
        for (const signer of facts.signers) {
          samples.push({
            metric: metrics.accountSignerWeight,
            labels: { account: watched.name, signer: signer.key, type: signer.type },
            value: signer.weight,
          });
        }
        break;
      case metrics.accountFlag:
        for (const [flag, set] of Object.entries(facts.flags))
          samples.push({ metric: metrics.accountFlag, labels: { account: watched.name, flag }, value: set ? 1 : 0 });
        break;
      case metrics.accountSequenceLedger:
        if (facts.sequenceLedger !== undefined)
          samples.push({ metric: metrics.accountSequenceLedger, labels: account, value: facts.sequenceLedger });
        break;
      case metrics.accountSequenceTimestamp:
        if (facts.sequenceTime !== undefined)
          samples.push({ metric: metrics.accountSequenceTimestamp, labels: account, value: facts.sequenceTime });
        break;
      default:
        if (!this.addBalanceSamples(samples, metric, facts)) this.addKindSamples(samples, metric, observation);
    }
    return samples;
  }

  /** The families with a series per asset; false when `metric` is none of them. */
  private addBalanceSamples(samples: Sample[], metric: MetricDefinition, facts: AccountFacts): boolean {
    const { metrics, watched } = this;
    const ofAsset = (asset: string) => ({ account: watched.name, asset });
    switch (metric) {
      case metrics.accountBalance:
        for (const balance of facts.balances)
          samples.push({ metric: metrics.accountBalance, labels: ofAsset(balance.asset), value: balance.balance });
        return true;
      case metrics.accountBuyingLiabilities:
        for (const { asset, buyingLiabilities } of facts.balances) {
          if (buyingLiabilities !== undefined)
            samples.push({
              metric: metrics.accountBuyingLiabilities,
              labels: ofAsset(asset),
              value: buyingLiabilities,
            });
        }
        return true;
      case metrics.accountSellingLiabilities:
        for (const { asset, sellingLiabilities } of facts.balances) {
          if (sellingLiabilities !== undefined)
            samples.push({
              metric: metrics.accountSellingLiabilities,
              labels: ofAsset(asset),
              value: sellingLiabilities,
            });
        }
        return true;
      case metrics.accountTrustlineLimit:
        for (const { asset, limit } of facts.balances)
          if (limit !== undefined)
            samples.push({ metric: metrics.accountTrustlineLimit, labels: ofAsset(asset), value: limit });
        return true;
      case metrics.accountTrustlineAuthorized:
        for (const { asset, authorized } of facts.balances) {
          if (authorized !== undefined)
            samples.push({
              metric: metrics.accountTrustlineAuthorized,
              labels: ofAsset(asset),
              value: authorized ? 1 : 0,
            });
        }
        return true;
      case metrics.accountBalanceLowWatermark:
        for (const [asset, value] of Object.entries(watched.lowBalance))
          samples.push({ metric: metrics.accountBalanceLowWatermark, labels: ofAsset(asset), value });
        return true;
      default:
        return false;
    }
  }

  /**
   * The families only one kind has: Horizon's data entries, offers and claimable balances; Stellar
   * RPC's trustline existence.
   */
  private addKindSamples(
    samples: Sample[],
    metric: MetricDefinition,
    observation: Extract<AccountObservation, { exists: true }>,
  ): void {
    const { metrics, watched } = this;
    const account = { account: watched.name };
    if ("accountTrustlineExists" in metrics) {
      if (metric !== metrics.accountTrustlineExists) return;
      for (const [asset, exists] of observation.trustlines ?? []) {
        samples.push({
          metric: metrics.accountTrustlineExists,
          labels: { account: watched.name, asset },
          value: exists ? 1 : 0,
        });
      }
      return;
    }
    if (metric === metrics.accountDataEntries && observation.account.dataEntries !== undefined) {
      samples.push({ metric: metrics.accountDataEntries, labels: account, value: observation.account.dataEntries });
    } else if (metric === metrics.accountOffers && observation.offers !== undefined) {
      samples.push({ metric: metrics.accountOffers, labels: account, value: observation.offers });
    } else if (metric === metrics.accountClaimableBalances && observation.claimable !== undefined) {
      samples.push({ metric: metrics.accountClaimableBalances, labels: account, value: observation.claimable.count });
    } else if (metric === metrics.accountClaimableAmount && observation.claimable !== undefined) {
      for (const [asset, stroops] of observation.claimable.stroopsByAsset) {
        samples.push({
          metric: metrics.accountClaimableAmount,
          labels: { account: watched.name, asset },
          value: stroopsToUnits(stroops),
        });
      }
    }
  }
}

/**
 * The series of a target's watched accounts: a group per account, whose samples the store makes
 * only to render it. An account whose observation is the very object of the last publication (a
 * Stellar RPC poll keeps it while the account's entries are unchanged), under the same base
 * reserve, gives the same group again, which the store renders by copying its bytes: ten thousand
 * unchanged accounts cost neither new objects nor formatting. A missing account shows only
 * `exists` 0; the signer change counters persist through failed polls and missing accounts.
 */
export class AccountSamples {
  /** Each account's group as last published, in the order of the watch list. */
  private readonly built: (AccountGroup | undefined)[] = [];
  /** Each account's signer change counter, and its sample, in the order of the watch list. */
  private readonly counters: (
    | { readonly account: SampledAccount; readonly value: number; readonly sample: Sample }
    | undefined
  )[] = [];

  /** The families a group has: every account family of the kind but the signer change counter, which persists apart. */
  private readonly families: readonly MetricDefinition[];
  /**
   * Bumped whenever a counter, a group or the list of groups differs from the last call's (CollectorSamples.version).
   */
  private version = 0;

  constructor(private readonly metrics: AccountMetricSet) {
    this.families = Object.values(metrics).filter((metric) => metric !== metrics.accountSignerChangesTotal);
  }

  of(
    watched: readonly SampledAccount[],
    observations: AccountObservations | undefined,
    signerChanges: ReadonlyMap<string, number>,
    baseReserveStroops: number | undefined,
  ): CollectorSamples {
    let changed = this.built.length !== watched.length;
    this.built.length = this.counters.length = watched.length;
    const persistent = new Array<Sample>(watched.length);
    const live: AccountGroup[] = [];
    for (const [index, account] of watched.entries()) {
      const value = signerChanges.get(account.name) ?? 0;
      let counter = this.counters[index];
      if (counter?.account !== account || counter.value !== value) {
        this.counters[index] = counter = {
          account,
          value,
          sample: { metric: this.metrics.accountSignerChangesTotal, labels: { account: account.name }, value },
        };
        changed = true;
      }
      persistent[index] = counter.sample;
      const observation = observations?.[index];
      let group = this.built[index];
      if (
        observation !== undefined &&
        (group?.watched !== account ||
          group.observation !== observation ||
          group.baseReserveStroops !== baseReserveStroops)
      ) {
        group = new AccountGroup(this.metrics, this.families, account, observation, baseReserveStroops);
      }
      const shown = observation === undefined ? undefined : group;
      if (this.built[index] !== shown) changed = true;
      this.built[index] = shown;
      if (shown !== undefined) live.push(shown);
    }
    if (changed) this.version += 1;
    return { live, persistent, version: this.version };
  }
}

/** Polls every watched account of a target; one failed request fails the poll, so no account is shown half-read. */
export class AccountsCollector implements PollJob {
  readonly role = "poll";
  readonly source = "accounts";
  readonly schedule: JobTiming["schedule"];
  readonly requestsPerRun: number;
  private observations: AccountObservations | undefined;
  private readonly signerChanges = new SignerChanges();
  private readonly accountSamples = new AccountSamples(HORIZON_ACCOUNT_METRICS);

  constructor(
    private readonly client: AccountsClient,
    private readonly watched: readonly WatchedAccount[],
    /** The target's network view: minimum balances follow the latest ledger's base reserve. */
    private readonly network: NetworkView,
    timing: JobTiming,
    /** Where no ledgers poll runs (a shard other than 0): read the latest ledger's base reserve each poll. */
    private readonly readsBaseReserve = false,
  ) {
    this.schedule = timing.schedule;
    this.requestsPerRun = timing.requestsPerRun;
  }

  async run(context: PollContext): Promise<void> {
    if (this.readsBaseReserve) {
      this.network.learn({ baseReserveStroops: await this.client.latestBaseReserve(context.signal) });
      context.progressed();
    }
    const observations: (AccountObservation | undefined)[] = [];
    for (const watched of this.watched) {
      observations.push(await this.observe(watched, context));
      context.progressed();
    }
    this.signerChanges.note(this.watched, observations);
    this.observations = observations;
  }

  samples(): CollectorSamples {
    return this.accountSamples.of(
      this.watched,
      this.observations,
      this.signerChanges.counts,
      this.network.current.baseReserveStroops,
    );
  }

  /**
   * What one poll learnt of the account; undefined when Horizon's answer was invalid (counted, and the
   * account left out).
   */
  private async observe(
    watched: WatchedAccount,
    { signal, invalidRecords }: PollContext,
  ): Promise<AccountObservation | undefined> {
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

/**
 * A Horizon's accounts poll, as its job table builds it. On a shard other than 0, which polls no
 * ledgers, it reads the base reserve its minimum balances need itself.
 */
export function accountsJob({ client, config, target, network }: HorizonJobParts): AccountsCollector {
  const timing = { schedule: target.schedules.accounts, requestsPerRun: requestsPerPoll("accounts", target, config) };
  return new AccountsCollector(new AccountsClient(client), target.accounts, network, timing, config.shard.index !== 0);
}
