/** Watched assets: what a target's `assets:` key, `--asset` and ASSETS describe, checked. */
import { ASSET_CODE, holdsSeed, looksLikeSeed, SEED_NOT_ACCOUNT } from "./accounts.js";
import { stellarBase } from "../stellar-base.js";

export interface WatchedAsset {
  /** `CODE:ISSUER`, the `asset` label. */
  readonly name: string;
  readonly code: string;
  /** A G... account id. */
  readonly issuer: string;
}

/** Why `text` is not a credit asset `CODE:ISSUER` that `/assets` can be asked for, or undefined. */
function assetProblem(text: string): string | undefined {
  if (text === "native") return "native is not watched here: lumens are in /ledgers (total_coins)";
  const [code = "", issuer = "", ...rest] = text.split(":");
  if (rest.length > 0 || !text.includes(":")) return "expected CODE:ISSUER";
  if (!ASSET_CODE.test(code)) return "the code must be 1-12 letters and digits";
  if (!stellarBase().StrKey.isValidEd25519PublicKey(issuer))
    return "the issuer is not a Stellar account id (G followed by 55 base32 characters, with a valid checksum)";
  return undefined;
}

/** Said of an entry holding a secret seed other than as its issuer (the whole entry, its code): never quoted. */
const SEED_IN_ASSET = "an asset holds a secret seed (S...): give CODE:ISSUER, with the issuer's public key (G...)";

/** Checks an asset list; `where` names it in each problem, which quotes the entry unless any part is a seed. */
export function watchedAssets(entries: readonly string[], where: string, problems: string[]): WatchedAsset[] {
  const seen = new Set<string>();
  const assets: WatchedAsset[] = [];
  for (const entry of entries) {
    const problem = assetProblem(entry);
    if (looksLikeSeed(entry.split(":")[1]?.trim() ?? ""))
      problems.push(`${where}: an asset's issuer: ${SEED_NOT_ACCOUNT}`);
    else if (holdsSeed(entry)) problems.push(`${where}: ${SEED_IN_ASSET}`);
    else if (problem !== undefined) problems.push(`${where}: asset ${JSON.stringify(entry)}: ${problem}`);
    else if (seen.has(entry)) problems.push(`${where}: asset ${JSON.stringify(entry)} is listed twice`);
    else {
      seen.add(entry);
      const [code = "", issuer = ""] = entry.split(":");
      assets.push({ name: entry, code, issuer });
    }
  }
  return assets;
}
