import {
  HORIZON_ACCOUNT_METRICS,
  type RPC_ACCOUNT_METRICS,
  type AccountMetricSet,
  type MetricDefinition,
} from "../catalog/metrics.js";
import type { AccountFacts } from "../client/account-schemas.js";
import { amountStroops, stroopsToUnits } from "../client/wire-values.js";
import { PollError } from "../client/errors.js";
import type { WatchedAccount } from "../config/accounts.js";
import type { NetworkView } from "../job/network.js";
import { Poll, type HorizonJobParts, type JobTiming, type PollContext, type PollJob } from "../job/job.js";
import { ACCOUNT_LIST_CAP, AccountsClient } from "../client/accounts.js";
import { requestsPerPoll } from "../scheduler/request-plan.js";
import { ASSETS_PER_ACCOUNT } from "./account-activity.js";
import { BoundedLabel, LABEL_TEXT_BOUNDS, labelText, OTHER_LABEL } from "./label-text.js";
import type { CollectorSamples, Labels, Sample, SeriesGroup } from "../exposition/samples.js";

type SampledAccount = Pick<WatchedAccount, "name" | "id" | "lowBalance" | "cold">;

export type AccountObservation =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly account: AccountFacts;
      /** Whether each configured trustline exists, where they are asked for one by one (Stellar RPC), by asset. */
      readonly trustlines?: readonly (readonly [asset: string, exists: boolean])[];
      readonly offers?: number;
      /** Claimable balances: how many, and the exact sum per asset in stroops. */
      readonly claimable?: { readonly count: number; readonly stroopsByAsset: ReadonlyMap<string, bigint> };
    };

/** One object for every missing account, so an account still missing keeps its group and the version stays put. */
export const MISSING: AccountObservation = { exists: false };

/** Each watched account's observation, in the order of the watch list; undefined where the answer was invalid. */
type AccountObservations = readonly (AccountObservation | undefined)[];

/** What makes a signer change: the signers, their weights and the thresholds, in a canonical order. */
function signerSignature(account: AccountFacts): string {
  const signers = account.signers.map((signer) => `${signer.type}:${signer.key}:${signer.weight}`).sort();
  const { low, medium, high } = account.thresholds;
  return JSON.stringify([signers, low, medium, high]);
}

/** Adds a sample of the family being made, labelled `account` then `labels`; none when `value` is undefined. */
type Emit = (value: number | undefined, labels?: Labels) => void;
type Family = (emit: Emit, observation: Extract<AccountObservation, { exists: true }>, group: AccountGroup) => void;

const perBalance =
  (value: (balance: AccountFacts["balances"][number]) => number | undefined): Family =>
  (emit, { account }) => {
    for (const balance of account.balances) emit(value(balance), { asset: balance.asset });
  };

type AccountKey = keyof typeof HORIZON_ACCOUNT_METRICS | keyof typeof RPC_ACCOUNT_METRICS;
/** Every account family but `exists`, which a missing account has too, and the signer change counter, kept apart. */
const FAMILIES: Readonly<Record<Exclude<AccountKey, "accountExists" | "accountSignerChangesTotal">, Family>> = {
  accountInfo: (emit, { account }, { watched }) => {
    const homeDomain = labelText(account.homeDomain, LABEL_TEXT_BOUNDS.homeDomain);
    emit(1, { account_id: account.id, home_domain: homeDomain, cold: String(watched.cold) });
  },
  accountMinimumBalance: (emit, { account }, { baseReserveStroops }) => {
    // The lumens reserve in XLM, from the latest ledger's base reserve (one rounding).
    const entries = 2 + account.subentryCount + account.numSponsoring - account.numSponsored;
    if (baseReserveStroops !== undefined) emit(stroopsToUnits(BigInt(entries) * BigInt(baseReserveStroops)));
  },
  accountSubentries: (emit, { account }) => emit(account.subentryCount),
  accountSponsoring: (emit, { account }) => emit(account.numSponsoring),
  accountSponsored: (emit, { account }) => emit(account.numSponsored),
  accountDataEntries: (emit, { account }) => emit(account.dataEntries),
  accountThreshold: (emit, { account }) => {
    for (const [level, value] of Object.entries(account.thresholds)) emit(value, { level });
  },
  accountSignerWeight: (emit, { account }) => {
    for (const { key, type, weight } of account.signers) emit(weight, { signer: key, type });
  },
  accountFlag: (emit, { account }) => {
    for (const [flag, set] of Object.entries(account.flags)) emit(set ? 1 : 0, { flag });
  },
  accountSequenceLedger: (emit, { account }) => emit(account.sequenceLedger),
  accountSequenceTimestamp: (emit, { account }) => emit(account.sequenceTime),
  accountBalance: perBalance((balance) => balance.balance),
  accountBuyingLiabilities: perBalance((balance) => balance.buyingLiabilities),
  accountSellingLiabilities: perBalance((balance) => balance.sellingLiabilities),
  accountTrustlineLimit: perBalance((balance) => balance.limit),
  accountTrustlineAuthorized: perBalance(({ authorized }) =>
    authorized === undefined ? undefined : Number(authorized),
  ),
  accountTrustlineExists: (emit, { trustlines = [] }) => {
    for (const [asset, exists] of trustlines) emit(exists ? 1 : 0, { asset });
  },
  accountBalanceLowWatermark: (emit, _observation, { watched }) => {
    for (const [asset, value] of Object.entries(watched.lowBalance)) emit(value, { asset });
  },
  accountOffers: (emit, { offers }) => emit(offers),
  accountClaimableBalances: (emit, { claimable }) => emit(claimable?.count),
  accountClaimableAmount: (emit, { claimable }) => {
    for (const [asset, stroops] of claimable?.stroopsByAsset ?? []) emit(stroopsToUnits(stroops), { asset });
  },
};

