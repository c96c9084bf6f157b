/**
 * The accounts every simulator starts with, and what the account scenarios do to them: an
 * exchange's hot wallet (trades all day) and its cold wallet (never moves), as operators watch them.
 */

import type { RpcWatchedAccount, WatchedAccount } from "../config/accounts.js";
import { deterministicAccountId, type LedgerPoint, type SimulatedAccounts } from "./accounts.js";
import type { SimulatedOperation, SimulatedTransaction } from "./account-history.js";
import { BASE_RESERVE_STROOPS } from "./ledgers.js";
import type { AccountEvent, ScenarioBehaviour } from "./scenarios.js";

/** Circle's USDC issuer on pubnet. */
export const USDC_ISSUER = "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
export const USDC = `USDC:${USDC_ISSUER}`;
export const HOT_WALLET = deterministicAccountId("stellar-horizon-exporter simulator: hot wallet");
export const COLD_WALLET = deterministicAccountId("stellar-horizon-exporter simulator: cold wallet");
/** The exchange's customers: one deposits USDC into the hot wallet, one is paid lumens from it. */
export const DEPOSITOR = deterministicAccountId("stellar-horizon-exporter simulator: depositor");
export const CUSTOMER = deterministicAccountId("stellar-horizon-exporter simulator: customer");
/** Where `account_drain` sends the hot wallet's lumens. */
export const THIEF = deterministicAccountId("stellar-horizon-exporter simulator: thief");
/** The signer `signer_change` adds to the cold wallet. */
export const INTRUDER_SIGNER = deterministicAccountId("stellar-horizon-exporter simulator: new signer");
/** The pool the hot wallet holds shares of when the simulator has none: one from a real capture. */
export const HOT_WALLET_POOL = "59fa1dc57433dcfbd2db7319d26cb3da1f28f2d8095a3ec36ad4ef9cadb0013e";

const STROOPS = 10_000_000n;
/** USDC trustline limit of the hot wallet, and its balance in normal operation (60 % used). */
const USDC_LIMIT = 50_000n * STROOPS;
const USDC_BALANCE = 30_000n * STROOPS;
const OFFER_AMOUNT = 100n * STROOPS;
const OFFERS = 3n;
/** The hot wallet sends a transaction every this many ledgers (about a minute). */
const HOT_WALLET_EVERY_LEDGERS = 12;
const HOT_WALLET_FEE = 100n;
const COLD_WALLET_IDLE_LEDGERS = 900;
/** What `account_drain` leaves spendable: below the NativeNearMinimumBalance alert's 10 XLM. */
const DRAINED_SPENDABLE = 25_000_000n;
/** What `account_drain` pushes the USDC trustline to: 97 % of its limit. */
const DRAINED_USDC = (USDC_LIMIT * 97n) / 100n;

/** A payout to a customer, a deposit from one: well under the demo's outflow limit of 5000 XLM an hour. */
const PAYOUT = 40n * STROOPS;
const DEPOSIT = 25n * STROOPS;
/** Every this many payouts, one is a path payment (lumens sent, USDC received). */
const PATH_PAYMENT_EVERY = 3;

/** How the demo (and the end-to-end test) watch the two wallets, so every account alert has data. */
export const DEMO_WATCHED_ACCOUNTS: readonly WatchedAccount[] = [
  {
    name: "hot",
    id: HOT_WALLET,
    lowBalance: { native: 5000, [USDC]: 100 },
    offers: true,
    claimableBalances: true,
    cold: false,
    activity: true,
    expectPaymentWithinSeconds: 600,
    maxOutflowPerHour: { native: 5000 },
  },
  {
    name: "cold",
    id: COLD_WALLET,
    lowBalance: { native: 100_000 },
    offers: false,
    claimableBalances: true,
    cold: true,
    activity: true,
    operations: true,
  },
];

/** The same wallets watched over the simulator's Stellar RPC, reading their USDC trustlines. */
export const DEMO_RPC_WATCHED_ACCOUNTS: readonly RpcWatchedAccount[] = DEMO_WATCHED_ACCOUNTS.map(
  ({ offers: _offers, claimableBalances: _claimable, ...account }) => ({ ...account, assets: [USDC] }),
);

/** `heldPool` is the pool the hot wallet holds shares of: one the simulator serves, so its pair is known. */
export function addDemoAccounts(
  accounts: SimulatedAccounts,
  at: LedgerPoint,
  heldPool: string = HOT_WALLET_POOL,
): void {
  accounts.add(
    {
      id: HOT_WALLET,
      balance: 25_000n * STROOPS,
      nativeSellingLiabilities: OFFERS * OFFER_AMOUNT,
      trustlines: [{ asset: USDC, balance: USDC_BALANCE, limit: USDC_LIMIT, buyingLiabilities: 95n * STROOPS }],
      poolShares: [{ poolId: heldPool, balance: 2816_6567089n }],
      signers: [{ key: COLD_WALLET, weight: 1 }],
      thresholds: { low: 1, medium: 1, high: 2 },
      homeDomain: "hot.example.com",
      data: { purpose: Buffer.from("hot wallet").toString("base64") },
      offers: Array.from({ length: Number(OFFERS) }, (_, index) => ({
        selling: "native",
        buying: USDC,
        amount: OFFER_AMOUNT,
        price: { n: 95 + index, d: 1000 },
      })),
    },
    at,
  );
  accounts.add(
    {
      id: COLD_WALLET,
      balance: 1_000_000n * STROOPS,
      trustlines: [{ asset: USDC, balance: 250_000n * STROOPS }],
      thresholds: { low: 2, medium: 2, high: 2 },
      masterWeight: 2,
      flags: { authRequired: false },
      homeDomain: "cold.example.com",
      numSponsoring: 1,
    },
    at,
  );
  // Their last transactions: the cold wallet's long ago.
  accounts.bumpSequence(HOT_WALLET, at);
  accounts.bumpSequence(COLD_WALLET, {
    ledger: at.ledger - COLD_WALLET_IDLE_LEDGERS,
    closedAtMs: at.closedAtMs - COLD_WALLET_IDLE_LEDGERS * 5_500,
  });
  accounts.addClaimableBalance({
    asset: USDC,
    amount: 1_250n * STROOPS,
    sponsor: HOT_WALLET,
    claimants: [COLD_WALLET],
    lastModified: at,
  });
  accounts.addClaimableBalance({
    asset: "native",
    amount: 40n * STROOPS,
    sponsor: HOT_WALLET,
    claimants: [COLD_WALLET, HOT_WALLET],
    lastModified: at,
  });
}

