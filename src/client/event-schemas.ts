/**
 * getEvents as stellar-rpc v23+ sends it (see test/fixtures/stellar-rpc/getEvents-*.json): an
 * event's `id` and the response's `cursor` are `%019d-%010d` (a TOID and an event index),
 * `ledgerClosedAt` is RFC3339, topics and value base64 XDR ScVals. Unknown fields are ignored.
 */
import { z } from "zod";
import { nonNegativeInt } from "./wire-values.js";

/** `%019d-%010d`: fixed width, so ids compare in event order as text. */
const eventId = z.string().regex(/^\d{19}-\d{10}$/, "expected %019d-%010d");

/** The event types a getEvents filter without `type` returns. */
const EVENT_TYPES = ["contract", "system"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One event; checked alone, so one bad event is counted invalid and left out, never the whole call. */
export const contractEventSchema = z.object({
  type: z.enum(EVENT_TYPES),
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

/** A getEvents call's answer: its valid events, or the RPC's retention window when the start fell outside it. */
export type GetEventsAnswer =
  | {
      readonly kind: "events";
      readonly events: readonly RpcContractEvent[];
      /** Events of the response that failed the schema, left out. */
      readonly invalid: number;
      readonly latestLedger: number;
      readonly cursor: string;
    }
  | { readonly kind: "out_of_range"; readonly oldestLedger: number; readonly latestLedger: number };

/** stellar-rpc's -32600 message when the start (a cursor's ledger included) lies outside its window. */
const OUT_OF_RANGE = /startLedger must be within the ledger range: (\d+) - (\d+)/;

/** The window named by an out-of-range error, or undefined for any other error. */
export function outOfRangeWindow(code: number, message: string) {
  const match = code === -32600 ? OUT_OF_RANGE.exec(message) : null;
  return match === null ? undefined : { oldestLedger: Number(match[1]), latestLedger: Number(match[2]) };
}

/** The ledger of an event id or cursor: the TOID's upper 32 bits. */
export function ledgerOfEventId(id: string): number {
  return Number(BigInt(id.slice(0, 19)) >> 32n);
}
