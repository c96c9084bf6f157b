/** Watched accounts: what the `accounts:` config key, `--account` and ACCOUNTS describe, checked. */
import { z } from "zod";
import { stellarBase } from "../stellar-base.js";
import { secondsText } from "./duration.js";

export interface WatchedAccount {
  /** The `account` label. */
  readonly name: string;
  /** A G... account id. */
  readonly id: string;
  /** Low-water marks by asset (`native`, `CODE:ISSUER`, `pool:<id>`), in units of the asset. */
  readonly lowBalance: Readonly<Record<string, number>>;
  readonly offers: boolean;
  readonly claimableBalances: boolean;
  /** A cold wallet: any transaction from it is unexpected. */
  readonly cold: boolean;
  /** Also read its payments and own transactions (the `activity` job). */
  readonly activity?: boolean;
  /** With `activity`, also count its operations by type. */
  readonly operations?: boolean;
  /** How often a deposit account normally receives, in seconds. */
  readonly expectPaymentWithinSeconds?: number;
  /** Most an account should send per hour, by asset (`native`, `CODE:ISSUER`), in units of the asset. */
  readonly maxOutflowPerHour?: Readonly<Record<string, number>>;
}

/** Said of a secret seed given where an account id belongs; the seed itself is never repeated. */
export const SEED_NOT_ACCOUNT = "that is a secret seed, not an account id: give its public key (G...)";

/** One entry of a target's `accounts:` list, before its id and assets are checked (a seed is refused at its line). */
export const accountEntrySchema = z.strictObject({
  name: z.string().min(1).optional(),
  id: z.string().refine((id) => !looksLikeSeed(id), SEED_NOT_ACCOUNT),
  low_balance: z.record(z.string(), z.number().nonnegative()).optional(),
  offers: z.boolean().optional(),
  claimable_balances: z.boolean().optional(),
  cold: z.boolean().optional(),
  activity: z.boolean().optional(),
  operations: z.boolean().optional(),
  expect_payment_within: secondsText("expected a duration of at least 1s, such as 30m or 2h").optional(),
  max_outflow_per_hour: z.record(z.string(), z.number().nonnegative()).optional(),
});
type AccountEntry = z.output<typeof accountEntrySchema>;

/** An S... seed (S and 55 base32 characters), valid or mistyped: shown nowhere, even to say it is wrong. */
export function looksLikeSeed(value: string): boolean {
  return /^S[A-Z2-7]{55}$/.test(value);
}

/** Whether any `separator`-part of `text` looks like a seed: a seed pasted in an asset, a key or a flag's value. */
export function holdsSeed(text: string, separator: RegExp = /:/): boolean {
  return text.split(separator).some((part) => looksLikeSeed(part.trim()));
}

/** Why `id` is not a G... account id Horizon's accounts endpoint takes, or undefined when it is one. */
export function accountIdProblem(id: string): string | undefined {
  const { StrKey } = stellarBase();
  if (StrKey.isValidEd25519PublicKey(id)) return undefined;
  if (looksLikeSeed(id)) return SEED_NOT_ACCOUNT;
  if (StrKey.isValidMed25519PublicKey(id)) {
    const base = StrKey.encodeEd25519PublicKey(StrKey.decodeMed25519PublicKey(id).subarray(0, 32));
    return `${id} is a muxed (M...) account; Horizon's accounts endpoint takes the G... account it belongs to: ${base}`;
  }
  return `"${id}" is not a Stellar account id (G followed by 55 base32 characters, with a valid checksum)`;
}

/** A credit asset, as problems describe it. */
export const CODE_ISSUER = "CODE:ISSUER (a 1-12 character code and a G... issuer)";
export const ASSET_CODE = /^[A-Za-z0-9]{1,12}$/;

/** Whether `text` is a credit asset `CODE:ISSUER`: what a trustline entry's key is made of. */
function isCreditAsset(text: string): boolean {
  const [code = "", issuer = "", ...rest] = text.split(":");
  return rest.length === 0 && ASSET_CODE.test(code) && stellarBase().StrKey.isValidEd25519PublicKey(issuer);
}

/** Why an asset holding a seed (as its issuer, its code or the whole of it) is refused, never quoting it; else
 * undefined. Every `:`-part is checked: a seed pasted anywhere in an asset must not reach a problem's text. */
function seedInAsset(asset: string): string | undefined {
  if (looksLikeSeed(asset.split(":")[1]?.trim() ?? "")) return `the issuer: ${SEED_NOT_ACCOUNT}`;
  if (holdsSeed(asset)) return `an asset holds a secret seed (S...): ${CODE_ISSUER}`;
  return undefined;
}

/** Why `asset` is not `native`, `CODE:ISSUER` or `pool:<liquidity_pool_id>`, or undefined. */
function assetProblem(asset: string): string | undefined {
  if (asset === "native" || /^pool:[0-9a-f]{64}$/.test(asset) || isCreditAsset(asset)) return undefined;
  return seedInAsset(asset) ?? `"${asset}" is not native, ${CODE_ISSUER} or pool:<64-hex liquidity pool id>`;
}

