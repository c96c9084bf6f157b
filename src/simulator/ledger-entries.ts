/**
 * stellar-rpc's getLedgerEntries over the simulated ledger: accounts and trustlines from the
 * simulated accounts, contract instances, code and data, and the state-archival config setting.
 * Errors, limits and field presence follow stellar-rpc (methods/get_ledger_entries.go and the
 * captures in test/fixtures/stellar-rpc): at most 200 keys, TTL keys refused, keys not found left
 * out, `liveUntilLedgerSeq` only on entries with a TTL, `extXdr` from v23 on.
 */

import { Asset, Keypair, StrKey, xdr } from "@stellar/stellar-base";
import type { SimulatedAccount, SimulatedAccounts, Trustline } from "./accounts.js";
import type { SimulatedContracts, SorobanEntry } from "./contracts.js";

const MAX_KEYS = 200;
/** `xdr.MarshalBase64` of an empty extension point, which v23+ sends for every entry. */
const EMPTY_EXT_XDR = "AAAAAA==";
const AUTHORIZED_FLAG = 1;
const ACCOUNT_FLAGS = { authRequired: 1, authRevocable: 2, authImmutable: 4, authClawbackEnabled: 8 } as const;

type InvalidParams = { error: { code: number; message: string } };

export interface LedgerEntriesState {
  readonly accounts: SimulatedAccounts;
  readonly contracts: SimulatedContracts;
  /** The RPC's latest ledger. */
  readonly latestLedger: number;
  /** The major version of the RPC the simulator advertises: archival is reported as v22 or as v23+. */
  readonly rpcMajorVersion: number;
}

interface WireEntry {
  key: string;
  xdr: string;
  lastModifiedLedgerSeq: number;
  liveUntilLedgerSeq?: number;
  extXdr?: string;
}

function invalidParams(message: string): InvalidParams {
  return { error: { code: -32602, message } };
}

/** The result of getLedgerEntries for `params`, or stellar-rpc's error for them. */
export function ledgerEntries(params: unknown, state: LedgerEntriesState): { result: unknown } | InvalidParams {
  const keys = (params as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys)) return invalidParams("invalid parameters");
  if (keys.length > MAX_KEYS)
    return invalidParams(`key count (${keys.length}) exceeds maximum supported (${MAX_KEYS})`);
  const decoded: { text: string; key: xdr.LedgerKey }[] = [];
  for (const [index, text] of keys.entries()) {
    let key: xdr.LedgerKey;
    try {
      if (typeof text !== "string") throw new TypeError("not a string");
      key = xdr.LedgerKey.fromXDR(text, "base64");
    } catch {
      return invalidParams(`cannot unmarshal key value ${String(text)} at index ${index}`);
    }
    if (key.switch() === xdr.LedgerEntryType.ttl())
      return invalidParams("ledger ttl entries cannot be queried directly");
    decoded.push({ text, key });
  }
  const entries = decoded.flatMap(({ text, key }) => {
    const entry = entryFor(text, key, state);
    if (entry === undefined) return [];
    return [state.rpcMajorVersion >= 23 ? { ...entry, extXdr: EMPTY_EXT_XDR } : entry];
  });
  return { result: { entries, latestLedger: state.latestLedger } };
}

function entryFor(text: string, key: xdr.LedgerKey, state: LedgerEntriesState): WireEntry | undefined {
  switch (key.switch()) {
    case xdr.LedgerEntryType.account(): {
      const account = state.accounts.get(StrKey.encodeEd25519PublicKey(key.account().accountId().ed25519()));
      return (
        account && {
          key: text,
          xdr: accountEntry(account, state.accounts.subentries(account.id)),
          lastModifiedLedgerSeq: account.lastModified.ledger,
        }
      );
    }
    case xdr.LedgerEntryType.trustline(): {
      const account = state.accounts.get(StrKey.encodeEd25519PublicKey(key.trustLine().accountId().ed25519()));
      const wanted = key.trustLine().asset().toXDR("base64");
      const line = account?.trustlines.find((candidate) => trustLineAsset(candidate.asset).toXDR("base64") === wanted);
      return (
        account &&
        line && { key: text, xdr: trustlineEntry(account, line), lastModifiedLedgerSeq: line.lastModified.ledger }
      );
    }
    case xdr.LedgerEntryType.contractData():
    case xdr.LedgerEntryType.contractCode(): {
      const entry = state.contracts.get(text);
      return entry && sorobanEntry(entry, state);
    }
    case xdr.LedgerEntryType.configSetting(): {
      const setting = state.contracts.configSetting(text);
      return setting === undefined ? undefined : { key: text, xdr: setting, lastModifiedLedgerSeq: 1 };
    }
    default:
      return undefined;
  }
}

/**
 * A live entry with its live-until ledger. An expired persistent entry is archived: v22 returns
 * its past live-until, v23+ returns 0. An expired temporary entry is gone.
 */