/** One watched account's live series, held as a group instead of a sample per series: made only when asked for. */
class AccountGroup implements SeriesGroup {
  constructor(
    private readonly kind: AccountSamples,
    readonly watched: SampledAccount,
    readonly observation: AccountObservation,
    readonly baseReserveStroops: number | undefined,
  ) {}

  get families(): readonly MetricDefinition[] {
    return this.kind.families;
  }

  samplesOf(metric: MetricDefinition): Sample[] {
    const samples: Sample[] = [];
    // The label sets are the catalog's, which the table above follows: the compiler cannot check them here.
    const emit: Emit = (value, labels) => {
      if (value !== undefined)
        samples.push({ metric, labels: { account: this.watched.name, ...labels }, value } as Sample);
    };
    if (metric === this.kind.metrics.accountExists) emit(this.observation.exists ? 1 : 0);
    else if (this.observation.exists) this.kind.made.get(metric)?.(emit, this.observation, this);
    return samples;
  }
}

/** The series of a target's watched accounts, a group per account, and their persistent signer change counters. The
 * very observation object last published, under the same base reserve, gives the same group: the version stays put. */
export class AccountSamples {
  /** In the order of the watch list: each account's group as last published, and its signer change counter. */
  private readonly built: (AccountGroup | undefined)[] = [];
  private readonly counters: ({ account: SampledAccount; value: number; sample: Sample } | undefined)[] = [];
  /** The families a group has: every account family of the kind but the signer change counter; how each is made. */
  readonly families: readonly MetricDefinition[];
  readonly made = new Map<MetricDefinition, Family>();
  /** Bumped whenever a counter, a group or the list of groups differs from the last call's. */
  private version = 0;

  constructor(readonly metrics: AccountMetricSet) {
    this.families = Object.values(metrics).filter((metric) => metric !== metrics.accountSignerChangesTotal);
    for (const [key, family] of Object.entries(FAMILIES)) {
      const metric = (metrics as Readonly<Record<string, MetricDefinition>>)[key];
      if (metric !== undefined) this.made.set(metric, family);
    }
  }

  of(
    watched: readonly SampledAccount[],
    observations: AccountObservations | undefined,
    signerChanges: ReadonlyMap<string, number>,
    reserve: number | undefined,
  ): CollectorSamples {
    let changed = this.built.length !== watched.length;
    this.built.length = this.counters.length = watched.length;
    const persistent = new Array<Sample>(watched.length);
    const live: AccountGroup[] = [];
    for (const [index, account] of watched.entries()) {
      const value = signerChanges.get(account.name) ?? 0;
      let counter = this.counters[index];
      if (counter?.account !== account || counter.value !== value) {
        const sample = { metric: this.metrics.accountSignerChangesTotal, labels: { account: account.name }, value };
        this.counters[index] = counter = { account, value, sample };
        changed = true;
      }
      persistent[index] = counter.sample;
      const observation = observations?.[index];
      let group = this.built[index];
      if (observation === undefined) group = undefined;
      else if (group?.watched !== account || group.observation !== observation || group.baseReserveStroops !== reserve)
        group = new AccountGroup(this, account, observation, reserve);
      if (this.built[index] !== group) changed = true;
      this.built[index] = group;
      if (group !== undefined) live.push(group);
    }
    if (changed) this.version += 1;
    return { live, persistent, version: this.version };
  }
}

/** What both kinds' accounts polls share: the observations, the signer change counters and the samples. */
export abstract class WatchedAccountsPoll<Watched extends SampledAccount> extends Poll implements PollJob {
  readonly source = "accounts";
  protected observations: AccountObservations | undefined;
  /** By account: the polls at which its signers, their weights or its thresholds differed from its previous read. */
  private readonly signerChanges = new Map<string, number>();
  /** Each account's facts at its previous read (held anyway, as its observation), rather than a signature string. */
  private readonly previousFacts = new Map<string, AccountFacts>();
  private readonly accountSamples: AccountSamples;

