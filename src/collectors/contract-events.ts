// The events poll of a Stellar RPC target: watched contracts' events from the first poll on, counted once by topic.
import type { Logger } from "pino";
import { RPC_METRICS } from "../catalog/metrics.js";
import {
  cursorBeforeLedger,
  ledgerOfEventId,
  type EventPlace,
  type EventType,
  type RpcContractEvent,
} from "../client/event-schemas.js";
import { PollError } from "../client/errors.js";
import { validated } from "../client/http.js";
import { chunks } from "../client/ledger-entries.js";
import type { RpcClient } from "../client/rpc-client.js";
import { latestLedgerSchema } from "../client/rpc-schemas.js";
import type { WatchedContract } from "../config/contracts.js";
import type { Schedule } from "../config/schedule.js";
import type { CollectorSamples, Sample } from "../exposition/samples.js";
import { Poll, type PollContext, type PollJob, type RpcJobParts } from "../job/job.js";
import { startsNewChain } from "../job/network.js";
import { stellarBase } from "../stellar-base.js";
import { BoundedLabel, labelText } from "./label-text.js";

/** getEvents takes at most 5 filters of at most 5 contract ids each. */
const CONTRACTS_PER_CALL = 25;
const IDS_PER_FILTER = 5;
const EVENTS_PER_CALL = 1000;
/** Calls per group of contracts a poll, at most: a longer backlog continues at the next poll. */
const CALLS_PER_GROUP = 10;
/** Distinct first topics a contract gets series for; later ones count under `other`. */
export const TOPICS_PER_CONTRACT = 50;
/** The first topic of the system event a contract's upgrade emits. */
const UPGRADE_TOPIC = "executable_update";
/** Symbols are at most 32 characters; a topic's text is cut to this many, unreadable characters replaced. */
const TOPIC_CHARACTERS = 64;

/** Requests an events poll sends in steady state: one call per group of 25 contracts (distinct ids). */
export function eventsRequestsPerPoll(contracts: readonly WatchedContract[]): number {
  return Math.ceil(new Set(contracts.map(({ id }) => id)).size / CONTRACTS_PER_CALL);
}

/** A first topic as a label: a symbol or a string as its text, anything else as its ScVal arm's name without `scv`,
 * first letter lower-cased (`scvAddress` → `address`); `none` without a topic. */
export function topicLabel(topics: readonly string[]): string {
  const first = topics[0];
  if (first === undefined) return "none";
  const value = stellarBase().xdr.ScVal.fromXDR(first, "base64");
  const arm = value.switch().name;
  // A symbol's characters are not checked when it is decoded: it is free text here, as a string is.
  const text = arm === "scvSymbol" ? value.sym() : arm === "scvString" ? value.str() : undefined;
  if (text !== undefined) return labelText(text.toString(), TOPIC_CHARACTERS);
  const name = arm.startsWith("scv") ? arm.slice(3) : arm;
  return name.charAt(0).toLowerCase() + name.slice(1);
}

class ContractCounts {
  /** Counts by type and topic; a topic is one of the first TOPICS_PER_CONTRACT distinct ones, or `other`. */
  readonly byTopic = new Map<string, { readonly type: EventType; readonly topic: string; count: number }>();
  readonly topics = new BoundedLabel(TOPICS_PER_CONTRACT);
  failedCalls = 0;
  upgrades = 0;
  lastEventSeconds: number | undefined;
  /** The newest event counted: its close time is the last event's, whatever an older one said. */
  private lastEventId = "";

  constructor(readonly contract: WatchedContract) {}

  count(event: RpcContractEvent, topic: string): void {
    const label = this.topics.of(topic);
    const key = `${event.type}\u0000${label}`;
    const entry = this.byTopic.get(key) ?? { type: event.type, topic: label, count: 0 };
    entry.count += 1;
    this.byTopic.set(key, entry);
    if (event.inSuccessfulContractCall === false) this.failedCalls += 1;
    if (event.type === "system" && topic === UPGRADE_TOPIC) this.upgrades += 1;
    if (event.id <= this.lastEventId) return;
    this.lastEventId = event.id;
    this.lastEventSeconds = Math.floor(Date.parse(event.ledgerClosedAt) / 1000);
  }

  /** A new chain's ids start again below the old chain's: the next event counted is the newest. */
  chainRestarted(): void {
    this.lastEventId = "";
  }
}

/** An EventPlace with its `after` resolved: an event id, or the cursor a call started from. */
type Place = { readonly after: string; readonly nth: number };

/** Whether `place` lies past `counted` in event order. */
function isPast(place: Place, counted: Place | undefined): boolean {
  const after = counted?.after ?? "";
  return place.after > after || (place.after === after && place.nth > (counted?.nth ?? 0));
}

