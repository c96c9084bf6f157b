/** A watched account's entries from getLedgerEntries, decoded into the facts Horizon computes for it. */
import { ACCOUNT_FLAGS, type AccountBalance, type AccountFacts, type AccountSigner } from "./account-schemas.js";
import { PollError } from "./errors.js";
import { stellarBase } from "../stellar-base.js";
import { distinct, recordOf, stroopsToUnits } from "./wire-values.js";

type Xdr = ReturnType<typeof stellarBase>["xdr"];

/** Account flags by their bit in AccountEntry.flags (AUTH_REQUIRED_FLAG … AUTH_CLAWBACK_ENABLED_FLAG). */
const FLAG_BITS = { auth_required: 1, auth_revocable: 2, auth_immutable: 4, auth_clawback_enabled: 8 };

/** What does not decode fails the poll as `schema`. */
function decoded<T>(decode: () => T, what: string): T {
  try {
    return decode();
  } catch (error) {
    throw new PollError("schema", `Stellar RPC's ${what} does not decode: ${(error as Error).message}`);
  }
}

function decodeEntry(base64: string, kind: "account" | "trustline", what: string, whose = what) {
  const { xdr } = stellarBase();
  const data = decoded(() => xdr.LedgerEntryData.fromXDR(base64, "base64"), `getLedgerEntries sent ${what} whose xdr`);
  if (data.switch() !== xdr.LedgerEntryType[kind]())
    throw new PollError("schema", `Stellar RPC's getLedgerEntries sent another kind of entry for ${whose}`);
  return data;
}

/** A trustline entry's credit asset as CODE:ISSUER, as it is configured; undefined for pool shares. Read from the
 * decoded entry: encoding the configured asset as XDR instead doubled the cost of a changed account's decoding
 * (docs/performance.md). */
function creditAssetOf(asset: InstanceType<Xdr["TrustLineAsset"]>): string | undefined {
  const arm = asset.switch().name;
  const credit =
    arm === "assetTypeCreditAlphanum4"
      ? asset.alphaNum4()
      : arm === "assetTypeCreditAlphanum12"
        ? asset.alphaNum12()
        : undefined;
  if (credit === undefined) return undefined;
  const code = credit.assetCode().toString("latin1").replace(/\0+$/, "");
  return `${code}:${stellarBase().StrKey.encodeEd25519PublicKey(credit.issuer().ed25519())}`;
}

/** An entry of another account (or another asset's trustline) is a wrong answer, never shown as the one asked for. */
function notAsked(what: string): never {
  throw new PollError("schema", `Stellar RPC's getLedgerEntries sent another account's or asset's entry for ${what}`);
}

/** An int64 of stroops, in units. */
const units = (stroops: { toString(): string }) => stroopsToUnits(BigInt(stroops.toString()));

/** Horizon's liabilities: 0 for an entry without the liabilities extension. */
function liabilitiesOf(liabilities: InstanceType<Xdr["Liabilities"]> | undefined) {
  return {
    buyingLiabilities: liabilities === undefined ? 0 : units(liabilities.buying()),
    sellingLiabilities: liabilities === undefined ? 0 : units(liabilities.selling()),
  };
}

/** Horizon's name of each signer key type. */
const SIGNER_TYPES: Record<InstanceType<Xdr["SignerKeyType"]>["name"], string> = {
  signerKeyTypeEd25519: "ed25519_public_key",
  signerKeyTypePreAuthTx: "preauth_tx",
  signerKeyTypeHashX: "sha256_hash",
  signerKeyTypeEd25519SignedPayload: "ed25519_signed_payload",
};

/** The signer key as Horizon writes it (G…, T…, X…, P…) with Horizon's type name. */
function signerOf(signer: InstanceType<Xdr["Signer"]>): AccountSigner {
  const key = signer.key();
  const strKey = stellarBase().SignerKey.encodeSignerKey(key);
  return { key: strKey, type: SIGNER_TYPES[key.switch().name], weight: signer.weight() };
}