  constructor(
    metrics: AccountMetricSet,
    protected readonly watched: readonly Watched[],
    /** Minimum balances follow its latest ledger's base reserve. */
    protected readonly network: NetworkView,
    timing: JobTiming,
  ) {
    super(timing);
    this.accountSamples = new AccountSamples(metrics);
  }

  abstract run(context: PollContext): Promise<void>;

  samples(): CollectorSamples {
    const baseReserve = this.network.current.baseReserveStroops;
    return this.accountSamples.of(this.watched, this.observations, this.signerChanges, baseReserve);
  }

  /** Keeps a poll's observations; counts the existing accounts whose signers differ from their previous read. */
  protected keep(observations: AccountObservations): void {
    for (const [index, { name }] of this.watched.entries()) {
      const observation = observations[index];
      if (observation?.exists !== true) continue;
      const previous = this.previousFacts.get(name);
      // The same facts as last time (a Stellar RPC poll keeps them while its entries are unchanged): the same signers.
      if (previous === observation.account) continue;
      if (previous !== undefined && signerSignature(previous) !== signerSignature(observation.account))
        this.signerChanges.set(name, (this.signerChanges.get(name) ?? 0) + 1);
      this.previousFacts.set(name, observation.account);
    }
    this.observations = observations;
  }
}

/** Polls every watched account of a target; one failed request fails the poll, so no account is shown half-read. */
export class AccountsCollector extends WatchedAccountsPoll<WatchedAccount> {
  /** Each account's claimable assets with an amount, by name: kept across polls, so a new spam balance listed first
   * never takes the place of an asset already shown. */
  private readonly claimableAssets = new Map<string, BoundedLabel>();

  constructor(
    private readonly client: AccountsClient,
    watched: readonly WatchedAccount[],
    network: NetworkView,
    timing: JobTiming,
    /** Where no ledgers poll runs (not shard 0): reads the latest ledger, for the base reserve and any restart. */
    private readonly readsLatestLedger = false,
  ) {
    super(HORIZON_ACCOUNT_METRICS, watched, network, timing);
  }

  async run(context: PollContext): Promise<void> {
    if (this.readsLatestLedger) {
      const { sequence, baseReserveStroops } = await this.client.latestLedger(context.signal);
      this.network.ledgerRead(sequence);
      this.network.learn({ baseReserveStroops });
      context.progressed();
    }
    const observations: (AccountObservation | undefined)[] = [];
    for (const watched of this.watched) observations.push(await this.observe(watched, context));
    this.keep(observations);
  }

  /** What one poll learnt of the account; undefined when Horizon's answer was invalid (counted, account left out). */
  private async observe(
    watched: WatchedAccount,
    { signal, invalidRecords, progressed }: PollContext,
  ): Promise<AccountObservation | undefined> {
    const lookup = await this.client.account(watched.id, signal).catch((error: unknown) => {
      // A value out of its range, a balance or signer listed twice: this account is left out, not the others.
      if (!(error instanceof PollError && error.reason === "schema")) throw error;
      invalidRecords(1);
    });
    progressed();
    if (lookup === undefined) return undefined;
    if (lookup.status === "missing") return MISSING;
    // Another account's document (a broken cache or proxy) is an invalid answer, never shown as the watched one.
    if (lookup.account.id !== watched.id) {
      invalidRecords(1);
      return undefined;
    }
    const offers = watched.offers
      ? await this.client.offers(watched.id, ACCOUNT_LIST_CAP, signal, progressed)
      : undefined;
    invalidRecords(offers?.invalidRecords ?? 0);
    const claimable = watched.claimableBalances
      ? await this.client.claimableBalances(watched.id, ACCOUNT_LIST_CAP, signal, progressed)
      : undefined;
    invalidRecords(claimable?.invalidRecords ?? 0);
    // Anyone can send an account claimable balances of spam assets: as its payments, only the first assets (native and
    // the low_balance ones always among them) get an amount; later ones are counted, never summed (units differ).
    let assets = this.claimableAssets.get(watched.name);
    if (assets === undefined) {
      assets = new BoundedLabel(ASSETS_PER_ACCOUNT, ["native", ...Object.keys(watched.lowBalance)]);
      this.claimableAssets.set(watched.name, assets);
    }
    const stroopsByAsset = new Map<string, bigint>();
    for (const { asset, amount } of claimable?.records ?? [])
      if (assets.of(asset) !== OTHER_LABEL)
        stroopsByAsset.set(asset, (stroopsByAsset.get(asset) ?? 0n) + amountStroops(amount));
    const claimed = claimable && { count: claimable.records.length, stroopsByAsset };
    return { exists: true, account: lookup.account, offers: offers?.records.length, claimable: claimed };
  }
}

export function accountsJob({ client, config, target, network }: HorizonJobParts): AccountsCollector {
  const timing = { schedule: target.schedules.accounts, requestsPerRun: requestsPerPoll("accounts", target, config) };
  return new AccountsCollector(new AccountsClient(client), target.accounts, network, timing, config.shard.index !== 0);
}