/** One call's worth of contracts and where its reading stands: a cursor once a call answered, before that a ledger. */
interface Group {
  readonly filters: readonly { readonly contractIds: readonly string[] }[];
  /** The contracts it asks for: an RPC answering others' events does not get them counted twice. */
  readonly ids: ReadonlySet<string>;
  cursor?: string;
  startLedger?: number;
  /** The furthest place counted, valid event or invalid: a place at or before it was counted already. */
  counted?: Place;
  /** The last answer was full: its cursor's ledger may have events not read yet. */
  midLedger?: boolean;
}

export class ContractEventsJob extends Poll implements PollJob {
  readonly source = "events";
  private readonly groups: readonly Group[];
  /** By contract id: a contract watched under two names is counted under each. */
  private readonly counts = new Map<string, ContractCounts[]>();
  private skippedLedgers = 0;
  /** The ledgers counted as skipped, as disjoint ranges: a ledger that several groups lost is counted once. */
  private skippedRanges: { from: number; through: number }[] = [];

  constructor(
    contracts: readonly WatchedContract[],
    schedule: Schedule,
    private readonly dependencies: { readonly client: Pick<RpcClient, "getEvents" | "call">; readonly log: Logger },
  ) {
    super({ schedule, requestsPerRun: eventsRequestsPerPoll(contracts) });
    for (const contract of contracts)
      this.counts.set(contract.id, [...(this.counts.get(contract.id) ?? []), new ContractCounts(contract)]);
    this.groups = chunks([...this.counts.keys()], CONTRACTS_PER_CALL).map((ids) => ({
      filters: chunks(ids, IDS_PER_FILTER).map((contractIds) => ({ contractIds })),
      ids: new Set(ids),
    }));
  }

  async run(context: PollContext): Promise<void> {
    const unstarted = this.groups.filter((group) => group.cursor === undefined && group.startLedger === undefined);
    if (unstarted.length > 0) {
      const latest = await this.latestLedger(context.signal);
      for (const group of unstarted) group.startLedger = latest;
    }
    for (const group of this.groups) await this.readGroup(group, context);
  }

  samples(lastRunSucceeded: boolean): CollectorSamples<Sample> {
    const persistent: Sample[] = [{ metric: RPC_METRICS.contractEventsSkippedLedgers, value: this.skippedLedgers }];
    const live: Sample[] = [];
    for (const { contract, byTopic, failedCalls, upgrades, lastEventSeconds } of [...this.counts.values()].flat()) {
      const labels = { contract: contract.name };
      for (const { type, topic, count } of byTopic.values())
        persistent.push({ metric: RPC_METRICS.contractEvents, labels: { ...labels, type, topic }, value: count });
      persistent.push(
        { metric: RPC_METRICS.contractFailedCallEvents, labels, value: failedCalls },
        { metric: RPC_METRICS.contractUpgrades, labels, value: upgrades },
      );
      if (!lastRunSucceeded) continue;
      if (lastEventSeconds !== undefined)
        live.push({ metric: RPC_METRICS.contractLastEvent, labels, value: lastEventSeconds });
      const expected = contract.expectEventsWithinSeconds;
      if (expected !== undefined)
        live.push({ metric: RPC_METRICS.contractEventsExpectedWithin, labels, value: expected });
    }
    return { live, persistent };
  }

  /** Up to CALLS_PER_GROUP calls, while each comes back full; each answer is folded in as it arrives. */
  private async readGroup(group: Group, { signal, invalidRecords, progressed }: PollContext): Promise<void> {
    for (let call = 0; call < CALLS_PER_GROUP; call += 1) {
      const { cursor, filters } = group;
      const answer = await this.dependencies.client.getEvents(
        cursor === undefined
          ? { startLedger: group.startLedger ?? 0, filters, pagination: { limit: EVENTS_PER_CALL } }
          : { filters, pagination: { limit: EVENTS_PER_CALL, cursor } },
        signal,
      );
      progressed();
      if (answer.kind === "out_of_range") {
        // Checked against getLatestLedger: one garbled window must not count millions of ledgers as skipped.
        const latest = await this.latestLedger(signal);
        if (answer.oldestLedger > latest) {
          const window = `${answer.oldestLedger} - ${answer.latestLedger}`;
          throw new PollError("schema", `getEvents' window ${window} starts past the latest ledger, ${latest}`);
        }
        if (!this.restart(group, answer.oldestLedger, Math.min(answer.latestLedger, latest))) return;
        continue;
      }
      // The answer's cursor is where the next call starts: one behind this call's start would read ledgers again and,
      // refused, count ledgers never missed as skipped; one past the RPC's latest ledger would look like a new chain.
      const from = cursor ?? cursorBeforeLedger(group.startLedger ?? 0);
      if (answer.cursor < from || ledgerOfEventId(answer.cursor) > answer.latestLedger)
        throw new PollError(
          "schema",
          `getEvents answered cursor ${answer.cursor}, outside ${from} to its latest ledger`,
        );
      invalidRecords(this.fold(group, from, answer.events, answer.invalid));
      group.cursor = answer.cursor;
      group.startLedger = undefined;
      group.midLedger = answer.events.length + answer.invalid.length >= EVENTS_PER_CALL;
      if (!group.midLedger) return;
    }
  }

