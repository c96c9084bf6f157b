// The values Horizon and Stellar RPC send, bounded by what the protocol can hold: a value no real ledger can hold
// (an int64 overflow, a megabyte asset code) fails its record, counted invalid; the bounds also keep parses finite.
import { z } from "zod";

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
/** A Stellar amount: at most seven decimals, e.g. "1234.5678901". */
const AMOUNT = /^\d+(\.\d{1,7})?$/;
const STROOPS_PER_UNIT = 10_000_000n;

export const nonNegativeInt = z.number().int().nonnegative();
export const timestamp = z.iso.datetime({ offset: true });

export function recordOf<K extends string, T>(keys: readonly K[], value: (key: K) => T): Record<K, T> {
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<K, T>;
}

/** An amount string in stroops, exactly, for sums. */
export function amountStroops(text: string): bigint {
  if (!AMOUNT.test(text)) throw new RangeError(`not a Stellar amount: ${JSON.stringify(text)}`);
  const [units = "0", fraction = ""] = text.split(".");
  return BigInt(units) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, "0"));
}

/** The float64 nearest to an exact number of stroops, in units (one rounding). */
export function stroopsToUnits(stroops: bigint): number {
  const sign = stroops < 0n ? "-" : "";
  const magnitude = stroops < 0n ? -stroops : stroops;
  return Number(`${sign}${magnitude / STROOPS_PER_UNIT}.${(magnitude % STROOPS_PER_UNIT).toString().padStart(7, "0")}`);
}

/** An amount as text, within int64 stroops; the length is checked first: a megabyte never becomes a BigInt. */
export const amountText = z
  .string()
  .regex(AMOUNT, "expected an amount with at most 7 decimals as a string")
  // Checks all run, even after a failed one: this one tests the shape again before reading it.
  .refine(
    (text) => AMOUNT.test(text) && text.length <= 40 && amountStroops(text) <= INT64_MAX,
    "amount exceeds int64 stroops",
  );

/** The float64 nearest to an amount: `Number` of the decimal text rounds once; arithmetic on stroops, twice. */
export const amount = amountText.transform(Number);

function integerWithin(pattern: RegExp, min: bigint, max: bigint, what: string) {
  return z
    .string()
    .regex(pattern, `expected ${what} as a string`)
    .refine(
      (text) => pattern.test(text) && text.length <= 21 && BigInt(text) >= min && BigInt(text) <= max,
      `${what} out of range`,
    );
}

/** A signed 64-bit integer sent as a string (fees in stroops, fee_stats' "100"), as a number. */
export const int64String = integerWithin(/^-?\d+$/, -INT64_MAX - 1n, INT64_MAX, "a 64-bit integer").transform(Number);
/** One side of a price as an int64 string: positive, so a price never divides by zero. */
export const positiveInt64Text = integerWithin(/^[1-9]\d{0,18}$/, 1n, INT64_MAX, "a positive 64-bit integer");
/** A fee in stroops kept as text: an int64 in the XDR, never negative. */
export const feeText = integerWithin(/^\d+$/, 0n, INT64_MAX, "a fee in stroops");
/** An unsigned 64-bit integer kept as text: a paging token (it exceeds 2^53), or a sequence number. */
export const uint64Text = integerWithin(/^\d+$/, 0n, UINT64_MAX, "an unsigned 64-bit integer");
/** An unsigned 64-bit integer sent as a string (a Stellar RPC fee, a close time in unix seconds), as a number. */
export const uint64String = uint64Text.transform(Number);

export function isUint64Text(text: string): boolean {
  return uint64Text.safeParse(text).success;
}

/** The shape of an account StrKey (G and 55 base32 characters): issuers and account ids. */
export const accountKey = z.string().regex(/^G[A-Z2-7]{55}$/, "expected an account id (G...)");
export const poolId = z.string().regex(/^[0-9a-f]{64}$/, "expected a liquidity pool id (64 hex characters)");
export const assetCode = z.string().regex(/^[A-Za-z0-9]{1,12}$/, "expected an asset code of 1-12 letters and digits");
/** An asset as Horizon names it in pools and claimable balances: `native` or `CODE:ISSUER`. */
export const assetName = z
  .string()
  .regex(/^(native|[A-Za-z0-9]{1,12}:G[A-Z2-7]{55})$/, "expected native or CODE:ISSUER");
/** A word from a fixed vocabulary that Horizon spells in snake case: a pool type, a signer type. */
export const snakeCaseWord = z.string().regex(/^[a-z0-9_]{1,32}$/, "expected a lowercase word");
export const assetType = z.enum(["native", "credit_alphanum4", "credit_alphanum12"]);

/** A record's asset fields under `prefix` (`source_`, `base_`, …): a type, and a code and issuer unless native. */
export function assetFields<P extends string, T extends z.ZodType>(prefix: P, type: T) {
  return {
    [`${prefix}asset_type`]: type,
    [`${prefix}asset_code`]: assetCode.optional(),
    [`${prefix}asset_issuer`]: accountKey.optional(),
  } as Record<`${P}asset_type`, T> & Record<`${P}asset_code` | `${P}asset_issuer`, z.ZodOptional<z.ZodString>>;
}

/** True when no two items share a key: a record naming one asset or signer twice would make duplicate series. */
export function distinct<T>(items: readonly T[], key: (item: T) => string): boolean {
  return new Set(items.map(key)).size === items.length;
}
