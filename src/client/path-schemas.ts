/** Horizon's `/paths/strict-send` and `/paths/strict-receive` records: a payment path, with both amounts. */
import { z } from "zod";
import { amount, assetFields, assetType } from "./wire-values.js";

/** `native` or `CODE:ISSUER`, as the config names assets; undefined for a credit asset missing its code or issuer. */
export function assetOf(type: string, code: string | undefined, issuer: string | undefined): string | undefined {
  if (type === "native") return "native";
  return code === undefined || issuer === undefined ? undefined : `${code}:${issuer}`;
}

/** A path moves something at each end: a zero amount would publish a rate of 0, or a best amount of 0. */
const pathAmount = amount.refine((value) => value > 0, "expected an amount above 0");

/** A record's two assets alone: read again from a record failing its schema, to tell whose pair it was. */
export const pathPairSchema = z.object({
  ...assetFields("source_", assetType),
  ...assetFields("destination_", assetType),
});
export type PathPair = z.output<typeof pathPairSchema>;

export const pathRecordSchema = pathPairSchema.extend({
  source_amount: pathAmount,
  destination_amount: pathAmount,
  // A path holds at most 5 intermediate assets (the protocol's limit for path payments).
  path: z.array(z.object(assetFields("", assetType))).max(5),
});
export type PathRecord = z.output<typeof pathRecordSchema>;
