/**
 * The demo contracts' events as getEvents serves them (stellar-rpc v23+ wire format): the USDC
 * asset contract emits `transfer` and `mint`, the counter `transfer` (some in failed calls);
 * `contract_upgrade` has the counter emit, once, the `executable_update` system event of an upgrade;
 * `contract_silent` silences the counter.
 * Events are a pure function of the ledger, so any window asked for is the same every time.
 */

import { createHash } from "node:crypto";
import { Address, xdr } from "@stellar/stellar-base";
import { HOT_WALLET, USDC_ISSUER } from "./demo-accounts.js";

export interface DemoContract {
  /** The `contract` label the demo gives it. */
  readonly name: string;
  readonly id: string;
  /** Configured storage keys: name and base64 SCVal. */
  readonly keys: readonly { readonly name: string; readonly key: string }[];
}

/** getEvents' limits: the default and largest `pagination.limit`, filters and ids per filter. */
export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 10_000;
const MAX_FILTERS = 5;
const MAX_CONTRACT_IDS = 5;
/** Ledgers one call scans at most; the cursor then points at the end of the scanned window. */
export const EVENTS_LEDGER_SCAN_LIMIT = 10_000;

const TOID_LEDGER_SHIFT = 32n;
const TOID_TX_SHIFT = 12n;
/** The cursor at the end of a window: the last ledger's highest transaction, operation and event. */
const MAX_TX = 0xf_ffffn;
const MAX_OP = 0xfffn;
const MAX_EVENT = 0xffff_ffff;

export interface WireEvent {
  readonly type: "contract" | "system";
  readonly ledger: number;
  readonly ledgerClosedAt: string;
  readonly contractId: string;
  readonly id: string;
  readonly transactionIndex: number;
  readonly operationIndex: number;
  readonly inSuccessfulContractCall: boolean;
  readonly topic: readonly string[];
  readonly value: string;
  readonly txHash: string;
}

/** `%019d-%010d` of a TOID and an event index. */
export function eventId(ledger: number, tx: number, op: number, event: number): string {
  const toid = (BigInt(ledger) << TOID_LEDGER_SHIFT) | (BigInt(tx) << TOID_TX_SHIFT) | BigInt(op);
  return `${toid.toString().padStart(19, "0")}-${String(event).padStart(10, "0")}`;
}

function endOfLedgerCursor(ledger: number): string {
  const toid = (BigInt(ledger) << TOID_LEDGER_SHIFT) | (MAX_TX << TOID_TX_SHIFT) | MAX_OP;
  return `${toid.toString().padStart(19, "0")}-${String(MAX_EVENT).padStart(10, "0")}`;
}

function ledgerOf(cursor: string): number {
  return Number(BigInt(cursor.slice(0, 19)) >> TOID_LEDGER_SHIFT);
}

const base64 = (value: xdr.ScVal) => value.toXDR("base64");
const symbol = (text: string) => base64(xdr.ScVal.scvSymbol(text));
const address = (strKey: string) => base64(Address.fromString(strKey).toScVal());
const amount = (stroops: number) =>
  base64(
    xdr.ScVal.scvI128(
      new xdr.Int128Parts({ hi: xdr.Int64.fromString("0"), lo: xdr.Uint64.fromString(String(stroops)) }),
    ),
  );

/** One event of a ledger before its close time is known. */
interface LedgerEvent {
  readonly type: "contract" | "system";
  readonly contractId: string;
  readonly tx: number;
  readonly event: number;
  readonly successful: boolean;
  readonly topic: readonly string[];
  readonly value: string;
}

export type EventsAnswer = { result: unknown } | { error: { code: number; message: string } };

