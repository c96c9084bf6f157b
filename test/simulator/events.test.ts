import { scValToNative } from "@stellar/stellar-sdk";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/client/rpc-client.js";
import { ContractEventsJob, topicLabel } from "../../src/collectors/contract-events.js";
import { parseSchedule, type Schedule } from "../../src/config/schedule.js";
import type { Simulator } from "../../src/simulator/index.js";
import { listen } from "../../src/server/listen.js";
import { RPC_PATH } from "../../src/simulator/index.js";
import type { WireEvent } from "../../src/simulator/events.js";
import { rpcFixtureJson } from "../support/fixtures.js";
import { getJson, sdkRpcServer, simulatorAt, typeSignature } from "./helpers.js";
import { onTestFinished } from "vitest";
import { pollContext } from "../support/poll-context.js";

async function rpcCall(simulator: Simulator, method: string, params?: unknown): Promise<Record<string, any>> {
  const { body } = await getJson(simulator, RPC_PATH, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  return body;
}

const demoIds = (simulator: Simulator) => simulator.contracts.demo.map(({ id }) => id);

async function latestLedger(simulator: Simulator): Promise<number> {
  return (await rpcCall(simulator, "getLatestLedger")).result.sequence;
}

/** Every event of the demo contracts in [from, to], read a ledger at a time. */
async function eventsBetween(simulator: Simulator, from: number, to: number): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  let answer = await rpcCall(simulator, "getEvents", {
    startLedger: from,
    filters: [{ contractIds: demoIds(simulator) }],
    pagination: { limit: 10_000 },
  });
  events.push(...answer.result.events);
  while (answer.result.events.length === 10_000) {
    answer = await rpcCall(simulator, "getEvents", {
      filters: [{ contractIds: demoIds(simulator) }],
      pagination: { limit: 10_000, cursor: answer.result.cursor },
    });
    events.push(...answer.result.events);
  }
  return events.filter((event) => event.ledger <= to);
}

