import { CORRIDOR_RESULTS, METRICS, type CorridorResult } from "../catalog/metrics.js";
import { PollError, problemType } from "../client/errors.js";
import type { Query } from "../client/horizon-client.js";
import { assetQuery } from "../client/market-schemas.js";
import { assetOf, pathPairSchema, pathRecordSchema, type PathPair, type PathRecord } from "../client/path-schemas.js";
import type { CorridorConfig } from "../config/corridors.js";
import type { Schedule } from "../config/schedule.js";
import { HistogramData, type CollectorSamples, type Sample } from "../exposition/samples.js";
import { Poll, type HorizonJobParts, type PollContext, type PollJob } from "../job/job.js";

/** After a 404 (path finding switched off), the target's corridors are asked again only this much later. */
export const DISABLED_RETRY_MS = 3_600_000;

/** A 400's reasons logged per corridor, each cut to an excerpt: a reason that differs per answer (a request id) must
 * neither log every run nor be remembered for ever. */
export const REFUSAL_REASONS_LOGGED = 5;
const REFUSAL_EXCERPT_CHARS = 200;

const excerpt = (text: string) =>
  text.length > REFUSAL_EXCERPT_CHARS ? `${text.slice(0, REFUSAL_EXCERPT_CHARS)}…` : text;

/** What the corridor's last answered run (found or none) saw. */
interface Answer {
  readonly paths: number;
  readonly best?: { readonly amount: number; readonly rate: number; readonly hops: number };
  readonly atMs: number;
}

class CorridorState {
  readonly runs = new Map<CorridorResult, number>(CORRIDOR_RESULTS.map((result) => [result, 0]));
  readonly durations = new HistogramData(METRICS.corridorDuration.buckets);
  answer: Answer | undefined;
  lastFoundSeconds: number | undefined;

  constructor(readonly corridor: CorridorConfig) {}
}

/** Horizon's query for one corridor: the fixed side's asset and amount, and the one asset on the other side. */
function corridorQuery(corridor: CorridorConfig): Query {
  const send = corridor.mode === "strict_send";
  const fixed = send ? "source" : "destination";
  return {
    ...assetQuery(fixed, send ? corridor.source : corridor.destination),
    [`${fixed}_amount`]: corridor.amount,
    ...(send ? { destination_assets: corridor.destination } : { source_assets: corridor.source }),
  };
}

/** A record from the corridor's source to its destination: Horizon also answers other pairs (an asset to itself).
 * Undefined when the record's assets cannot be read. */
function joins(record: PathPair, { source, destination }: CorridorConfig): boolean | undefined {
  const from = assetOf(record.source_asset_type, record.source_asset_code, record.source_asset_issuer);
  const to = assetOf(record.destination_asset_type, record.destination_asset_code, record.destination_asset_issuer);
  if (from === undefined || to === undefined) return undefined;
  return from === source && to === destination;
}

/** An invalid record that may have been a path of the corridor: of its pair, or of a pair that cannot be read. */
function mayJoin(record: unknown, corridor: CorridorConfig): boolean {
  const pair = pathPairSchema.safeParse(record);
  return !pair.success || joins(pair.data, corridor) !== false;
}

function failureResult(error: PollError): CorridorResult {
  const status = error.details.status;
  if (status === 404) return "disabled";
  const type = problemType(error);
  if (status === 503 && type === "server_over_capacity") return "over_capacity";
  if (status === 503 && type === "still_ingesting") return "still_ingesting";
  if (error.reason === "timeout") return "timeout";
  return "error";
}

/** Payment corridors of one Horizon, asked once per run. A failing corridor's outcome is its series, not a failed run:
 * it never backs off the other polls, marks the target down or counts as a poll error. Only the run's deadline, or a
 * stop, fails it. */
export class CorridorsJob extends Poll implements PollJob {
  readonly source = "corridors";
  readonly countersAtStart = true;
  private readonly states: CorridorState[];
  /** Path finding answered 404: nothing is asked before this instant. */
  private disabledUntilMs = 0;
  /** Per corridor name, the excerpts of the 400 reasons already logged. */
  private readonly refusalsLogged = new Map<string, Set<string>>();
  readonly requestTimeoutMs: number;

  constructor(
    corridors: readonly CorridorConfig[],
    schedule: Schedule,
    /** `freshnessMs`: how long a corridor's last found values stay on /metrics when later runs fail; `timeoutMs`:
     * the client's, after which a corridor's request ends as `timeout`. */
    private readonly parts: Pick<HorizonJobParts, "client" | "log"> & {
      now: () => number;
      freshnessMs: number;
      timeoutMs: number;
    },
  ) {
    super({ schedule, requestsPerRun: corridors.length });
    this.states = corridors.map((corridor) => new CorridorState(corridor));
    this.requestTimeoutMs = parts.timeoutMs;
  }

  async run(context: PollContext): Promise<void> {
    // Runs skipped while path finding is off are not runs: nothing is counted.
    if (this.parts.now() < this.disabledUntilMs) return;
    for (const state of this.states) {
      const result = await this.ask(state, context);
      // A corridor's outcome, a timeout included, is its answer: each corridor gets a request budget of its own.
      context.progressed();
      if (result !== "disabled") continue;
      // Path finding is off for the whole Horizon: asking the other corridors would only 404 too.
      this.disabledUntilMs = this.parts.now() + DISABLED_RETRY_MS;
      return;
    }
  }