/** Checks a target's accounts (`where` names it); a seed as id or issuer is refused at `keyPath`, never quoted. */
export function watchedAccounts(
  entries: readonly AccountEntry[],
  where: string,
  problems: string[],
  keyPath: (index: number, key: "id" | "low_balance") => string = (index, key) => `${where}: accounts.${index}.${key}`,
): WatchedAccount[] {
  const names = new Set<string>();
  const accounts: WatchedAccount[] = [];
  for (const [index, entry] of entries.entries()) {
    const name = entry.name ?? entry.id;
    const what = `${where}: account ${JSON.stringify(name)}`;
    const idProblem = accountIdProblem(entry.id);
    if (idProblem === SEED_NOT_ACCOUNT) {
      problems.push(`${keyPath(index, "id")}: ${idProblem}`);
      // Without a name, the seed would be the name every other problem of the entry shows.
      if (entry.name === undefined) continue;
    } else if (idProblem !== undefined) problems.push(`${what}: ${idProblem}`);
    if (names.has(name))
      problems.push(`${where}: account name ${JSON.stringify(name)} is used twice; names must be unique per target`);
    names.add(name);
    for (const asset of Object.keys(entry.low_balance ?? {})) {
      const problem = assetProblem(asset);
      const at = seedInAsset(asset) !== undefined ? keyPath(index, "low_balance") : `${what}: low_balance`;
      if (problem !== undefined) problems.push(`${at}: ${problem}`);
    }
    for (const asset of Object.keys(entry.max_outflow_per_hour ?? {})) {
      const problem =
        seedInAsset(asset) ??
        (asset.startsWith("pool:") ? `"${asset}" is a pool share, which is never paid` : assetProblem(asset));
      if (problem !== undefined) problems.push(`${what}: max_outflow_per_hour: ${problem}`);
    }
    accounts.push({
      name,
      id: entry.id,
      lowBalance: entry.low_balance ?? {},
      offers: entry.offers ?? false,
      claimableBalances: entry.claimable_balances ?? false,
      cold: entry.cold ?? false,
      activity: entry.activity,
      operations: entry.operations,
      expectPaymentWithinSeconds: entry.expect_payment_within,
      maxOutflowPerHour: entry.max_outflow_per_hour,
    });
  }
  return accounts;
}

/** A watched account read over Stellar RPC: no offers or claimable balances, and the trustlines to read, named. */
export interface RpcWatchedAccount extends Omit<WatchedAccount, "offers" | "claimableBalances"> {
  /** `CODE:ISSUER` of each trustline to read: Stellar RPC reads entries by key and cannot list them. */
  readonly assets: readonly string[];
}

export const creditAssetText = z.string().refine(isCreditAsset, { error: `expected ${CODE_ISSUER}` });
export const isNativeOrCredit = (text: string): boolean => text === "native" || isCreditAsset(text);

/** One entry of a Stellar RPC target's `accounts:` list: no offers, claimable balances or flow; `assets` added. */
export const rpcAccountEntrySchema = accountEntrySchema
  .pick({ name: true, id: true, low_balance: true, cold: true })
  .extend({ assets: z.array(creditAssetText).optional() });
type RpcAccountEntry = z.output<typeof rpcAccountEntrySchema>;

const readOverRpc = ({ offers: _o, claimableBalances: _c, ...account }: WatchedAccount, assets: readonly string[]) => ({
  ...account,
  assets: [...new Set(assets)],
});

/** Checks a Stellar RPC target's accounts; one without `assets` reads `defaultAssets` (`account_assets`). */
export function rpcWatchedAccounts(
  entries: readonly RpcAccountEntry[],
  defaultAssets: readonly string[],
  where: string,
  problems: string[],
): RpcWatchedAccount[] {
  // The schema checked every asset; no entry is skipped (a seed id is refused there), so indexes match.
  const accounts = watchedAccounts(entries, where, problems);
  return accounts.map((account, index) => {
    const read = readOverRpc(account, entries[index]?.assets ?? defaultAssets);
    // A mark on a trustline not read has no balance beside it: StellarAccountBalanceLow could never fire.
    for (const asset of Object.keys(read.lowBalance)) {
      if (asset === "native" || read.assets.includes(asset) || assetProblem(asset) !== undefined) continue;
      const what = `${where}: account ${JSON.stringify(read.name)}: low_balance: "${asset}"`;
      if (asset.startsWith("pool:")) problems.push(`${what} is a pool share, which a Stellar RPC target does not read`);
      else problems.push(`${what} is not a trustline it reads: add it to its assets (or the target's account_assets)`);
    }
    return read;
  });
}

/** Checked accounts read over Stellar RPC, each reading the trustlines of `assets`, which are checked here. */
export function withAssets(
  accounts: readonly WatchedAccount[],
  assets: readonly string[],
  where: string,
  problems: string[],
): RpcWatchedAccount[] {
  for (const asset of assets) {
    const seed = seedInAsset(asset);
    if (seed !== undefined) problems.push(`${where}: ${seed}`);
    else if (!isCreditAsset(asset))
      problems.push(`${where}: "${asset}" is not a trustline asset: expected ${CODE_ISSUER}`);
  }
  return accounts.map((account) => readOverRpc(account, assets));
}

/** `ID` or `NAME=ID`, as --account and ACCOUNTS (and --contract and CONTRACTS) take them. */
export function namedIdFromFlag(value: string): { name?: string; id: string } {
  const separator = value.indexOf("=");
  if (separator < 0) return { id: value.trim() };
  return { name: value.slice(0, separator).trim(), id: value.slice(separator + 1).trim() };
}