function sorobanEntry(entry: SorobanEntry, state: LedgerEntriesState): WireEntry | undefined {
  const live = entry.liveUntilLedgerSeq >= state.latestLedger;
  if (!live && entry.durability === "temporary") return undefined;
  const liveUntilLedgerSeq = live || state.rpcMajorVersion < 23 ? entry.liveUntilLedgerSeq : 0;
  return { key: entry.key, xdr: entry.xdr, lastModifiedLedgerSeq: entry.lastModifiedLedgerSeq, liveUntilLedgerSeq };
}

function trustLineAsset(asset: string): xdr.TrustLineAsset {
  const [code, issuer] = asset.split(":") as [string, string];
  return new Asset(code, issuer).toTrustLineXDRObject();
}

function int64(value: bigint): xdr.Int64 {
  return xdr.Int64.fromString(value.toString());
}

/** Liabilities as the version-1 extensions of accounts and trustlines carry them; none when both are zero. */
function liabilitiesOf(buying: bigint, selling: bigint): xdr.Liabilities | undefined {
  return buying === 0n && selling === 0n
    ? undefined
    : new xdr.Liabilities({ buying: int64(buying), selling: int64(selling) });
}

/**
 * The account's extensions as stellar-core writes them: v1 carries liabilities, v2 sponsorship
 * (protocol 14), v3 the ledger and time of the last transaction (protocol 19); each needs the ones
 * before it, and core adds v1 with zero liabilities when a later one is needed.
 */
function accountEntryExt(
  account: SimulatedAccount,
  signerCount: number,
  liabilities: xdr.Liabilities | undefined,
): xdr.AccountEntryExt {
  const point = account.sequencePoint;
  const v3 =
    point === undefined
      ? undefined
      : new xdr.AccountEntryExtensionV3({
          ext: new xdr.ExtensionPoint(0),
          seqLedger: point.ledger,
          seqTime: xdr.Uint64.fromString(String(Math.floor(point.closedAtMs / 1000))),
        });
  const sponsored = account.numSponsored !== 0 || account.numSponsoring !== 0;
  const v2 =
    v3 === undefined && !sponsored
      ? undefined
      : new xdr.AccountEntryExtensionV2({
          numSponsored: account.numSponsored,
          numSponsoring: account.numSponsoring,
          // One per signer, null where nobody sponsors it: the XDR is optional, the SDK's typings are not.
          signerSponsoringIDs: Array.from({ length: signerCount }, () => null as unknown as xdr.SponsorshipDescriptor),
          ext: v3 === undefined ? new xdr.AccountEntryExtensionV2Ext(0) : new xdr.AccountEntryExtensionV2Ext(3, v3),
        });
  if (v2 === undefined && liabilities === undefined) return new xdr.AccountEntryExt(0);
  const v1 = new xdr.AccountEntryExtensionV1({
    liabilities: liabilities ?? new xdr.Liabilities({ buying: int64(0n), selling: int64(0n) }),
    ext: v2 === undefined ? new xdr.AccountEntryExtensionV1Ext(0) : new xdr.AccountEntryExtensionV1Ext(2, v2),
  });
  return new xdr.AccountEntryExt(1, v1);
}

function accountEntry(account: SimulatedAccount, numSubEntries: number): string {
  const signers = account.signers
    .filter((signer) => signer.key !== account.id && StrKey.isValidEd25519PublicKey(signer.key))
    .map(
      (signer) =>
        new xdr.Signer({
          key: xdr.SignerKey.signerKeyTypeEd25519(StrKey.decodeEd25519PublicKey(signer.key)),
          weight: signer.weight,
        }),
    );
  const master = account.signers.find((signer) => signer.key === account.id)?.weight ?? 0;
  const flags = Object.entries(ACCOUNT_FLAGS).reduce(
    (total, [name, bit]) => (account.flags[name as keyof typeof ACCOUNT_FLAGS] ? total | bit : total),
    0,
  );
  const liabilities = liabilitiesOf(account.nativeBuyingLiabilities, account.nativeSellingLiabilities);
  const entry = new xdr.AccountEntry({
    accountId: Keypair.fromPublicKey(account.id).xdrAccountId(),
    balance: int64(account.balance),
    seqNum: int64(account.sequence),
    numSubEntries,
    inflationDest: null,
    flags,
    homeDomain: account.homeDomain,
    thresholds: Buffer.from([master, account.thresholds.low, account.thresholds.medium, account.thresholds.high]),
    signers,
    ext: accountEntryExt(account, signers.length, liabilities),
  });
  return xdr.LedgerEntryData.account(entry).toXDR("base64");
}

function trustlineEntry(account: SimulatedAccount, line: Trustline): string {
  const liabilities = liabilitiesOf(line.buyingLiabilities, line.sellingLiabilities);
  const entry = new xdr.TrustLineEntry({
    accountId: Keypair.fromPublicKey(account.id).xdrAccountId(),
    asset: trustLineAsset(line.asset),
    balance: int64(line.balance),
    limit: int64(line.limit),
    flags: line.authorized ? AUTHORIZED_FLAG : 0,
    ext: liabilities
      ? new xdr.TrustLineEntryExt(1, new xdr.TrustLineEntryV1({ liabilities, ext: new xdr.TrustLineEntryV1Ext(0) }))
      : new xdr.TrustLineEntryExt(0),
  });
  return xdr.LedgerEntryData.trustline(entry).toXDR("base64");
}
