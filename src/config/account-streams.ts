/** What a watched account's activity settings ask of Horizon: its streams, and the requests they cost. */
import type { WatchedAccount } from "./accounts.js";

/** A watched account's streams, each with its own cursor. */
const STREAMS = ["payments", "transactions", "operations"] as const;
export type Stream = (typeof STREAMS)[number];

/** The streams the activity job reads of an account: payments and transactions with `activity`, and `operations`. */
export function streamsOf(account: Pick<WatchedAccount, "activity" | "operations">): Stream[] {
  return STREAMS.filter((stream) => (stream === "operations" ? account.operations : account.activity) === true);
}

/** Requests one activity poll sends in steady state: a page of each stream of each account. */
export function activityRequestsPerPoll(accounts: readonly WatchedAccount[]): number {
  return accounts.reduce((total, account) => total + streamsOf(account).length, 0);
}
