/** Horizon's accounts, their offers and claimable balances, as Horizons of every age send them (see the captures). */
import { z } from "zod";
import {
  accountKey,
  amount,
  amountText,
  assetCode,
  assetName,
  distinct,
  nonNegativeInt,
  poolId,
  snakeCaseWord,
  uint64String,
  uint64Text,
} from "./wire-values.js";

const nativeFields = { balance: amount, buying_liabilities: amount.optional(), selling_liabilities: amount.optional() };

const trustlineFields = {
  ...nativeFields,
  limit: amount,
  sponsor: z.string().optional(),
  last_modified_ledger: nonNegativeInt.optional(),
  // Absent before Horizon 0.12 (2017).
  is_authorized: z.boolean().optional(),
  is_authorized_to_maintain_liabilities: z.boolean().optional(),
  is_clawback_enabled: z.boolean().optional(),
};

const creditBalance = (type: "credit_alphanum4" | "credit_alphanum12") =>
  z.object({ ...trustlineFields, asset_type: z.literal(type), asset_code: assetCode, asset_issuer: accountKey });

const balanceSchema = z.discriminatedUnion("asset_type", [
  z.object({ ...nativeFields, asset_type: z.literal("native") }),
  creditBalance("credit_alphanum4"),
  creditBalance("credit_alphanum12"),
  z.object({ ...trustlineFields, asset_type: z.literal("liquidity_pool_shares"), liquidity_pool_id: poolId }),
]);

/** One balance, named as the `asset` label: `native`, `CODE:ISSUER` or `pool:<liquidity_pool_id>`. */
export interface AccountBalance {
  readonly asset: string;
  readonly balance: number;
  readonly buyingLiabilities?: number;
  readonly sellingLiabilities?: number;
  /** Trustlines and pool shares only; `authorized` when Horizon sends it. */
  readonly limit?: number;
  readonly authorized?: boolean;
}

function accountBalance(raw: z.output<typeof balanceSchema>): AccountBalance {
  const { balance, buying_liabilities: buyingLiabilities, selling_liabilities: sellingLiabilities } = raw;
  if (raw.asset_type === "native") return { asset: "native", balance, buyingLiabilities, sellingLiabilities };
  const pool = raw.asset_type === "liquidity_pool_shares";
  const asset = pool ? `pool:${raw.liquidity_pool_id}` : `${raw.asset_code}:${raw.asset_issuer}`;
  return { asset, balance, buyingLiabilities, sellingLiabilities, limit: raw.limit, authorized: raw.is_authorized };
}

/** AccountEntry's thresholds are bytes; signer weights, ledger numbers and entry counts uint32 (a signer added before
 * protocol 10 may weigh more than 255: core refused that only from then on). */
const uint8 = nonNegativeInt.max(255);
const uint32 = nonNegativeInt.max(2 ** 32 - 1);

export const ACCOUNT_FLAGS = ["auth_required", "auth_revocable", "auth_immutable", "auth_clawback_enabled"] as const;

/** The StrKey of an account (G), a pre-authorised transaction (T), a hash (X) or a signed payload (P, ≤ 64 bytes). */
const signerKey = z.string().regex(/^[GTXP][A-Z2-7]{55,169}$/, "expected a signer key (G..., T..., X... or P...)");
const signerSchema = z.object({ key: signerKey, type: snakeCaseWord, weight: uint32 });
export type AccountSigner = z.output<typeof signerSchema>;

export const accountSchema = z
  .object({
    account_id: accountKey,
    sequence: uint64Text.transform((text) => BigInt(text)),
    sequence_ledger: uint32.optional(),
    sequence_time: uint64String.optional(),
    subentry_count: uint32,
    home_domain: z.string().optional(),
    last_modified_ledger: uint32.optional(),
    thresholds: z
      .object({ low_threshold: uint8, med_threshold: uint8, high_threshold: uint8 })
      .transform(({ low_threshold: low, med_threshold: medium, high_threshold: high }) => ({ low, medium, high })),
    // A flag an older Horizon does not send is off: the ledger had no such flag then.
    flags: z.object({
      auth_required: z.boolean(),
      auth_revocable: z.boolean(),
      auth_immutable: z.boolean().default(false),
      auth_clawback_enabled: z.boolean().default(false),
    }),
    // A balance or a signer listed twice would be two series with one label set.
    balances: z
      .array(balanceSchema.transform(accountBalance))
      .refine((balances) => distinct(balances, (balance) => balance.asset), "the account lists a balance twice"),
    signers: z
      .array(signerSchema)
      .refine((signers) => distinct(signers, (signer) => signer.key), "the account lists a signer twice"),
    data: z.record(z.string(), z.string()),
    num_sponsoring: uint32.optional(),
    num_sponsored: uint32.optional(),
    sponsor: z.string().optional(),
  })
  .transform((raw) => ({
    id: raw.account_id,
    sequence: raw.sequence,
    sequenceLedger: raw.sequence_ledger,
    sequenceTime: raw.sequence_time,
    subentryCount: raw.subentry_count,
    // Horizon before 2.0 had no sponsorship: nothing sponsored either way.
    numSponsoring: raw.num_sponsoring ?? 0,
    numSponsored: raw.num_sponsored ?? 0,
    sponsor: raw.sponsor,
    homeDomain: raw.home_domain ?? "",
    thresholds: raw.thresholds,
    flags: raw.flags,
    balances: raw.balances,
    // Horizon lists a master key of weight 0, which signs nothing; the ledger holds no other signer of weight 0.
    // Dropped, as the Stellar RPC kind never has it: both kinds show the same signers.
    signers: raw.signers.filter((signer) => signer.weight > 0),
    dataEntries: Object.keys(raw.data).length,
  }));
export type Account = z.output<typeof accountSchema>;

/** What the samples read of an account: Horizon's, or its ledger entries over Stellar RPC (no data entry count). */
export type AccountFacts = Omit<Account, "sequence" | "dataEntries"> & { readonly dataEntries?: number };

/** Offers are only counted, so only what paging needs is read. */
export const offerSchema = z.object({ id: z.string().min(1), paging_token: z.string().min(1) });

/** `amount` stays text: balances are summed per asset, exactly, in stroops. */
export const claimableBalanceSchema = offerSchema.extend({ asset: assetName, amount: amountText });