export class SimulatedEvents {
  readonly #usdc: string;
  readonly #counter: string;
  /** The ledger of the counter's one upgrade (`contract_upgrade`); none until the scenario asks. */
  #upgradeLedger = Infinity;
  /** From this ledger on the counter emits nothing (`contract_silent`). */
  #silentFrom = Infinity;
  readonly #topics: {
    readonly usdcTransfer: readonly string[];
    readonly usdcMint: readonly string[];
    readonly counterTransfer: readonly string[];
    readonly upgrade: readonly string[];
  };

  constructor(demo: readonly DemoContract[]) {
    const counter = demo.find(({ name }) => name === "counter") ?? demo[0];
    const usdc = demo.find(({ name }) => name === "usdc") ?? demo[0];
    if (counter === undefined || usdc === undefined) throw new Error("the demo has no contract to emit events");
    this.#counter = counter.id;
    this.#usdc = usdc.id;
    const asset = base64(xdr.ScVal.scvString(`USDC:${USDC_ISSUER}`));
    const wasm = (seed: string) => base64(xdr.ScVal.scvBytes(createHash("sha256").update(seed).digest()));
    this.#topics = {
      usdcTransfer: [symbol("transfer"), address(HOT_WALLET), address(USDC_ISSUER), asset],
      usdcMint: [symbol("mint"), address(USDC_ISSUER), address(HOT_WALLET), asset],
      counterTransfer: [symbol("transfer"), address(HOT_WALLET), address(this.#counter)],
      upgrade: [symbol("executable_update"), wasm("demo wasm v1"), wasm("demo wasm v2")],
    };
  }

  /** `contract_upgrade`: the counter's code is replaced in `ledger`, once; a later call changes nothing. */
  upgrade(ledger: number): void {
    if (this.#upgradeLedger === Infinity) this.#upgradeLedger = ledger;
  }

  /** `contract_silent`: the counter emits no event from `ledger` on. */
  silence(ledger: number): void {
    this.#silentFrom = Math.min(this.#silentFrom, ledger);
  }

  /** The events of one ledger, in id order. */
  ledgerEvents(ledger: number): LedgerEvent[] {
    const events: LedgerEvent[] = [];
    let tx = 0;
    const emit = (contractId: string, topic: readonly string[], value: string, successful = true) => {
      tx += 1;
      events.push({ type: "contract", contractId, tx, event: 0, successful, topic, value });
    };
    for (let transfer = 0; transfer < ledger % 3; transfer += 1)
      emit(this.#usdc, this.#topics.usdcTransfer, amount(1_000_000 * (transfer + 1)));
    if (ledger % 5 === 0) emit(this.#usdc, this.#topics.usdcMint, amount(50_000_000));
    if (ledger < this.#silentFrom) {
      if (ledger % 2 === 0) emit(this.#counter, this.#topics.counterTransfer, amount(10), ledger % 6 !== 0);
      if (ledger === this.#upgradeLedger) {
        tx += 1;
        events.push({
          type: "system",
          contractId: this.#counter,
          tx,
          event: 0,
          successful: true,
          topic: this.#topics.upgrade,
          value: base64(xdr.ScVal.scvVoid()),
        });
      }
    }
    return events;
  }

  /**
   * getEvents over [oldest, latest] as stellar-rpc answers it: -32602 for bad parameters, -32600
   * when the start (or the cursor's ledger) lies outside the window.
   */
  answer(
    params: unknown,
    window: { readonly oldest: number; readonly latest: number; closedAt(ledger: number): string },
  ): EventsAnswer {
    const request = parseRequest(params);
    if ("error" in request) return { error: { code: -32602, message: request.error } };
    const start = request.cursor === undefined ? request.startLedger : ledgerOf(request.cursor);
    if (start < window.oldest || start > window.latest) {
      const message = `startLedger must be within the ledger range: ${window.oldest} - ${window.latest}`;
      return { error: { code: -32600, message } };
    }
    const end = Math.min(start + EVENTS_LEDGER_SCAN_LIMIT, window.latest + 1);
    const events: WireEvent[] = [];
    for (let ledger = start; ledger < end && events.length < request.limit; ledger += 1) {
      for (const event of this.ledgerEvents(ledger)) {
        if (request.contractIds !== undefined && !request.contractIds.has(event.contractId)) continue;
        const id = eventId(ledger, event.tx, 0, event.event);
        if (request.cursor !== undefined && id <= request.cursor) continue;
        events.push(wireEvent(ledger, window.closedAt(ledger), id, event));
        if (events.length === request.limit) break;
      }
    }
    const cursor = events.length === request.limit ? (events.at(-1)?.id ?? "") : endOfLedgerCursor(end - 1);
    return {
      result: {
        events,
        latestLedger: window.latest,
        oldestLedger: window.oldest,
        latestLedgerCloseTime: unixSeconds(window.closedAt(window.latest)),
        oldestLedgerCloseTime: unixSeconds(window.closedAt(window.oldest)),
        cursor,
      },
    };
  }
}

function unixSeconds(rfc3339: string): string {
  return String(Math.floor(Date.parse(rfc3339) / 1000));
}

function wireEvent(ledger: number, closedAt: string, id: string, event: LedgerEvent): WireEvent {
  return {
    type: event.type,
    ledger,
    ledgerClosedAt: closedAt,
    contractId: event.contractId,
    id,
    transactionIndex: event.tx,
    operationIndex: 0,
    inSuccessfulContractCall: event.successful,
    topic: event.topic,
    value: event.value,
    txHash: createHash("sha256").update(`${ledger}-${event.tx}`).digest("hex"),
  };
}

interface EventsRequest {
  readonly startLedger: number;
  readonly cursor?: string;
  readonly limit: number;
  /** Undefined: no filter, every contract. */
  readonly contractIds?: ReadonlySet<string>;
}

/** The parameters as stellar-rpc's GetEventsRequest.Valid() checks them, with its messages. */
function parseRequest(params: unknown): EventsRequest | { readonly error: string } {
  const { startLedger, endLedger, filters, pagination } = (params ?? {}) as Record<string, unknown>;
  const { cursor, limit } = (pagination ?? {}) as Record<string, unknown>;
  if (cursor !== undefined && (startLedger !== undefined || endLedger !== undefined))
    return { error: "ledger ranges and cursor cannot both be set" };
  if (cursor !== undefined && (typeof cursor !== "string" || !/^\d{19}-\d{10}$/.test(cursor)))
    return { error: `invalid cursor: ${JSON.stringify(cursor)}` };
  if (cursor === undefined && !(Number.isInteger(startLedger) && (startLedger as number) > 0))
    return { error: "startLedger must be positive" };
  const pageLimit = limit === undefined ? EVENTS_DEFAULT_LIMIT : limit;
  if (!(Number.isInteger(pageLimit) && (pageLimit as number) > 0)) return { error: "limit must be positive" };
  if ((pageLimit as number) > EVENTS_MAX_LIMIT) return { error: `limit must not exceed ${EVENTS_MAX_LIMIT}` };
  if (filters !== undefined && !Array.isArray(filters)) return { error: "filters must be a list" };
  const list = (filters ?? []) as unknown[];
  if (list.length > MAX_FILTERS) return { error: `maximum ${MAX_FILTERS} filters per request` };
  // No filter, or a filter naming no contract, matches every contract.
  let everyContract = list.length === 0;
  const contractIds = new Set<string>();
  for (const [index, filter] of list.entries()) {
    const ids = (filter as { contractIds?: unknown } | null)?.contractIds;
    if (ids === undefined) {
      everyContract = true;
      continue;
    }
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string"))
      return { error: `filter ${index + 1} invalid: contractIds must be a list of contract ids` };
    if (ids.length > MAX_CONTRACT_IDS)
      return { error: `filter ${index + 1} invalid: maximum ${MAX_CONTRACT_IDS} contract IDs per filter` };
    for (const id of ids) contractIds.add(id as string);
  }
  return {
    startLedger: startLedger as number,
    ...(cursor === undefined ? {} : { cursor: cursor as string }),
    limit: pageLimit as number,
    ...(everyContract ? {} : { contractIds }),
  };
}
