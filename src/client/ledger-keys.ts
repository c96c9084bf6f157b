/** Base64 XDR ledger keys, made once per job: getLedgerEntries returns each entry found under the same key. */
import type { Durability } from "../config/contracts.js";
import { stellarBase } from "../stellar-base.js";

export function accountLedgerKey(accountId: string): string {
  const { xdr, Keypair } = stellarBase();
  const key = new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(accountId).xdrAccountId() });
  return xdr.LedgerKey.account(key).toXDR("base64");
}

/** An account's trustline to `asset` (`CODE:ISSUER`). */
export function trustlineLedgerKey(accountId: string, asset: string): string {
  const { xdr, Keypair, Asset } = stellarBase();
  const [code = "", issuer = ""] = asset.split(":");
  const key = new xdr.LedgerKeyTrustLine({
    accountId: Keypair.fromPublicKey(accountId).xdrAccountId(),
    asset: new Asset(code, issuer).toTrustLineXDRObject(),
  });
  return xdr.LedgerKey.trustline(key).toXDR("base64");
}

/** A contract-data key: the contract, the SCVal key (base64) and its durability. */
export function contractDataKey(contractId: string, scValKey: string, durability: Durability): string {
  const { Address, xdr } = stellarBase();
  const key = new xdr.LedgerKeyContractData({
    contract: Address.fromString(contractId).toScAddress(),
    key: xdr.ScVal.fromXDR(scValKey, "base64"),
    durability: xdr.ContractDataDurability[durability](),
  });
  return xdr.LedgerKey.contractData(key).toXDR("base64");
}

/** A contract's instance: persistent contract data under SCV_LEDGER_KEY_CONTRACT_INSTANCE. */
export function contractInstanceKey(contractId: string): string {
  const instance = stellarBase().xdr.ScVal.scvLedgerKeyContractInstance().toXDR("base64");
  return contractDataKey(contractId, instance, "persistent");
}

/** The wasm code entry of a hash (hex). */
export function contractCodeKey(wasmHashHex: string): string {
  const { xdr } = stellarBase();
  const key = new xdr.LedgerKeyContractCode({ hash: Buffer.from(wasmHashHex, "hex") });
  return xdr.LedgerKey.contractCode(key).toXDR("base64");
}

/** The network's state-archival settings (CONFIG_SETTING_STATE_ARCHIVAL). */
export function stateArchivalKey(): string {
  const { xdr } = stellarBase();
  const key = new xdr.LedgerKeyConfigSetting({ configSettingId: xdr.ConfigSettingId.configSettingStateArchival() });
  return xdr.LedgerKey.configSetting(key).toXDR("base64");
}
