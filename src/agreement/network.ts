import { stellarBase } from "../stellar-base.js";

/** The networks SDF runs, by passphrase, under the names operators call them. */
export const KNOWN_NETWORKS: Readonly<Record<string, string>> = {
  "Public Global Stellar Network ; September 2015": "pubnet",
  "Test SDF Network ; September 2015": "testnet",
  "Test SDF Future Network ; October 2022": "futurenet",
};

/** The agreement series' `network` label: a known network's name, any other a prefix of its passphrase's SHA-256, so
 * private networks never share a name and the passphrase (it may name a customer) stays out; SDF's need no SDK. */
export function networkOf(passphrase: string): string {
  return KNOWN_NETWORKS[passphrase] ?? stellarBase().hash(Buffer.from(passphrase, "utf8")).toString("hex").slice(0, 8);
}
