/**
 * Horizon's path-finding answers (`/paths/strict-send`, `/paths/strict-receive`): a page of
 * records without `_links`, each a payment path from one asset to another with both amounts.
 */
import { z } from "zod";
import { accountKey, amount, assetCode } from "./wire-values.js";

const assetType = z.enum(["native", "credit_alphanum4", "credit_alphanum12"]);

/** An asset as Horizon spells it in a path: `native`, or its type, code and issuer. */
const pathAsset = z.object({
  asset_type: assetType,
  asset_code: assetCode.optional(),
  asset_issuer: accountKey.optional(),
});

/** `native` or `CODE:ISSUER`, as the config names assets; undefined for a credit asset missing its code or issuer. */
export function assetOf(type: string, code: string | undefined, issuer: string | undefined): string | undefined {
  if (type === "native") return "native";
  return code === undefined || issuer === undefined ? undefined : `${code}:${issuer}`;
}

export const pathRecordSchema = z.object({
  source_asset_type: assetType,
  source_asset_code: assetCode.optional(),
  source_asset_issuer: accountKey.optional(),
  source_amount: amount,
  destination_asset_type: assetType,
  destination_asset_code: assetCode.optional(),
  destination_asset_issuer: accountKey.optional(),
  destination_amount: amount,
  // A path holds at most 5 intermediate assets (the protocol's limit for path payments).
  path: z.array(pathAsset).max(5),
});
export type PathRecord = z.output<typeof pathRecordSchema>;