function accountFacts(id: string, entry: InstanceType<Xdr["AccountEntry"]>, balances: AccountBalance[]): AccountFacts {
  const thresholds = entry.thresholds();
  const masterWeight = thresholds[0] ?? 0;
  const listed = entry.signers().map(signerOf);
  // Lists made at their size (concat, not unshift or a spread): ten thousand accounts' facts are held between polls.
  const signers =
    masterWeight > 0
      ? [{ key: id, type: "ed25519_public_key", weight: masterWeight } as AccountSigner].concat(listed)
      : listed;
  // A signer listed twice (or the master key listed again) would be two series with one label set.
  if (!distinct(signers, (signer) => signer.key))
    throw new PollError("schema", `Stellar RPC's account entry of ${id} lists a signer twice`);
  const v1 = entry.ext().switch() === 1 ? entry.ext().v1() : undefined;
  const v2 = v1 !== undefined && v1.ext().switch() === 2 ? v1.ext().v2() : undefined;
  const v3 = v2 !== undefined && v2.ext().switch() === 3 ? v2.ext().v3() : undefined;
  const native = { asset: "native", balance: units(entry.balance()), ...liabilitiesOf(v1?.liabilities()) };
  const flags = entry.flags();
  return {
    id,
    sequenceLedger: v3?.seqLedger(),
    sequenceTime: v3 === undefined ? undefined : Number(v3.seqTime().toString()),
    subentryCount: entry.numSubEntries(),
    numSponsoring: v2?.numSponsoring() ?? 0,
    numSponsored: v2?.numSponsored() ?? 0,
    sponsor: undefined,
    homeDomain: entry.homeDomain().toString(),
    thresholds: { low: thresholds[1] ?? 0, medium: thresholds[2] ?? 0, high: thresholds[3] ?? 0 },
    flags: recordOf(ACCOUNT_FLAGS, (flag) => (flags & FLAG_BITS[flag]) !== 0),
    balances: balances.concat(native),
    signers,
  };
}

function trustlineBalance(asset: string, entry: InstanceType<Xdr["TrustLineEntry"]>): AccountBalance {
  return {
    asset,
    balance: units(entry.balance()),
    ...liabilitiesOf(entry.ext().switch() === 1 ? entry.ext().v1().liabilities() : undefined),
    limit: units(entry.limit()),
    // TrustLineEntry's AUTHORIZED_FLAG: Horizon's is_authorized.
    authorized: (entry.flags() & 1) !== 0,
  };
}

/** An account's facts and whether each configured trustline exists, from their entries' `xdr` (undefined: none). */
export function accountFromEntries(
  id: string,
  accountXdr: string,
  trustlineXdrs: Iterable<readonly [asset: string, xdr: string | undefined]>,
) {
  // Owners compared as raw keys: the id is decoded once, not every entry's owner encoded.
  const owner = stellarBase().StrKey.decodeEd25519PublicKey(id);
  const data = decodeEntry(accountXdr, "account", `the account entry of ${id}`, `the account ${id}`);
  if (!data.account().accountId().ed25519().equals(owner)) notAsked(`the account ${id}`);
  const balances: AccountBalance[] = [];
  const trustlines: (readonly [asset: string, exists: boolean])[] = [];
  for (const [asset, lineXdr] of trustlineXdrs) {
    trustlines.push([asset, lineXdr !== undefined]);
    if (lineXdr === undefined) continue;
    const line = decodeEntry(lineXdr, "trustline", `the ${asset} trustline of ${id}`).trustLine();
    if (!line.accountId().ed25519().equals(owner) || creditAssetOf(line.asset()) !== asset)
      notAsked(`the ${asset} trustline of ${id}`);
    balances.push(trustlineBalance(asset, line));
  }
  // At its size: ten thousand accounts' lists are held between polls.
  return { account: accountFacts(id, data.account(), balances), trustlines: trustlines.slice() };
}

/** The base reserve in stroops from a LedgerHeader (getLatestLedger's `headerXdr`, stellar-rpc 25+). */
export function baseReserveFromHeader(headerXdr: string): number {
  const { xdr } = stellarBase();
  return decoded(() => xdr.LedgerHeader.fromXDR(headerXdr, "base64").baseReserve(), "getLatestLedger headerXdr");
}

/** The base reserve in stroops from a LedgerHeaderHistoryEntry (getLedgers' `headerXdr`). */
export function baseReserveFromHistoryEntry(headerXdr: string): number {
  const { xdr } = stellarBase();
  const read = () => xdr.LedgerHeaderHistoryEntry.fromXDR(headerXdr, "base64").header().baseReserve();
  return decoded(read, "getLedgers headerXdr");
}
