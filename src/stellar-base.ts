import { createRequire } from "node:module";

type StellarBase = typeof import("@stellar/stellar-base");

let loaded: StellarBase | undefined;

/** The Stellar SDK's base library, loaded on first use: its heap and RSS are not for an exporter that watches no
 * account and runs no probe. It is CommonJS, so a synchronous require can load it late. */
export function stellarBase(): StellarBase {
  return (loaded ??= createRequire(import.meta.url)("@stellar/stellar-base") as StellarBase);
}