  private async ask(state: CorridorState, context: PollContext): Promise<CorridorResult> {
    const { client, now } = this.parts;
    const startedMs = now();
    let result: CorridorResult;
    try {
      const raw = await client.paths(state.corridor.mode, corridorQuery(state.corridor), context.signal);
      result = this.answered(state, raw, context);
    } catch (error) {
      // A run cut short by its deadline or the exporter stopping ends here, counting nothing.
      if (context.signal.aborted) throw context.signal.reason ?? error;
      const failure = error instanceof PollError ? error : new PollError("internal", String(error));
      result = failureResult(failure);
      // A page failing its schema is a record left out too, as for every other document.
      if (failure.reason === "schema") context.invalidRecords(1);
      if (failure.details.status === 400) this.logRefusal(state.corridor, failure);
    }
    state.durations.observe(Math.max(0, now() - startedMs) / 1000);
    state.runs.set(result, state.runs.get(result)! + 1);
    return result;
  }

  /** Folds a 200 answer in: its valid records (invalid ones counted and left out) and the best of them. */
  private answered(state: CorridorState, raw: readonly unknown[], context: PollContext): CorridorResult {
    const records: PathRecord[] = [];
    let invalid = 0;
    let invalidOfPair = 0;
    for (const record of raw) {
      const parsed = pathRecordSchema.safeParse(record);
      if (parsed.success) {
        if (joins(parsed.data, state.corridor)) records.push(parsed.data);
        continue;
      }
      invalid += 1;
      if (mayJoin(record, state.corridor)) invalidOfPair += 1;
    }
    if (invalid > 0) context.invalidRecords(invalid);
    // No valid path of the corridor, while one that failed its schema may have been one (or none passed it at all):
    // a bad answer, which says nothing of whether a path exists.
    if (records.length === 0 && (invalidOfPair > 0 || (invalid > 0 && invalid === raw.length))) return "error";
    const nowMs = this.parts.now();
    if (records.length === 0) {
      state.answer = { paths: 0, atMs: nowMs };
      return "none";
    }
    const send = state.corridor.mode === "strict_send";
    // The best receives the most (strict_send) or spends the least; of equals, Horizon's first wins.
    const better = (record: PathRecord, best: PathRecord) =>
      send ? record.destination_amount > best.destination_amount : record.source_amount < best.source_amount;
    const best = records.reduce((best, record) => (better(record, best) ? record : best));
    const amount = send ? best.destination_amount : best.source_amount;
    const rate = best.destination_amount / best.source_amount;
    state.answer = { paths: records.length, best: { amount, rate, hops: best.path.length }, atMs: nowMs };
    state.lastFoundSeconds = nowMs / 1000;
    return "found";
  }

  /** A 400 means our request is wrong: said once per corridor and reason, with an excerpt of Horizon's own reason,
   * for the first few reasons of a corridor only. */
  private logRefusal(corridor: CorridorConfig, failure: PollError): void {
    const extras = failure.details.problem?.extras;
    const reason = excerpt(
      typeof extras?.reason === "string" ? extras.reason : (failure.details.problem?.detail ?? failure.message),
    );
    const logged = this.refusalsLogged.get(corridor.name) ?? new Set<string>();
    this.refusalsLogged.set(corridor.name, logged);
    if (logged.has(reason) || logged.size >= REFUSAL_REASONS_LOGGED) return;
    logged.add(reason);
    const invalidField = typeof extras?.invalid_field === "string" ? excerpt(extras.invalid_field) : undefined;
    const last = logged.size === REFUSAL_REASONS_LOGGED ? { furtherReasonsNotLogged: true } : {};
    this.parts.log.warn(
      { corridor: corridor.name, status: 400, reason, invalidField, ...last },
      "Horizon refused a corridor's path-finding request as invalid; check the corridor's assets and amount",
    );
  }

  samples(_lastRunSucceeded: boolean): CollectorSamples {
    const live: Sample[] = [];
    const persistent: Sample[] = [];
    const nowMs = this.parts.now();
    for (const state of this.states) {
      const labels = { corridor: state.corridor.name };
      for (const [result, value] of state.runs)
        persistent.push({ metric: METRICS.corridorRuns, labels: { ...labels, result }, value });
      persistent.push({ metric: METRICS.corridorDuration, labels, histogram: state.durations });
      if (state.corridor.minRate !== undefined)
        persistent.push({ metric: METRICS.corridorMinRate, labels, value: state.corridor.minRate });
      if (state.lastFoundSeconds !== undefined)
        persistent.push({ metric: METRICS.corridorLastFound, labels, value: state.lastFoundSeconds });
      const answer = state.answer;
      // The last answer stays through failed runs, until it is older than the freshness window.
      if (answer === undefined || nowMs - answer.atMs > this.parts.freshnessMs) continue;
      live.push({ metric: METRICS.corridorPaths, labels, value: answer.paths });
      if (answer.best === undefined) continue;
      live.push({ metric: METRICS.corridorBestAmount, labels, value: answer.best.amount });
      live.push({ metric: METRICS.corridorBestRate, labels, value: answer.best.rate });
      live.push({ metric: METRICS.corridorBestHops, labels, value: answer.best.hops });
    }
    return { live, persistent };
  }
}

export function corridorsWatched(target: { readonly corridors?: readonly CorridorConfig[] | undefined }): boolean {
  return (target.corridors ?? []).length > 0;
}

export function corridorsJob({ client, config, target, log: targetLog, clock }: HorizonJobParts): CorridorsJob {
  const schedule = target.schedules.corridors;
  const log = targetLog.child({ endpoint: "corridors" });
  if (target.corridorsRaisedFrom !== undefined)
    log.warn(
      { pollInterval: target.corridorsRaisedFrom, schedule: schedule.text },
      "--poll.interval is shorter than corridors may run: corridors run every 15s",
    );
  const freshnessMs = config.staleAfterIntervals * schedule.periodMs;
  const parts = { client, log, now: () => clock.now(), freshnessMs, timeoutMs: target.timeoutMs };
  return new CorridorsJob(target.corridors ?? [], schedule, parts);
}
