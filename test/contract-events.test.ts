import { Address, Keypair, StrKey, xdr } from "@stellar/stellar-base";
import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  cursorBeforeLedger,
  type GetEventsAnswer,
  type GetEventsParams,
  type RpcContractEvent,
} from "../src/client/event-schemas.js";
import { RpcClient } from "../src/client/rpc-client.js";
import {
  ContractEventsJob,
  eventsRequestsPerPoll,
  topicLabel,
  TOPICS_PER_CONTRACT,
} from "../src/collectors/contract-events.js";
import { OTHER_LABEL } from "../src/collectors/label-text.js";
import type { WatchedContract } from "../src/config/contracts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import type { Sample } from "../src/exposition/samples.js";
import { eventId } from "../src/simulator/events.js";
import { FakeRpc as JsonRpcServer } from "./support/fake-rpc.js";
import { pollContext } from "./support/poll-context.js";

const SCHEDULE = parseSchedule("30s") as Schedule;
const contractId = (index: number) => StrKey.encodeContract(Buffer.alloc(32, index + 1));
const watched = (count: number, extra: Partial<WatchedContract> = {}): WatchedContract[] =>
  Array.from({ length: count }, (_, index) => ({
    name: `c${index}`,
    id: contractId(index),
    keys: [],
    events: true,
    ...extra,
  }));

const symbol = (text: string) => xdr.ScVal.scvSymbol(text).toXDR("base64");
const closedAt = (ledger: number) => new Date((1_800_000_000 + ledger * 5) * 1000).toISOString().replace(".000Z", "Z");

interface EventSpec {
  readonly ledger: number;
  readonly contract: number;
  readonly topic?: readonly string[];
  readonly type?: "contract" | "system";
  readonly successful?: boolean;
}

/**
 * A Stellar RPC of its own (not the simulator): events held in id order, served as stellar-rpc
 * does from a start ledger or after a cursor, within [oldest, latest].
 */
class FakeRpc {
  latest = 100;
  oldest = 1;
  readonly events: RpcContractEvent[] = [];
  readonly calls: GetEventsParams[] = [];
  /** Sends the previous page's last event again at the head of the next page, as an overlapping RPC might. */
  repeatLast = false;
  /** Hostile or broken: every watched contract's events whatever the filters, each page newest first. */
  ignoreFilters = false;
  newestFirst = false;
  /** The next answer only: this cursor, or this -32600 window. */
  nextCursor: string | undefined;
  nextWindow: { oldestLedger: number; latestLedger: number } | undefined;
  /** Calls from this one on fail, as an RPC that stops answering. */
  failFromCall = Number.POSITIVE_INFINITY;
  #lastSent: RpcContractEvent | undefined;
  #tx = 0;

