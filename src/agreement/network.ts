import { stellarBase } from "../stellar-base.js";

/** The networks SDF runs, by passphrase, under the names operators call them. */
export const KNOWN_NETWORKS: Readonly<Record<string, string>> = {
  "Public Global Stellar Network ; September 2015": "pubnet",
  "Test SDF Network ; September 2015": "testnet",
  "Test SDF Future Network ; October 2022": "futurenet",
};

/**
 * The agreement series' `network` label: a known network's name, any other the first 8 hex digits of its passphrase's
 * SHA-256, so two private networks never share a name and the passphrase (which may name a customer) stays out of
 * the label. The SDK is loaded only for such a passphrase: an exporter watching SDF's networks never carries it.
 */
export function networkOf(passphrase: string): string {
  return KNOWN_NETWORKS[passphrase] ?? stellarBase().hash(Buffer.from(passphrase, "utf8")).toString("hex").slice(0, 8);
}
