/** Horizon's `/assets` records: each part of the supply and each holder count is absent before its version. */
import { z } from "zod";
import { ACCOUNT_FLAGS } from "./account-schemas.js";
import { accountKey, amountStroops, assetCode, nonNegativeInt } from "./wire-values.js";

/** A part of an asset's supply: a sum over all its holders, so it may exceed int64 stroops; never a megabyte BigInt. */
const assetAmount = z
  .string()
  .max(40, "amount too long")
  .regex(/^\d+\.\d{7}$/, "expected an amount with exactly 7 decimals as a string")
  .transform((text) => amountStroops(text));

/** The kinds of holder `/assets` splits a supply and its holder counts into: the `held_by` label. */
export const HELD_BY = [
  "authorized",
  "authorized_to_maintain_liabilities",
  "unauthorized",
  "claimable_balances",
  "liquidity_pools",
  "contracts",
] as const;
type HeldBy = (typeof HELD_BY)[number];

/** An asset's flags are its issuer account's. */
export const ASSET_FLAGS = ACCOUNT_FLAGS;

const byAuthorization = <T extends z.ZodType>(value: T) =>
  z.object({
    authorized: value.optional(),
    authorized_to_maintain_liabilities: value.optional(),
    unauthorized: value.optional(),
  });

export const assetRecordSchema = z
  .object({
    asset_code: assetCode,
    asset_issuer: accountKey,
    /** The asset's Stellar Asset Contract, only where one is deployed (Horizon 2.27+). */
    contract_id: z
      .string()
      .regex(/^C[A-Z2-7]{55}$/, "expected a contract id (C...)")
      .optional(),
    accounts: byAuthorization(nonNegativeInt).optional(),
    balances: byAuthorization(assetAmount).optional(),
    claimable_balances_amount: assetAmount.optional(),
    liquidity_pools_amount: assetAmount.optional(),
    contracts_amount: assetAmount.optional(),
    num_claimable_balances: nonNegativeInt.optional(),
    num_liquidity_pools: nonNegativeInt.optional(),
    num_contracts: nonNegativeInt.optional(),
    flags: z.object({
      auth_required: z.boolean(),
      auth_revocable: z.boolean(),
      auth_immutable: z.boolean(),
      // Protocol 17 (Horizon 2.1) added clawback; an older Horizon does not send it.
      auth_clawback_enabled: z.boolean().optional(),
    }),
  })
  .transform((record) => ({
    code: record.asset_code,
    issuer: record.asset_issuer,
    contractId: record.contract_id ?? "",
    /** Each part of the supply Horizon sent, in stroops. */
    amounts: {
      ...record.balances,
      claimable_balances: record.claimable_balances_amount,
      liquidity_pools: record.liquidity_pools_amount,
      contracts: record.contracts_amount,
    } satisfies Partial<Record<HeldBy, bigint>>,
    holders: {
      ...record.accounts,
      claimable_balances: record.num_claimable_balances,
      liquidity_pools: record.num_liquidity_pools,
      contracts: record.num_contracts,
    } satisfies Partial<Record<HeldBy, number>>,
    flags: record.flags,
  }));
export type AssetRecord = z.output<typeof assetRecordSchema>;
