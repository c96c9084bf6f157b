import { METRICS } from "../catalog/metrics.js";
import { ASSET_FLAGS, assetRecordSchema, HELD_BY, type AssetRecord } from "../client/asset-schemas.js";
import { PollError } from "../client/errors.js";
import type { HorizonClient } from "../client/horizon-client.js";
import { stroopsToUnits } from "../client/wire-values.js";
import type { WatchedAsset } from "../config/assets.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";
import { Poll, type HorizonJobParts, type PollContext, type PollJob } from "../job/job.js";
import { validRecord } from "../client/paging.js";

/** The series of one asset `/assets` returned; every part Horizon did not send is absent. */
function assetSamples(asset: string, record: AssetRecord): Sample[] {
  const samples: Sample[] = [{ metric: METRICS.assetExists, labels: { asset }, value: 1 }];
  let supply = 0n;
  for (const held_by of HELD_BY) {
    const stroops = record.amounts[held_by];
    if (stroops !== undefined) {
      supply += stroops;
      samples.push({ metric: METRICS.assetAmount, labels: { asset, held_by }, value: stroopsToUnits(stroops) });
    }
    const holders = record.holders[held_by];
    if (holders !== undefined)
      samples.push({ metric: METRICS.assetHolders, labels: { asset, held_by }, value: holders });
  }
  // Summed exactly and converted once: the float64 nearest the exact supply.
  samples.push({ metric: METRICS.assetSupply, labels: { asset }, value: stroopsToUnits(supply) });
  for (const flag of ASSET_FLAGS) {
    const set = record.flags[flag];
    if (set !== undefined) samples.push({ metric: METRICS.assetFlag, labels: { asset, flag }, value: set ? 1 : 0 });
  }
  samples.push({ metric: METRICS.assetInfo, labels: { asset, contract_id: record.contractId }, value: 1 });
  return samples;
}

/** The flags Horizon sent, without those it left out. */
function definedFlags(flags: AssetRecord["flags"]): Partial<AssetRecord["flags"]> {
  return Object.fromEntries(Object.entries(flags).filter(([, set]) => set !== undefined));
}

/** A watched asset; its flag changes are counted against `flags`, each flag as its last valid record sent it. */
interface AssetState {
  readonly asset: WatchedAsset;
  flags: Partial<AssetRecord["flags"]> | undefined;
  flagChanges: number;
  invalid: boolean;
}

/** Watched assets, one request each per poll. An asset Horizon does not know is `exists 0`, not a failure. Flag
 * baseline and counter change together, so a poll aborted between two requests counts no change twice. */
export class AssetsJob extends Poll implements PollJob {
  readonly source = "assets";
  private readonly states: AssetState[];
  private live: readonly Sample[] = [];

  constructor(
    private readonly client: HorizonClient,
    assets: readonly WatchedAsset[],
    schedule: Schedule,
  ) {
    super({ schedule, requestsPerRun: assets.length });
    this.states = assets.map((asset) => ({ asset, flags: undefined, flagChanges: 0, invalid: false }));
  }

  async run({ signal, invalidRecords, progressed }: PollContext): Promise<void> {
    const live: Sample[] = [];
    for (const state of this.states) {
      const { asset } = state;
      const records = await this.client.asset(asset.code, asset.issuer, signal).catch((error: unknown) => {
        // An answer that is no page at all fails the poll and counts as one invalid record.
        if (error instanceof PollError && error.reason === "schema") invalidRecords(1);
        throw error;
      });
      progressed();
      state.invalid = false;
      if (records.length === 0) {
        live.push({ metric: METRICS.assetExists, labels: { asset: asset.name }, value: 0 });
        continue;
      }
      const record = validRecord(assetRecordSchema, records[0]);
      // A Horizon ignoring the filter sends another asset's record.
      if (record?.code !== asset.code || record.issuer !== asset.issuer) {
        invalidRecords(1);
        state.invalid = true;
        continue;
      }
      const before = state.flags;
      // A flag Horizon did not send (an older Horizon lacks clawback) is unknown, not changed: only flags known on
      // both sides compare, and the baseline keeps each flag's last known value.
      const changed = (flag: (typeof ASSET_FLAGS)[number]) =>
        before?.[flag] !== undefined && record.flags[flag] !== undefined && before[flag] !== record.flags[flag];
      if (ASSET_FLAGS.some(changed)) state.flagChanges += 1;
      state.flags = { ...before, ...definedFlags(record.flags) };
      live.push(...assetSamples(asset.name, record));
    }
    this.live = live;
  }

  samples(): CollectorSamples<Sample> {
    // An asset whose last record was invalid has none of its series, its counter included.
    const persistent = this.states.flatMap(({ asset, invalid, flagChanges }): Sample[] =>
      invalid ? [] : [{ metric: METRICS.assetFlagChanges, labels: { asset: asset.name }, value: flagChanges }],
    );
    return { live: this.live, persistent };
  }
}

export function assetsJob({ client, target }: HorizonJobParts): AssetsJob {
  return new AssetsJob(client, target.assets, target.schedules.assets);
}
