/**
 * Simulated Soroban state: contract instances, wasm code and contract data, each with the ledger
 * it lives until, and the network's state-archival settings. The RPC serves them through
 * getLedgerEntries (ledger-entries.ts); `contract_expiring` makes one entry run out.
 */

import { Address, Asset, hash, StrKey, xdr } from "@stellar/stellar-base";
import type { LedgerPoint } from "./accounts.js";
import { HOT_WALLET, USDC_ISSUER } from "./demo-accounts.js";
import { SimulatedEvents, type DemoContract } from "./events.js";

export type { DemoContract };

/** A Soroban entry as the ledger holds it: its XDR and its TTL entry's live-until ledger. */
export interface SorobanEntry {
  readonly key: string;
  readonly xdr: string;
  readonly durability: "persistent" | "temporary";
  lastModifiedLedgerSeq: number;
  liveUntilLedgerSeq: number;
}

/**
 * The state-archival settings (CONFIG_SETTING_STATE_ARCHIVAL) as pubnet has them since protocol
 * 23, from the config-settings capture in test/fixtures/stellar-rpc.
 */
export const STATE_ARCHIVAL = {
  maxEntryTtl: 3_110_400,
  minTemporaryTtl: 17_280,
  minPersistentTtl: 2_073_600,
  persistentRentRateDenominator: 2103n,
  tempRentRateDenominator: 4206n,
  maxEntriesToArchive: 1000,
  liveSorobanStateSizeWindowSampleSize: 30,
  liveSorobanStateSizeWindowSamplePeriod: 64,
  evictionScanSize: 100_000,
  startingEvictionScanLevel: 7,
} as const;

/** What `contract_expiring` leaves the demo storage key: about four minutes of ledgers. */
export const EXPIRING_TTL_LEDGERS = 40;

/**
 * Time to live of the demo entries at start, in ledgers (5 to 7 s each): the instance and code
 * about half a year (weeks even with 1 s ledgers), the asset contract the TTL a new persistent
 * entry gets (minPersistentTtl), the storage key 20 days (past the 14-day warning).
 */
export const DEMO_TTLS = {
  wasmInstance: 3_000_000,
  wasmCode: 2_500_000,
  storage: 290_000,
  assetInstance: STATE_ARCHIVAL.minPersistentTtl,
} as const;

/** A minimal valid wasm module (header and a custom section naming it): only its hash matters here. */
const DEMO_WASM = Buffer.concat([
  Buffer.from("0061736d01000000", "hex"),
  Buffer.from([0x00, 0x11, 0x10]),
  Buffer.from("stellar-exporter", "ascii"),
]);
const DEMO_WASM_HASH = hash(DEMO_WASM);

export function ledgerKeyBase64(key: xdr.LedgerKey): string {
  return key.toXDR("base64");
}

/** The instance's key: contract data SCV_LEDGER_KEY_CONTRACT_INSTANCE, persistent. */
function instanceKey(contractId: string): xdr.LedgerKey {
  return dataKey(contractId, xdr.ScVal.scvLedgerKeyContractInstance(), xdr.ContractDataDurability.persistent());
}

function dataKey(contractId: string, key: xdr.ScVal, durability: xdr.ContractDataDurability): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({ contract: Address.fromString(contractId).toScAddress(), key, durability }),
  );
}

function dataEntry(contractId: string, key: xdr.ScVal, val: xdr.ScVal): string {
  const entry = new xdr.ContractDataEntry({
    ext: new xdr.ExtensionPoint(0),
    contract: Address.fromString(contractId).toScAddress(),
    key,
    durability: xdr.ContractDataDurability.persistent(),
    val,
  });
  return xdr.LedgerEntryData.contractData(entry).toXDR("base64");
}

/** A contract id as the network derives one: deployer address and salt under the network id. */
function deployedContractId(networkPassphrase: string, deployer: string, salt: string): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: hash(Buffer.from(networkPassphrase)),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: Address.fromString(deployer).toScAddress(),
          salt: hash(Buffer.from(salt)),
        }),
      ),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXDR()));
}