  private async latestLedger(signal: AbortSignal): Promise<number> {
    const answer = await this.dependencies.client.call("events", "getLatestLedger", undefined, signal);
    return validated(latestLedgerSchema, answer, "Stellar RPC's getLatestLedger").sequence;
  }

  /** Counts the events past the last place counted, each once, in any order; returns how many of them are invalid:
   * left out by the client (at `invalid`, after `from`, the call's start), or failing to decode. */
  private fold(
    group: Group,
    from: string,
    events: readonly RpcContractEvent[],
    invalid: readonly EventPlace[],
  ): number {
    const counted = group.counted;
    const seen = new Set<string>();
    // Whether the event at `place` is new; it is then counted, and the furthest place moves past it.
    const fresh = (place: Place): boolean => {
      const key = `${place.after}\u0000${place.nth}`;
      if (!isPast(place, counted) || seen.has(key)) return false;
      seen.add(key);
      if (isPast(place, group.counted)) group.counted = place;
      return true;
    };
    let invalidCount = invalid.filter(({ after, nth }) => fresh({ after: after ?? from, nth })).length;
    for (const event of events) {
      if (!group.ids.has(event.contractId) || !fresh({ after: event.id, nth: 0 })) continue;
      let topic: string;
      try {
        topic = topicLabel(event.topic);
      } catch {
        invalidCount += 1;
        continue;
      }
      for (const contract of this.counts.get(event.contractId) ?? []) contract.count(event, topic);
    }
    return invalidCount;
  }

  /** The start fell outside the RPC's window: ledgers behind `oldest` are lost, counted as skipped once per target;
   * past `latest` (an RPC behind or replaced), reading resumes there, events already counted known by their ids.
   * False when the group reads no more this poll. */
  private restart(group: Group, oldest: number, latest: number): boolean {
    const read = lastLedgerRead(group);
    // A ledger read in part (the last answer was full) is one whose events were not all read.
    const before = group.midLedger ? read - 1 : read;
    group.midLedger = false;
    if (read + 1 > latest) {
      // A new chain (a testnet reset) numbers its events from the start again: the old chain's ids say nothing.
      if (startsNewChain(latest, read)) {
        group.counted = undefined;
        for (const id of group.ids) for (const contract of this.counts.get(id) ?? []) contract.chainRestarted();
        this.skippedRanges = [];
        this.dependencies.log.warn({ from: read, to: latest }, "the RPC is on another chain (network reset?)");
      } else if (group.cursor === undefined) {
        // Nothing read yet, or only what lies before `oldest`: the start stays, until the RPC reaches it.
        return false;
      }
      group.cursor = undefined;
      group.startLedger = Math.max(oldest, latest);
      return true;
    }
    group.cursor = undefined;
    group.startLedger = oldest;
    if (this.countSkipped(before + 1, oldest - 1) > 0)
      this.dependencies.log.warn(
        { resumedAt: oldest, lastRead: before },
        "the event cursor fell out of the RPC's retention window: events of the ledgers in between were never read",
      );
    return true;
  }

  /** Counts the ledgers `from` to `through` not counted before, and returns how many. Ranges below every group's
   * position can never be lost again and are forgotten. */
  private countSkipped(from: number, through: number): number {
    if (through < from) return 0;
    let added = through - from + 1;
    const merged = { from, through };
    const lowest = Math.min(...this.groups.map((group) => lastLedgerRead(group) - 1));
    const kept = this.skippedRanges.filter((range) => {
      if (range.through < lowest) return false;
      if (range.through < from - 1 || range.from > through + 1) return true;
      added -= Math.max(0, Math.min(range.through, through) - Math.max(range.from, from) + 1);
      merged.from = Math.min(merged.from, range.from);
      merged.through = Math.max(merged.through, range.through);
      return false;
    });
    this.skippedRanges = [...kept, merged];
    this.skippedLedgers += added;
    return added;
  }
}

/** The last ledger a group read, whole or (the last answer full) in part; before its start when it read nothing. */
function lastLedgerRead(group: Group): number {
  return group.cursor === undefined ? (group.startLedger ?? 1) - 1 : ledgerOfEventId(group.cursor);
}

/** Whether a Stellar RPC target counts any watched contract's events (of this shard's contracts). */
export function eventsWatched(target: { readonly contracts: readonly WatchedContract[] }): boolean {
  return target.contracts.some((contract) => contract.events === true);
}

export function contractEventsJob({ client, target, log }: RpcJobParts): ContractEventsJob {
  const contracts = target.contracts.filter((contract) => contract.events === true);
  return new ContractEventsJob(contracts, target.schedules.events, { client, log: log.child({ endpoint: "events" }) });
}