  add(...specs: EventSpec[]): void {
    for (const spec of specs) {
      this.#tx += 1;
      this.events.push({
        type: spec.type ?? "contract",
        ledger: spec.ledger,
        ledgerClosedAt: closedAt(spec.ledger),
        contractId: contractId(spec.contract),
        id: eventId(spec.ledger, this.#tx % 4000, 0, 0),
        inSuccessfulContractCall: spec.successful ?? true,
        topic: [...(spec.topic ?? [symbol("transfer")])],
        value: xdr.ScVal.scvVoid().toXDR("base64"),
      });
    }
    this.events.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  readonly client = {
    call: async (_endpoint: string, method: string) => {
      expect(method).toBe("getLatestLedger");
      return { id: "ab", sequence: this.latest, protocolVersion: 23 };
    },
    getEvents: async (params: GetEventsParams): Promise<GetEventsAnswer> => {
      this.calls.push(structuredClone(params));
      if (this.calls.length >= this.failFromCall) throw new Error("the RPC stopped answering");
      const window = this.nextWindow;
      this.nextWindow = undefined;
      if (window !== undefined) return { kind: "out_of_range", ...window };
      const cursor = params.pagination.cursor;
      const start = cursor === undefined ? (params.startLedger ?? 0) : Number(BigInt(cursor.slice(0, 19)) >> 32n);
      if (start < this.oldest || start > this.latest)
        return { kind: "out_of_range", oldestLedger: this.oldest, latestLedger: this.latest };
      const ids = new Set(params.filters.flatMap((filter) => filter.contractIds));
      const matching = this.events.filter(
        (event) =>
          event.ledger >= start &&
          event.ledger <= this.latest &&
          (cursor === undefined || event.id > cursor) &&
          (this.ignoreFilters || ids.has(event.contractId)),
      );
      const page = matching.slice(0, params.pagination.limit);
      const full = page.length === params.pagination.limit;
      const sent = this.repeatLast && this.#lastSent !== undefined ? [this.#lastSent, ...page] : page;
      this.#lastSent = page.at(-1) ?? this.#lastSent;
      const nextCursor = this.nextCursor;
      this.nextCursor = undefined;
      return {
        kind: "events",
        events: this.newestFirst ? sent.toReversed() : sent,
        invalid: [],
        latestLedger: this.latest,
        cursor: nextCursor ?? (full ? (page.at(-1)?.id ?? "") : eventId(this.latest, 0xfffff, 0xfff, 0xffff_ffff)),
      };
    },
  };
}

function setup(contracts: readonly WatchedContract[]) {
  const rpc = new FakeRpc();
  const job = new ContractEventsJob(contracts, SCHEDULE, { client: rpc.client, log: pino({ level: "silent" }) });
  let invalid = 0;
  let answers = 0;
  const run = (): Promise<void> =>
    job.run({
      signal: new AbortController().signal,
      invalidRecords: (count) => (invalid += count),
      progressed: () => (answers += 1),
    });
  return { rpc, job, run, invalid: () => invalid, answers: () => answers };
}

function value(job: ContractEventsJob, name: string, labels: Record<string, string> = {}): number | undefined {
  const { live, persistent } = job.samples(true);
  const found = [...live, ...persistent].find(
    (sample: Sample) =>
      sample.metric.name === name &&
      Object.entries(labels).every(
        ([key, text]) => (sample.labels as Record<string, string> | undefined)?.[key] === text,
      ),
  );
  return found !== undefined && "value" in found ? found.value : undefined;
}

function total(job: ContractEventsJob, contract?: string): number {
  return job
    .samples(true)
    .persistent.filter(
      (sample) =>
        sample.metric.name === "stellar_rpc_contract_events_total" &&
        (contract === undefined || (sample.labels as Record<string, string>).contract === contract),
    )
    .reduce((sum, sample) => sum + ("value" in sample ? sample.value : 0), 0);
}

describe("the contract events job", () => {
  it("counts from the first poll's startLedger on, its first answer included, each event once across polls", async () => {
    const { rpc, job, run } = setup(watched(2));
    rpc.add({ ledger: 99, contract: 0 }, { ledger: 100, contract: 0 }, { ledger: 100, contract: 1 });
    await run();
    expect(rpc.calls[0]).toEqual({
      startLedger: 100,
      filters: [{ contractIds: [contractId(0), contractId(1)] }],
      pagination: { limit: 1000 },
    });
    expect(total(job)).toBe(2);
    rpc.add({ ledger: 101, contract: 0 }, { ledger: 102, contract: 1, topic: [symbol("mint")] });
    rpc.latest = 102;
    await run();
    await run();
    expect(
      rpc.calls.slice(1).every((call) => call.startLedger === undefined && call.pagination.cursor !== undefined),
    ).toBe(true);
    expect(
      value(job, "stellar_rpc_contract_events_total", { contract: "c0", type: "contract", topic: "transfer" }),
    ).toBe(2);
    expect(value(job, "stellar_rpc_contract_events_total", { contract: "c1", topic: "mint" })).toBe(1);
    expect(total(job)).toBe(4);
    expect(value(job, "stellar_rpc_contract_last_event_timestamp_seconds", { contract: "c1" })).toBe(
      Date.parse(closedAt(102)) / 1000,
    );
  });

  it("reads full pages on in the same poll, at most 10 calls a group, and counts repeated ids once", async () => {
    const { rpc, job, run } = setup(watched(1));
    rpc.repeatLast = true;
    await run();
    rpc.add(...Array.from({ length: 12_500 }, (_, index) => ({ ledger: 101 + Math.floor(index / 3000), contract: 0 })));
    rpc.latest = 110;
    await run();
    expect(rpc.calls.length).toBe(11);
    expect(total(job)).toBe(10_000);
    await run();
    expect(rpc.calls.length).toBe(14);
    expect(total(job)).toBe(12_500);
    await run();
    expect(total(job)).toBe(12_500);
    expect(rpc.calls.every((call) => !(call.startLedger !== undefined && call.pagination.cursor !== undefined))).toBe(
      true,
    );
  });

  it("takes ceil(contracts / 25) calls a poll: 30 contracts take 2, in filters of at most 5 ids, with no type", async () => {
    const contracts = watched(30);
    expect(eventsRequestsPerPoll(contracts)).toBe(2);
    const { rpc, job, run } = setup(contracts);
    rpc.add({ ledger: 100, contract: 29 });
    await run();
    await run();
    expect(rpc.calls.length).toBe(4);
    expect(job.requestsPerRun).toBe(2);
    const [first, second] = rpc.calls;
    expect(first?.filters.length).toBe(5);
    expect(second?.filters.map((filter) => filter.contractIds.length)).toEqual([5]);
    for (const call of rpc.calls) {
      for (const filter of call.filters) {
        expect(filter.contractIds.length).toBeLessThanOrEqual(5);
        expect(Object.keys(filter)).toEqual(["contractIds"]);
      }
    }
    expect(new Set(rpc.calls.flatMap((call) => call.filters.flatMap((filter) => filter.contractIds))).size).toBe(30);
    expect(total(job, "c29")).toBe(1);
  });

  it("decodes the first topic with the SDK and keeps 50 distinct topics a contract, the rest as other", async () => {
    const address = Address.fromString(Keypair.random().publicKey()).toScVal().toXDR("base64");
    expect(topicLabel([symbol("transfer"), address])).toBe("transfer");
    expect(topicLabel([xdr.ScVal.scvString("Deposit").toXDR("base64")])).toBe("Deposit");
    expect(topicLabel([address])).toBe("address");
    expect(topicLabel([xdr.ScVal.scvU32(7).toXDR("base64")])).toBe("u32");
    const i128 = xdr.ScVal.scvI128(
      new xdr.Int128Parts({ hi: xdr.Int64.fromString("0"), lo: xdr.Uint64.fromString("5") }),
    );
    expect(topicLabel([i128.toXDR("base64")])).toBe("i128");
    expect(topicLabel([xdr.ScVal.scvBool(true).toXDR("base64")])).toBe("bool");
    expect(topicLabel([])).toBe("none");
    // A symbol is decoded unchecked: its unreadable characters are replaced, as a string's are.
    expect(topicLabel([xdr.ScVal.scvSymbol('bad"sym\n\u0000').toXDR("base64")])).toBe('bad"sym\uFFFD\uFFFD');

    const { rpc, job, run, invalid } = setup(watched(1));
    await run();
    for (let index = 0; index < 60; index += 1) rpc.add({ ledger: 101, contract: 0, topic: [symbol(`t${index}`)] });
    rpc.add({ ledger: 102, contract: 0, topic: [symbol("t3")] }, { ledger: 102, contract: 0, topic: ["not xdr"] });
    rpc.latest = 102;
    await run();
    const series = job
      .samples(true)
      .persistent.filter((sample) => sample.metric.name === "stellar_rpc_contract_events_total");
    expect(series.length).toBe(TOPICS_PER_CONTRACT + 1);
    expect(value(job, "stellar_rpc_contract_events_total", { topic: OTHER_LABEL })).toBe(10);
    expect(value(job, "stellar_rpc_contract_events_total", { topic: "t3" })).toBe(2);
    expect(value(job, "stellar_rpc_contract_events_total", { topic: "t55" })).toBeUndefined();
    expect(invalid()).toBe(1);
  });

  it("counts a contract watched under two names under each, reading its id once", async () => {
    const { rpc, job, run } = setup([...watched(1), { name: "again", id: contractId(0), keys: [], events: true }]);
    rpc.add({ ledger: 100, contract: 0 });
    await run();
    expect(rpc.calls[0]?.filters).toEqual([{ contractIds: [contractId(0)] }]);
    expect([total(job, "c0"), total(job, "again")]).toEqual([1, 1]);
  });

  it("counts an upgrade once, failed-call events, and exports expect_events_within", async () => {
    const { rpc, job, run } = setup([
      ...watched(1, { expectEventsWithinSeconds: 3600 }),
      { name: "quiet", id: contractId(5), keys: [], events: true },
    ]);
    expect(value(job, "stellar_rpc_contract_upgrades_total", { contract: "c0" })).toBe(0);
    await run();
    const upgrade = [symbol("executable_update"), xdr.ScVal.scvVoid().toXDR("base64")];
    rpc.add(
      { ledger: 101, contract: 0, type: "system", topic: upgrade },
      { ledger: 101, contract: 0, successful: false },
      { ledger: 101, contract: 0, topic: upgrade },
    );
    rpc.repeatLast = true;
    rpc.latest = 101;
    await run();
    await run();
    expect(value(job, "stellar_rpc_contract_upgrades_total", { contract: "c0" })).toBe(1);
    expect(value(job, "stellar_rpc_contract_events_total", { type: "system", topic: "executable_update" })).toBe(1);
    expect(value(job, "stellar_rpc_contract_events_total", { type: "contract", topic: "executable_update" })).toBe(1);
    expect(value(job, "stellar_rpc_contract_failed_call_events_total", { contract: "c0" })).toBe(1);
    expect(value(job, "stellar_rpc_contract_events_expected_within_seconds", { contract: "c0" })).toBe(3600);
    expect(value(job, "stellar_rpc_contract_events_expected_within_seconds", { contract: "quiet" })).toBeUndefined();
    expect(value(job, "stellar_rpc_contract_last_event_timestamp_seconds", { contract: "quiet" })).toBeUndefined();
  });

  it("reports each getEvents answer as progress, so a poll of many groups keeps its deadline", async () => {
    const { rpc, run, answers } = setup(watched(60));
    await run();
    expect(rpc.calls).toHaveLength(3);
    expect(answers()).toBe(3);
  });

  it("restarts at oldestLedger when the cursor left retention, counting skipped ledgers once per target", async () => {
    const { rpc, job, run } = setup(watched(30));
    rpc.add({ ledger: 100, contract: 0 });
    await run();
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(0);
    // Unreachable for longer than the window: the cursors end at 100, the RPC now holds 150 to 400.
    rpc.add({ ledger: 120, contract: 0 }, { ledger: 150, contract: 0 }, { ledger: 151, contract: 26 });
    rpc.oldest = 150;
    rpc.latest = 400;
    const before = rpc.calls.length;
    await run();
    const calls = rpc.calls.slice(before);
    expect(calls.map((call) => [call.startLedger, call.pagination.cursor === undefined])).toEqual([
      [undefined, false],
      [150, true],
      [undefined, false],
      [150, true],
    ]);
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(150 - 100 - 1);
    expect(total(job)).toBe(3);
    await run();
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(49);
    expect(total(job)).toBe(3);
  });

  it("resumes at the RPC's latest ledger when its cursor is ahead of a replaced RPC, counting nothing twice", async () => {
    const { rpc, job, run } = setup(watched(1));
    rpc.add({ ledger: 100, contract: 0 });
    await run();
    rpc.latest = 90;
    await run();
    expect(rpc.calls.at(-1)?.startLedger).toBe(90);
    rpc.latest = 100;
    await run();
    expect(total(job)).toBe(1);
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(0);
  });

  it("counts a new chain's events after a network reset, though their ids are below the old chain's", async () => {
    const { rpc, job, run } = setup(watched(1));
    rpc.add({ ledger: 100, contract: 0 });
    await run();
    expect(total(job)).toBe(1);
    // Testnet reset: the RPC serves a new chain from genesis.
    rpc.events.length = 0;
    rpc.latest = 40;
    await run();
    expect(rpc.calls.at(-1)?.startLedger).toBe(40);
    rpc.add({ ledger: 41, contract: 0 }, { ledger: 42, contract: 0 }, { ledger: 45, contract: 0 });
    rpc.latest = 45;
    await run();
    expect(total(job)).toBe(4);
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(0);
    expect(value(job, "stellar_rpc_contract_last_event_timestamp_seconds")).toBe(Date.parse(closedAt(45)) / 1000);
  });

  it("counts each event once whatever an answer holds: other groups' contracts, or newest first", async () => {
    const { rpc, job, run } = setup(watched(30));
    await run();
    rpc.ignoreFilters = true;
    rpc.newestFirst = true;
    rpc.add(...[101, 102, 103, 104, 105].map((ledger) => ({ ledger, contract: 0 })), { ledger: 106, contract: 26 });
    rpc.latest = 110;
    await run();
    await run();
    expect(total(job, "c0")).toBe(5);
    expect(total(job, "c26")).toBe(1);
    expect(total(job)).toBe(6);
  });

  it("shows the newest event's close time as the last event's, not the latest time any event claimed", async () => {
    const { rpc, job, run } = setup(watched(1));
    await run();
    rpc.add({ ledger: 101, contract: 0 }, { ledger: 102, contract: 0 });
    const [first, second] = rpc.events;
    rpc.events[0] = { ...first!, ledgerClosedAt: "2999-01-01T00:00:00Z" };
    rpc.latest = 101;
    await run();
    expect(value(job, "stellar_rpc_contract_last_event_timestamp_seconds")).toBe(Date.UTC(2999, 0, 1) / 1000);
    rpc.latest = 102;
    await run();
    expect(value(job, "stellar_rpc_contract_last_event_timestamp_seconds")).toBe(
      Date.parse(second!.ledgerClosedAt) / 1000,
    );
  });

  it("refuses a cursor behind its start, and a window past the latest ledger, counting no ledger skipped", async () => {
    const { rpc, job, run } = setup(watched(1));
    rpc.oldest = 50;
    await run();
    rpc.nextCursor = "0000000000000000000-0000000000";
    await expect(run()).rejects.toThrow(/getEvents answered cursor 0000000000000000000-0000000000, outside/);
    rpc.nextWindow = { oldestLedger: 4_294_967_295, latestLedger: 4_294_967_295 };
    await expect(run()).rejects.toThrow(/window 4294967295 - 4294967295 starts past the latest ledger, 100/);
    rpc.add({ ledger: 101, contract: 0 });
    rpc.latest = 101;
    await run();
    expect(total(job)).toBe(1);
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(0);
  });

  /** 1 001 events in ledger 101: one full answer read, then the RPC stops answering with the cursor in that ledger. */
  async function readInPart() {
    const fixture = setup(watched(1));
    const { rpc, run } = fixture;
    await run();
    rpc.add(...Array.from({ length: 1001 }, () => ({ ledger: 101, contract: 0 })));
    rpc.latest = 101;
    rpc.failFromCall = rpc.calls.length + 2;
    await expect(run()).rejects.toThrow(/stopped answering/);
    rpc.failFromCall = Number.POSITIVE_INFINITY;
    return fixture;
  }

  it("counts a ledger read in part as skipped when retention passes it", async () => {
    const { rpc, job, run } = await readInPart();
    expect(total(job)).toBe(1000);
    // Retention moves past ledger 101.
    rpc.oldest = 102;
    rpc.latest = 103;
    await run();
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(1);
  });

  it.each([
    ["the first", 0],
    ["the second", 26],
  ])("counts a ledger once skipped when %s of two groups had read it in part", async (_, busy) => {
    const { rpc, job, run } = setup(watched(30));
    await run();
    // 12 000 events of one contract in ledgers 101 to 104: its group's 10 calls stop inside ledger 104, the other
    // group reads through 104.
    rpc.add(
      ...Array.from({ length: 12_000 }, (_, index) => ({ ledger: 101 + Math.floor(index / 3000), contract: busy })),
    );
    rpc.latest = 104;
    await run();
    expect(total(job)).toBe(10_000);
    // Retention passes ledger 109: 104 (read in part by one group) to 109 are lost, six ledgers in either order.
    rpc.oldest = 110;
    rpc.latest = 120;
    await run();
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(6);
  });

  it("waits for an RPC behind its first start rather than count events before it", async () => {
    const { rpc, job, run } = setup(watched(1));
    rpc.add({ ledger: 99, contract: 0 }, { ledger: 100, contract: 0 });
    // getLatestLedger came from a node at 100, getEvents from one still at 99.
    rpc.nextWindow = { oldestLedger: 1, latestLedger: 99 };
    await run();
    expect(total(job)).toBe(0);
    await run();
    expect(rpc.calls.map((call) => call.startLedger)).toEqual([100, 100]);
    expect(total(job)).toBe(1);
  });

  it("refuses a cursor past the RPC's latest ledger, which would later look like a network reset", async () => {
    const { rpc, job, run } = setup(watched(1));
    rpc.add({ ledger: 100, contract: 0 });
    await run();
    rpc.nextCursor = eventId(1_000_000_000, 0, 0, 0);
    await expect(run()).rejects.toThrow(/outside .* to its latest ledger/);
    rpc.add({ ledger: 101, contract: 0 });
    rpc.latest = 101;
    await run();
    expect(total(job)).toBe(2);
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(0);
  });

  it("a restart at a lagging node forgets that the last answer was full", async () => {
    const { rpc, job, run } = await readInPart();
    // A node at 99 answers first (restart at 99), then one whose window starts at 105: ledgers 99 to 104 are lost.
    rpc.nextWindow = { oldestLedger: 50, latestLedger: 99 };
    rpc.oldest = 105;
    rpc.latest = 110;
    await run();
    expect(value(job, "stellar_rpc_contract_events_skipped_ledgers_total")).toBe(6);
  });
  it("counts an invalid event once however often it is served, one without an id too", async () => {
    const server = new JsonRpcServer();
    const client = new RpcClient({ url: await server.start(), timeoutMs: 2_000, retries: 0, maxBodyBytes: 1 << 22 });
    try {
      // The server's getLatestLedger capture: the first poll starts there.
      const ledger = 1283415;
      const event = (tx: number, topic: string) => ({
        type: "contract",
        ledger,
        ledgerClosedAt: closedAt(ledger),
        contractId: contractId(0),
        id: eventId(ledger, tx, 0, 0),
        inSuccessfulContractCall: true,
        topic: [topic],
        value: xdr.ScVal.scvVoid().toXDR("base64"),
      });
      const valid = event(1, symbol("transfer"));
      const undecodable = event(2, "not xdr");
      const { id: _id, ...withoutId } = event(3, symbol("transfer"));
      const serve = (events: unknown[], cursor: string) =>
        server.answers.set("getEvents", { result: { events, latestLedger: ledger, cursor } });
      const job = new ContractEventsJob(watched(1), SCHEDULE, { client, log: pino({ level: "silent" }) });
      const context = pollContext();
      // An RPC whose cursor stays behind what it sent: the next poll gets the same events again.
      serve([valid, undecodable, withoutId], valid.id);
      await job.run(context);
      serve([undecodable, withoutId], valid.id);
      await job.run(context);
      expect([total(job), context.invalid]).toEqual([1, 2]);
      // Only an id-less event at the answer's head, and a cursor that never moves: once too.
      const quiet = new ContractEventsJob(watched(1), SCHEDULE, { client, log: pino({ level: "silent" }) });
      const quietContext = pollContext();
      serve([withoutId], cursorBeforeLedger(ledger));
      await quiet.run(quietContext);
      await quiet.run(quietContext);
      expect(quietContext.invalid).toBe(1);
      // A later id-less event, past the last one counted, is new.
      serve([withoutId, withoutId], cursorBeforeLedger(ledger));
      await quiet.run(quietContext);
      expect(quietContext.invalid).toBe(2);
    } finally {
      await server.stop();
    }
  });
});
