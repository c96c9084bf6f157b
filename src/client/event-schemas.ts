/** getEvents as stellar-rpc v23+ sends it (fixtures/stellar-rpc/getEvents-*): topic and value are base64 XDR ScVals. */
import { z } from "zod";
import { nonNegativeInt } from "./wire-values.js";

/** A TOID and an event index, fixed width, so ids compare in event order as text. */
const eventId = z.string().regex(/^\d{19}-\d{10}$/, "expected %019d-%010d");

/** The event types a getEvents filter without `type` returns. */
const eventType = z.enum(["contract", "system"]);
export type EventType = z.output<typeof eventType>;

/** One event; checked alone, so one bad event is counted invalid and left out, never the whole call. */
export const contractEventSchema = z.object({
  type: eventType,
  ledger: nonNegativeInt,
  ledgerClosedAt: z.string().refine((text) => !Number.isNaN(Date.parse(text)), "expected an RFC3339 time"),
  contractId: z.string(),
  id: eventId,
  /** Deprecated in v23 and still sent; absent on an RPC that dropped it. */
  inSuccessfulContractCall: z.boolean().optional(),
  topic: z.array(z.string()),
  value: z.string(),
});
export type RpcContractEvent = z.output<typeof contractEventSchema>;

/** The result around the events, which are validated one by one. */
export const eventsResultSchema = z.object({
  events: z.array(z.unknown()).nullable(),
  latestLedger: nonNegativeInt,
  oldestLedger: nonNegativeInt.optional(),
  cursor: eventId,
});

/** What a getEvents call's parameters may hold: a cursor or a start ledger, never both. */
export interface GetEventsParams {
  readonly startLedger?: number;
  readonly filters: readonly { readonly contractIds: readonly string[] }[];
  readonly pagination: { readonly limit: number; readonly cursor?: string };
}

/** Where an event stands in its answer, for it to be counted once however often it is served: its well-formed id
 * (`nth` 0), or for one without, the `nth` such since the last id before it (`after` undefined: the call's start). */
export interface EventPlace {
  readonly after: string | undefined;
  readonly nth: number;
}

/** Each event's place in an answer's events, in their order. */
export function eventPlaces(events: readonly unknown[]): EventPlace[] {
  let place: EventPlace = { after: undefined, nth: 0 };
  return events.map((event) => {
    const id = eventId.safeParse((event as { id?: unknown } | null)?.id);
    place = id.success ? { after: id.data, nth: 0 } : { after: place.after, nth: place.nth + 1 };
    return place;
  });
}

/** getEvents' valid events and the places of those left out as invalid, or the RPC's window when the start fell
 * outside it. */
export type GetEventsAnswer =
  | {
      kind: "events";
      events: readonly RpcContractEvent[];
      invalid: readonly EventPlace[];
      latestLedger: number;
      cursor: string;
    }
  | { kind: "out_of_range"; oldestLedger: number; latestLedger: number };

/** The ledger of an event id or cursor: the TOID's upper 32 bits. */
export function ledgerOfEventId(id: string): number {
  return Number(BigInt(id.slice(0, 19)) >> 32n);
}

/** The cursor just before `ledger`'s first event: its TOID with only the ledger set. */
export function cursorBeforeLedger(ledger: number): string {
  return `${(BigInt(Math.max(0, ledger)) << 32n).toString().padStart(19, "0")}-0000000000`;
}