export class SimulatedContracts {
  /** The demo's wasm contract (instance, code, one storage key) and USDC's Stellar Asset Contract. */
  readonly demo: readonly DemoContract[];
  /** The demo contracts' events, served by getEvents. */
  readonly events: SimulatedEvents;
  readonly #entries = new Map<string, SorobanEntry>();
  readonly #stateArchivalKey = ledgerKeyBase64(
    xdr.LedgerKey.configSetting(
      new xdr.LedgerKeyConfigSetting({ configSettingId: xdr.ConfigSettingId.configSettingStateArchival() }),
    ),
  );
  readonly #stateArchival = xdr.LedgerEntryData.configSetting(
    xdr.ConfigSettingEntry.configSettingStateArchival(
      new xdr.StateArchivalSettings({
        ...STATE_ARCHIVAL,
        persistentRentRateDenominator: xdr.Int64.fromString(String(STATE_ARCHIVAL.persistentRentRateDenominator)),
        tempRentRateDenominator: xdr.Int64.fromString(String(STATE_ARCHIVAL.tempRentRateDenominator)),
      }),
    ),
  ).toXDR("base64");
  readonly #expiringKey: string;

  constructor(
    private readonly networkPassphrase: string,
    at: LedgerPoint,
  ) {
    const counter = this.addWasmContract("counter", ["Counter"], at, {
      instance: DEMO_TTLS.wasmInstance,
      code: DEMO_TTLS.wasmCode,
      storage: DEMO_TTLS.storage,
    });
    // `contract_expiring` lets the counter's storage entry run out.
    this.#expiringKey = ledgerKeyBase64(
      dataKey(counter.id, xdr.ScVal.fromXDR(counter.keys[0]!.key, "base64"), xdr.ContractDataDurability.persistent()),
    );

    const assetId = new Asset("USDC", USDC_ISSUER).contractId(networkPassphrase);
    const metadata = xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("decimal"), val: xdr.ScVal.scvU32(7) }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("name"), val: xdr.ScVal.scvString(`USDC:${USDC_ISSUER}`) }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("symbol"), val: xdr.ScVal.scvString("USDC") }),
    ]);
    this.#add(
      instanceKey(assetId),
      dataEntry(
        assetId,
        xdr.ScVal.scvLedgerKeyContractInstance(),
        xdr.ScVal.scvContractInstance(
          new xdr.ScContractInstance({
            executable: xdr.ContractExecutable.contractExecutableStellarAsset(),
            storage: [new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("METADATA"), val: metadata })],
          }),
        ),
      ),
      at,
      DEMO_TTLS.assetInstance,
    );

    this.demo = [counter, { name: "usdc", id: assetId, keys: [] }];
    this.events = new SimulatedEvents(this.demo);
  }

  /**
   * Deploys a contract of the demo wasm from the hot wallet (its id derived from `name`), with a
   * persistent u32 entry under each symbol of `storage`; every contract shares the one code entry.
   */
  addWasmContract(
    name: string,
    storage: readonly string[],
    at: LedgerPoint,
    ttls: { readonly instance: number; readonly code: number; readonly storage: number },
  ): DemoContract {
    const id = deployedContractId(this.networkPassphrase, HOT_WALLET, `stellar-horizon-exporter demo ${name}`);
    this.#add(
      instanceKey(id),
      dataEntry(
        id,
        xdr.ScVal.scvLedgerKeyContractInstance(),
        xdr.ScVal.scvContractInstance(
          new xdr.ScContractInstance({
            executable: xdr.ContractExecutable.contractExecutableWasm(DEMO_WASM_HASH),
            storage: null,
          }),
        ),
      ),
      at,
      ttls.instance,
    );
    const codeKey = xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: DEMO_WASM_HASH }));
    if (!this.#entries.has(ledgerKeyBase64(codeKey))) {
      this.#add(
        codeKey,
        xdr.LedgerEntryData.contractCode(
          new xdr.ContractCodeEntry({ ext: new xdr.ContractCodeEntryExt(0), hash: DEMO_WASM_HASH, code: DEMO_WASM }),
        ).toXDR("base64"),
        at,
        ttls.code,
      );
    }
    const keys = storage.map((symbol, index) => {
      const key = xdr.ScVal.scvSymbol(symbol);
      this.#add(
        dataKey(id, key, xdr.ContractDataDurability.persistent()),
        dataEntry(id, key, xdr.ScVal.scvU32(42 + index)),
        at,
        ttls.storage,
      );
      return { name: symbol.toLowerCase(), key: key.toXDR("base64") };
    });
    return { name, id, keys };
  }

  /** The entry under a base64 LedgerKey, if the ledger holds one (archived or not). */
  get(key: string): SorobanEntry | undefined {
    return this.#entries.get(key);
  }

  /** The state-archival config setting's entry, under its key. */
  configSetting(key: string): string | undefined {
    return key === this.#stateArchivalKey ? this.#stateArchival : undefined;
  }

  /** `contract_expiring`: the demo storage key is left a few minutes of ledgers. */
  expireSoon(at: LedgerPoint): void {
    const entry = this.#entries.get(this.#expiringKey);
    if (entry === undefined) return;
    entry.liveUntilLedgerSeq = Math.min(entry.liveUntilLedgerSeq, at.ledger + EXPIRING_TTL_LEDGERS);
  }

  #add(key: xdr.LedgerKey, entryXdr: string, at: LedgerPoint, ttl: number): void {
    const encoded = ledgerKeyBase64(key);
    this.#entries.set(encoded, {
      key: encoded,
      xdr: entryXdr,
      durability: "persistent",
      lastModifiedLedgerSeq: at.ledger,
      liveUntilLedgerSeq: at.ledger + ttl,
    });
  }
}