describe("the simulated Stellar RPC's getEvents", () => {
  it("answers in stellar-rpc v23+ wire format, as the docs' capture is", async () => {
    const { simulator } = simulatorAt();
    const latest = await latestLedger(simulator);
    const answer = await rpcCall(simulator, "getEvents", {
      startLedger: latest - 20,
      filters: [{ contractIds: demoIds(simulator) }],
      pagination: { limit: 3 },
    });
    const fixture = rpcFixtureJson("getEvents-result-stellar-docs.json") as Record<string, any>;
    expect(typeSignature(answer.result)).toEqual(typeSignature(fixture));
    const [first] = answer.result.events as WireEvent[];
    expect(first?.id).toMatch(/^\d{19}-\d{10}$/);
    expect(first?.ledgerClosedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const horizon = (await getJson(simulator, `/ledgers/${first?.ledger}`)).body;
    expect(first?.ledgerClosedAt).toBe(horizon.closed_at);
    expect(answer.result.cursor).toBe(answer.result.events[2].id);
    expect(typeof answer.result.latestLedgerCloseTime).toBe("string");

    // Below the limit, the cursor is the end of the scanned window: its last ledger, past every event.
    const rest = await rpcCall(simulator, "getEvents", {
      filters: [{ contractIds: demoIds(simulator) }],
      pagination: { cursor: answer.result.cursor, limit: 1000 },
    });
    expect(rest.result.events.length).toBeLessThan(1000);
    expect(Number(BigInt(rest.result.cursor.slice(0, 19)) >> 32n)).toBe(latest);
    expect(rest.result.cursor > rest.result.events.at(-1).id).toBe(true);
    const again = await rpcCall(simulator, "getEvents", {
      filters: [{ contractIds: demoIds(simulator) }],
      pagination: { cursor: rest.result.cursor, limit: 1000 },
    });
    expect(again.result.events).toEqual([]);
  });

  it("answers stellar-rpc's errors: -32600 outside retention with its message, -32602 for bad params", async () => {
    const { simulator } = simulatorAt();
    const latest = await latestLedger(simulator);
    const oldest = simulator.state().historyElderLedger;
    const outside = await rpcCall(simulator, "getEvents", { startLedger: oldest - 1, filters: [] });
    const expected = rpcFixtureJson("getEvents-error-startLedger-out-of-range-stellar-rpc-src.json") as any;
    expect(outside.error.code).toBe(expected.error.code);
    expect(outside.error.message).toBe(`startLedger must be within the ledger range: ${oldest} - ${latest}`);
    const ahead = await rpcCall(simulator, "getEvents", { startLedger: latest + 1 });
    expect(ahead.error.code).toBe(-32600);
    const both = await rpcCall(simulator, "getEvents", {
      startLedger: latest,
      pagination: { cursor: "0000000000000000001-0000000000" },
    });
    expect(both.error).toEqual(
      (rpcFixtureJson("getEvents-error-cursor-and-startLedger-stellar-rpc-src.json") as any).error,
    );
    const sixFilters = await rpcCall(simulator, "getEvents", {
      startLedger: latest,
      filters: Array.from({ length: 6 }, () => ({ contractIds: demoIds(simulator) })),
    });
    expect(sixFilters.error).toEqual({ code: -32602, message: "maximum 5 filters per request" });
    const sixIds = await rpcCall(simulator, "getEvents", {
      startLedger: latest,
      filters: [{ contractIds: Array.from({ length: 6 }, () => demoIds(simulator)[0]) }],
    });
    expect(sixIds.error.code).toBe(-32602);
    const tooMany = await rpcCall(simulator, "getEvents", { startLedger: latest, pagination: { limit: 10_001 } });
    expect(tooMany.error).toEqual({ code: -32602, message: "limit must not exceed 10000" });
    const none = await rpcCall(simulator, "getEvents", {});
    expect(none.error).toEqual({ code: -32602, message: "startLedger must be positive" });
    // An old cursor is out of range too, and its message names the window.
    const oldCursor = await rpcCall(simulator, "getEvents", {
      pagination: { cursor: "0000004294967296000-0000000000" },
    });
    expect(oldCursor.error.code).toBe(-32600);
  });

  it("works with the official SDK's rpc.Server.getEvents", async () => {
    const { simulator } = simulatorAt();
    const server = await sdkRpcServer(simulator);
    const latest = await server.getLatestLedger();
    const answer = await server.getEvents({
      startLedger: latest.sequence - 30,
      filters: [{ contractIds: demoIds(simulator) }],
      limit: 50,
    });
    expect(answer.events.length).toBeGreaterThan(0);
    const topics = new Set(answer.events.map((event) => scValToNative(event.topic[0]!)));
    expect(topics).toEqual(new Set(["transfer", "mint"]));
    const next = await server.getEvents({ cursor: answer.cursor, filters: [{ contractIds: demoIds(simulator) }] });
    expect(next.latestLedger).toBe(latest.sequence);
  });

  it("the demo contracts emit transfer and mint, no upgrade until contract_upgrade asks, then exactly one", async () => {
    const { simulator, clock } = simulatorAt();
    const start = await latestLedger(simulator);
    // An hour of the demo: no upgrade, so StellarContractUpgraded stays quiet.
    clock.tick(720 * 5000);
    const quiet = await eventsBetween(simulator, start, await latestLedger(simulator));
    expect(quiet.filter((event) => event.type === "system")).toEqual([]);
    simulator.setScenario("contract_upgrade");
    clock.tick(10 * 5000);
    simulator.setScenario("healthy");
    simulator.setScenario("contract_upgrade");
    clock.tick(10 * 5000);
    const latest = await latestLedger(simulator);
    const events = await eventsBetween(simulator, start, latest);
    const [counter, usdc] = simulator.contracts.demo;
    const kinds = (contract: string) =>
      new Set(
        events
          .filter((event) => event.contractId === contract)
          .map((event) => `${event.type}:${topicLabel(event.topic)}`),
      );
    expect(kinds(usdc!.id)).toEqual(new Set(["contract:transfer", "contract:mint"]));
    expect(kinds(counter!.id)).toEqual(new Set(["contract:transfer", "system:executable_update"]));
    expect(events.filter((event) => event.type === "system").length).toBe(1);
    expect(events.some((event) => !event.inSuccessfulContractCall)).toBe(true);
  });

  it("the counter falls silent in contract_silent", async () => {
    const { simulator, clock } = simulatorAt();
    const [counter, usdc] = simulator.contracts.demo;
    simulator.setScenario("contract_silent");
    const silentFrom = (await latestLedger(simulator)) + 1;
    clock.tick(20 * 5000);
    const after = await eventsBetween(simulator, silentFrom, await latestLedger(simulator));
    expect(after.filter((event) => event.contractId === counter!.id)).toEqual([]);
    expect(after.filter((event) => event.contractId === usdc!.id).length).toBeGreaterThan(0);
  });

  it("the exporter's job counts exactly the events served from its first startLedger on", async () => {
    const { simulator, clock } = simulatorAt();
    const http = await listen(simulator.app, "127.0.0.1", 0);
    onTestFinished(() => http.close());
    const client = new RpcClient({
      url: `${http.url}${RPC_PATH}`,
      timeoutMs: 2_000,
      retries: 0,
      maxBodyBytes: 1 << 22,
    });
    const contracts = simulator.contracts.demo.map(({ name, id }) => ({ name, id, keys: [], events: true }));
    const job = new ContractEventsJob(contracts, parseSchedule("30s") as Schedule, {
      client,
      log: pino({ level: "silent" }),
    });
    const run = () => job.run(pollContext());
    const start = await latestLedger(simulator);
    await run();
    for (let poll = 0; poll < 5; poll += 1) {
      if (poll === 2) simulator.setScenario("contract_upgrade");
      clock.tick(7 * 5000);
      await run();
    }
    const latest = await latestLedger(simulator);
    const served = await eventsBetween(simulator, start, latest);
    const counted = job
      .samples(true)
      .persistent.filter((sample) => sample.metric.name === "stellar_rpc_contract_events_total")
      .reduce((sum, sample) => sum + ("value" in sample ? sample.value : 0), 0);
    expect(counted).toBe(served.length);
    const upgrades = job
      .samples(true)
      .persistent.find(
        (sample) =>
          sample.metric.name === "stellar_rpc_contract_upgrades_total" &&
          (sample.labels as Record<string, string> | undefined)?.contract === "counter",
      );
    expect(upgrades && "value" in upgrades ? upgrades.value : undefined).toBe(1);
  });
});
