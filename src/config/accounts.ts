/** Watched accounts: what the `accounts:` config key, `--account` and ACCOUNTS describe. */

export interface WatchedAccount {
  /** The `account` label. */
  readonly name: string;
  /** A G... account id. */
  readonly id: string;
  /** Low-water marks by asset (`native`, `CODE:ISSUER`, `pool:<id>`), in units of the asset. */
  readonly lowBalance: Readonly<Record<string, number>>;
  /** Also count the account's open offers. */
  readonly offers: boolean;
  /** Also sum the balances the account can claim. */
  readonly claimableBalances: boolean;
  /** A cold wallet: any transaction from it is unexpected. */
  readonly cold: boolean;
}
