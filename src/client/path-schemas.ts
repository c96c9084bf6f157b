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

export const pathRecordSchema = pathPairSchema
  .extend({
    source_amount: pathAmount,
    destination_amount: pathAmount,
    // A path holds at most 5 intermediate assets (the protocol's limit for path payments).
    path: z.array(z.object(assetFields("", assetType))).max(5),
  })
  .check((ctx) => {
    // A credit asset without its code or issuer cannot be told apart: the record would be dropped uncounted.
    for (const side of ["source", "destination"] as const) {
      const record = ctx.value;
      const type = record[`${side}_asset_type`];
      if (assetOf(type, record[`${side}_asset_code`], record[`${side}_asset_issuer`]) !== undefined) continue;
      const message = `expected the ${side} asset's code and issuer for a ${type} asset`;
      ctx.issues.push({ code: "custom", message, input: record, path: [`${side}_asset_code`] });
    }
  });
export type PathRecord = z.output<typeof pathRecordSchema>;
