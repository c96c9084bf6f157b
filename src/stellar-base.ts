import { createRequire } from "node:module";

type StellarBase = typeof import("@stellar/stellar-base");

let loaded: StellarBase | undefined;

/**
 * The Stellar SDK's base library, loaded on first use: its 4 MiB of heap and 7 MiB of RSS are not for an exporter
 * that watches no account and runs no probe. It is CommonJS, so a synchronous require can load it late.
 */
export function stellarBase(): StellarBase {
  loaded ??= createRequire(import.meta.url)("@stellar/stellar-base") as StellarBase;
  return loaded;
}
