import { Asset, Keypair, StrKey, xdr } from "@stellar/stellar-base";
import { describe, expect, it } from "vitest";
import {
  accountFromEntries,
  baseReserveFromHeader,
  baseReserveFromHistoryEntry,
} from "../src/client/account-entries.js";
import { accountLedgerKey, trustlineLedgerKey } from "../src/client/ledger-keys.js";
import { PollError } from "../src/client/errors.js";
import { rpcFixtureJson } from "./support/fixtures.js";

interface Entries {
  result: { entries: { key: string; xdr: string }[] };
}

const ACCOUNT = rpcFixtureJson<Entries>("getLedgerEntries-account-dotnet-sdk.json").result.entries[0]!;
const TRUSTLINE = rpcFixtureJson<Entries>("getLedgerEntries-trustline-dotnet-sdk.json").result.entries[0]!;
const ACCOUNT_ID = "GDAT5HWTGIU4TSSZ4752OUC4SABDLTLZFRPZUJ3D6LKBNEPA7V2CIG54";
const TRUSTLINE_ACCOUNT = "GDPNJ4YFMQYSNWMSF6XZEDXS4M4ECTQHMVXBISQA4U7DEHRGUY3EGDSB";
const EURC = "EURC:GDBDEI3NV72XSORX7DNYMGRRNXAXF62RPTGGVEXM2RLXIUIUU5DNZWWH";

/** The captured account entry, given to `owner`: the owner of a captured trustline has no captured account entry. */
function accountEntryOf(owner: string): string {
  const data = xdr.LedgerEntryData.fromXDR(ACCOUNT.xdr, "base64");
  data.account().accountId(Keypair.fromPublicKey(owner).xdrAccountId());
  return data.toXDR("base64");
}

describe("ledger keys of a watched account", () => {
  it("are the keys real clients sent for the captured account and trustline", () => {
    expect(accountLedgerKey(ACCOUNT_ID)).toBe(ACCOUNT.key);
    expect(trustlineLedgerKey(TRUSTLINE_ACCOUNT, EURC)).toBe(TRUSTLINE.key);
  });
});