/**
 * The hot wallet's everyday traffic: a payout (a transaction and its fee) every
 * HOT_WALLET_EVERY_LEDGERS, and half-way between two, a customer's USDC deposit unless the scenario
 * stops them. While transactions fail network-wide, every other payout fails underfunded.
 */
export function runDemoActivity(
  accounts: SimulatedAccounts,
  ledger: LedgerPoint,
  behaviour?: Pick<ScenarioBehaviour, "deposits" | "failedShare">,
): void {
  if (accounts.get(HOT_WALLET) === undefined) return;
  const slot = ledger.ledger % HOT_WALLET_EVERY_LEDGERS;
  if (slot === HOT_WALLET_EVERY_LEDGERS / 2 && behaviour?.deposits !== "stopped") {
    const deposit: SimulatedOperation = { type: "payment", to: HOT_WALLET, asset: USDC, amount: DEPOSIT };
    const sequence = BigInt(ledger.ledger) << 8n;
    accounts.history.record({ source: DEPOSITOR, sequence, fee: HOT_WALLET_FEE, operations: [deposit] }, ledger);
  }
  if (slot !== 0) return;
  const sequence = accounts.bumpSequence(HOT_WALLET, ledger);
  accounts.chargeFee(HOT_WALLET, HOT_WALLET_FEE, ledger);
  const payout = ledger.ledger / HOT_WALLET_EVERY_LEDGERS;
  const failing = (behaviour?.failedShare[0] ?? 0) > 0.5 && payout % 2 === 0;
  const operation: SimulatedOperation =
    payout % PATH_PAYMENT_EVERY === 0
      ? {
          type: "path_payment_strict_send",
          to: CUSTOMER,
          sourceAsset: "native",
          sourceAmount: PAYOUT,
          asset: USDC,
          amount: PAYOUT / 10n,
        }
      : { type: "payment", to: CUSTOMER, asset: "native", amount: PAYOUT };
  const transaction: SimulatedTransaction = {
    source: HOT_WALLET,
    sequence,
    fee: HOT_WALLET_FEE,
    operations: [operation],
  };
  accounts.history.record(failing ? { ...transaction, failure: "op_underfunded" } : transaction, ledger);
}

/** Records a demo wallet's own one-operation transaction, sent at `at` (its sequence already bumped). */
function recordOwn(accounts: SimulatedAccounts, source: string, operation: SimulatedOperation, at: LedgerPoint): void {
  const sequence = accounts.get(source)?.sequence ?? 0n;
  accounts.history.record({ source, sequence, fee: HOT_WALLET_FEE, operations: [operation] }, at);
}

/** A scenario's one-off change to the demo accounts; each leaves them changed, as on a real ledger. */
export function applyAccountEvent(accounts: SimulatedAccounts, event: AccountEvent, at: LedgerPoint): void {
  const hot = accounts.get(HOT_WALLET);
  switch (event) {
    case "change_signer":
      // Someone with the cold wallet's keys adds a signer: its sequence moves, which it never should.
      if (accounts.get(COLD_WALLET) === undefined) return;
      accounts.bumpSequence(COLD_WALLET, at);
      accounts.setSigner(COLD_WALLET, { key: INTRUDER_SIGNER, weight: 2 }, at);
      recordOwn(accounts, COLD_WALLET, { type: "set_options" }, at);
      return;
    case "drain_account": {
      // The hot wallet's lumens are sold into USDC down to just above its reserve.
      if (hot === undefined) return;
      const minimum =
        BigInt(2 + accounts.subentries(HOT_WALLET) + hot.numSponsoring - hot.numSponsored) *
        BigInt(BASE_RESERVE_STROOPS);
      accounts.bumpSequence(HOT_WALLET, at);
      const drained = hot.balance - (minimum + hot.nativeSellingLiabilities + DRAINED_SPENDABLE);
      accounts.setBalance(HOT_WALLET, "native", minimum + hot.nativeSellingLiabilities + DRAINED_SPENDABLE, at);
      accounts.setBalance(HOT_WALLET, USDC, DRAINED_USDC, at);
      // The lumens leave in one payment to an unknown account: the outflow a drain alert sees.
      if (drained > 0n)
        recordOwn(accounts, HOT_WALLET, { type: "payment", to: THIEF, asset: "native", amount: drained }, at);
      return;
    }
    case "merge_account":
      if (hot === undefined || accounts.get(COLD_WALLET) === undefined) return;
      recordOwn(accounts, HOT_WALLET, { type: "account_merge", into: COLD_WALLET }, at);
      accounts.merge(HOT_WALLET, COLD_WALLET, at);
      return;
    case "deauthorize_trustline":
      // The issuer revokes the hot wallet's USDC authorisation; the holder sends nothing.
      if (hot === undefined) return;
      accounts.setAuthorized(HOT_WALLET, USDC, false, at);
      return;
  }
}