describe("accountFromEntries", () => {
  it("reads the captured account entry (ext v1 → v2 → v3) as Horizon would show it", () => {
    const { account, trustlines } = accountFromEntries(ACCOUNT_ID, ACCOUNT.xdr, new Map());
    expect(account.id).toBe(ACCOUNT_ID);
    // 97 503 546 946 stroops (0x16b3aa0e42 in the entry); no liabilities in its v1 extension.
    expect(account.balances).toEqual([
      { asset: "native", balance: 9750.3546946, buyingLiabilities: 0, sellingLiabilities: 0 },
    ]);
    expect(account.subentryCount).toBe(0);
    expect(account.numSponsoring).toBe(0);
    expect(account.numSponsored).toBe(0);
    expect(account.sequenceLedger).toBe(91769);
    expect(account.sequenceTime).toBe(1718621480);
    expect(account.thresholds).toEqual({ low: 0, medium: 0, high: 0 });
    expect(account.signers).toEqual([{ key: ACCOUNT_ID, type: "ed25519_public_key", weight: 1 }]);
    expect(account.flags).toEqual({
      auth_required: false,
      auth_revocable: false,
      auth_immutable: false,
      auth_clawback_enabled: false,
    });
    expect(account.homeDomain).toBe("");
    expect(trustlines).toEqual([]);
  });

  it("reads a trustline entry and says which configured trustlines exist", () => {
    const absent = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
    const { account, trustlines } = accountFromEntries(
      TRUSTLINE_ACCOUNT,
      accountEntryOf(TRUSTLINE_ACCOUNT),
      new Map([
        [EURC, TRUSTLINE.xdr],
        [absent, undefined],
      ]),
    );
    expect(account.balances).toContainEqual({
      asset: EURC,
      balance: 995,
      buyingLiabilities: 0,
      sellingLiabilities: 0,
      limit: 922337203685.4775807,
      authorized: true,
    });
    expect(account.balances.map((balance) => balance.asset)).toEqual([EURC, "native"]);
    expect([...trustlines]).toEqual([
      [EURC, true],
      [absent, false],
    ]);
  });

  it("takes liabilities, sponsorship, every signer kind and flags from the entry; a master key of weight 0 is no signer", () => {
    const id = Keypair.random().publicKey();
    const preAuth = Buffer.alloc(32, 7);
    const hashX = Buffer.alloc(32, 9);
    const other = Keypair.random().publicKey();
    const entry = new xdr.AccountEntry({
      accountId: Keypair.fromPublicKey(id).xdrAccountId(),
      balance: xdr.Int64.fromString("123456789012345"),
      seqNum: xdr.Int64.fromString("9007199254740993"),
      numSubEntries: 5,
      inflationDest: null,
      flags: 1 | 8,
      homeDomain: "example.com",
      thresholds: Buffer.from([0, 1, 2, 3]),
      signers: [
        new xdr.Signer({ key: xdr.SignerKey.signerKeyTypeEd25519(StrKey.decodeEd25519PublicKey(other)), weight: 10 }),
        new xdr.Signer({ key: xdr.SignerKey.signerKeyTypePreAuthTx(preAuth), weight: 1 }),
        new xdr.Signer({ key: xdr.SignerKey.signerKeyTypeHashX(hashX), weight: 2 }),
      ],
      ext: new xdr.AccountEntryExt(
        1,
        new xdr.AccountEntryExtensionV1({
          liabilities: new xdr.Liabilities({
            buying: xdr.Int64.fromString("25000000"),
            selling: xdr.Int64.fromString("1"),
          }),
          ext: new xdr.AccountEntryExtensionV1Ext(
            2,
            new xdr.AccountEntryExtensionV2({
              numSponsored: 1,
              numSponsoring: 3,
              signerSponsoringIDs: [null, null, null] as unknown as xdr.SponsorshipDescriptor[],
              ext: new xdr.AccountEntryExtensionV2Ext(0),
            }),
          ),
        }),
      ),
    });
    const { account } = accountFromEntries(id, xdr.LedgerEntryData.account(entry).toXDR("base64"), new Map());
    expect(account.balances).toEqual([
      { asset: "native", balance: 12345678.9012345, buyingLiabilities: 2.5, sellingLiabilities: 0.0000001 },
    ]);
    expect(account.numSponsoring).toBe(3);
    expect(account.numSponsored).toBe(1);
    expect(account.sequenceLedger).toBeUndefined();
    expect(account.sequenceTime).toBeUndefined();
    expect(account.homeDomain).toBe("example.com");
    expect(account.thresholds).toEqual({ low: 1, medium: 2, high: 3 });
    expect(account.flags).toEqual({
      auth_required: true,
      auth_revocable: false,
      auth_immutable: false,
      auth_clawback_enabled: true,
    });
    expect(account.signers).toEqual([
      { key: other, type: "ed25519_public_key", weight: 10 },
      { key: StrKey.encodePreAuthTx(preAuth), type: "preauth_tx", weight: 1 },
      { key: StrKey.encodeSha256Hash(hashX), type: "sha256_hash", weight: 2 },
    ]);
  });

  it("fails the poll as schema on an entry that does not decode or is of another kind", () => {
    const schema = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof PollError ? error.reason : "other";
      }
      return "none";
    };
    expect(schema(() => accountFromEntries(ACCOUNT_ID, "AAAA", new Map()))).toBe("schema");
    expect(schema(() => accountFromEntries(ACCOUNT_ID, TRUSTLINE.xdr, new Map()))).toBe("schema");
    expect(schema(() => accountFromEntries(ACCOUNT_ID, ACCOUNT.xdr, new Map([[EURC, ACCOUNT.xdr]])))).toBe("schema");
    // An entry listing a signer twice, or the master key again beside its weight, would make duplicate series.
    const id = Keypair.random().publicKey();
    const signer = new xdr.Signer({
      key: xdr.SignerKey.signerKeyTypeEd25519(StrKey.decodeEd25519PublicKey(id)),
      weight: 5,
    });
    const listing = (signers: xdr.Signer[]) =>
      xdr.LedgerEntryData.account(
        new xdr.AccountEntry({
          accountId: Keypair.fromPublicKey(id).xdrAccountId(),
          balance: xdr.Int64.fromString("100000000"),
          seqNum: xdr.Int64.fromString("1"),
          numSubEntries: signers.length,
          inflationDest: null,
          flags: 0,
          homeDomain: "",
          thresholds: Buffer.from([1, 0, 0, 0]),
          signers,
          ext: new xdr.AccountEntryExt(0),
        }),
      ).toXDR("base64");
    expect(schema(() => accountFromEntries(id, listing([signer]), new Map()))).toBe("schema");
    expect(schema(() => accountFromEntries(id, listing([]), new Map()))).toBe("none");
    expect(new Asset("EURC", EURC.split(":")[1]).getCode()).toBe("EURC");
  });

  it("fails as schema on an entry of another account, or a trustline of another asset or account", () => {
    const reason = (run: () => unknown) => {
      try {
        run();
        return "none";
      } catch (error) {
        return error instanceof PollError ? error.reason : "other";
      }
    };
    const usdc = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
    const owner = accountEntryOf(TRUSTLINE_ACCOUNT);
    expect(reason(() => accountFromEntries(TRUSTLINE_ACCOUNT, owner, [[EURC, TRUSTLINE.xdr]]))).toBe("none");
    // GDAT…'s account entry given for another account.
    expect(reason(() => accountFromEntries(Keypair.random().publicKey(), ACCOUNT.xdr, []))).toBe("schema");
    // The EURC trustline given for the configured USDC one.
    expect(reason(() => accountFromEntries(TRUSTLINE_ACCOUNT, owner, [[usdc, TRUSTLINE.xdr]]))).toBe("schema");
    // Another account's EURC trustline given for this account's.
    expect(reason(() => accountFromEntries(ACCOUNT_ID, ACCOUNT.xdr, [[EURC, TRUSTLINE.xdr]]))).toBe("schema");
  });
});

describe("the base reserve", () => {
  it("comes from getLatestLedger's LedgerHeader and from getLedgers' LedgerHeaderHistoryEntry", () => {
    const latest = rpcFixtureJson<{ result: { headerXdr: string } }>("getLatestLedger-java-sdk.json").result;
    expect(baseReserveFromHeader(latest.headerXdr)).toBe(5_000_000);
    const ledgers = rpcFixtureJson<{ ledgers: { headerXdr: string }[] }>("getLedgers-result-js-sdk.json").ledgers;
    expect(baseReserveFromHistoryEntry(ledgers[0]!.headerXdr)).toBe(5_000_000);
    expect(() => baseReserveFromHeader(ledgers[0]!.headerXdr)).toThrow(PollError);
  });
});
