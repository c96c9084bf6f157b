// The activity poll as a whole: a long poll is kept alive by its answers, one account's failing stream does not stop
// the others, and the first poll starts after the newest record whatever order the answer comes in.
import { Keypair } from "@stellar/stellar-base";
import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { Query, RawRecords } from "../src/client/horizon-client.js";
import { AccountActivityJob, type ActivityReader } from "../src/collectors/account-activity.js";
import type { WatchedAccount } from "../src/config/accounts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { runnerFor } from "./support/job-harness.js";
import { ManualClock } from "./support/manual-clock.js";
import { pollContext } from "./support/poll-context.js";
import { renderSamples } from "./support/render-samples.js";

const SCHEDULE = parseSchedule("30s") as Schedule;

function watched(index: number): WatchedAccount {
  return {
    name: `a${index}`,
    id: Keypair.random().publicKey(),
    lowBalance: {},
    offers: false,
    claimableBalances: false,
    cold: false,
    activity: true,
    operations: true,
  };
}

/** A Horizon that answers every stream request with an empty page `answerMs` after it was asked, on the clock. */
function slowHorizon(clock: ManualClock, answerMs: number) {
  const asked: string[] = [];
  const reader: ActivityReader = {
    accountStream: (id: string, stream: string, _query: Query, signal?: AbortSignal) =>
      new Promise<RawRecords>((resolve, reject) => {
        asked.push(`${id} ${stream}`);
        const timer = clock.setTimeout(() => resolve([]), answerMs);
        signal?.addEventListener("abort", () => (clock.clearTimeout(timer), reject(signal.reason)), { once: true });
      }),
  };
  return { reader, asked };
}

describe("the activity poll's deadline", () => {
  it("lets a 12-request activity poll answered every 3 s finish (36 s, 12 budgets allowed), and reads every account", async () => {
    const clock = new ManualClock(0);
    const accounts = [0, 1, 2, 3].map(watched);
    const horizon = slowHorizon(clock, 3_000);
    const job = new AccountActivityJob(horizon.reader, accounts, SCHEDULE);
    expect(job.requestsPerRun).toBe(12);
    // 10 s timeout, 2 retries: one request budget is 30 s; the run may take 12 of them (360 s).
    const { runner } = runnerFor(job, { clock });
    const running = runner.run();
    for (let request = 0; request < 12; request += 1) await clock.advance(3_000);
    await running;
    // Each answer restarts the quiet timer: the run is not failed one budget after it started.
    expect(runner.snapshot().lastError).toBeUndefined();
    const last = accounts.at(-1)!.id;
    expect(horizon.asked.filter((request) => request.startsWith(last))).toHaveLength(3);
  });
});

type JsonRecord = Record<string, unknown>;
const BROKEN = Keypair.random().publicKey();
const HEALTHY = Keypair.random().publicKey();
const PAYER = Keypair.random().publicKey();

let nextToken = 1n << 40n;
function payment(to: string): JsonRecord {
  nextToken += 1n;
  return {
    paging_token: nextToken.toString(),
    type: "payment",
    created_at: "2026-11-27T12:00:00Z",
    transaction_successful: true,
    from: PAYER,
    to,
    amount: "1.0000000",
    asset_type: "native",
  };
}

function account(name: string, id: string): WatchedAccount {
  return { name, id, lowBalance: {}, offers: false, claimableBalances: false, cold: false, activity: true };
}

/** Payments by account, served as Horizon does; `failing` accounts answer every request with `failure`. */
class Horizon implements ActivityReader {
  readonly payments = new Map<string, JsonRecord[]>([
    [BROKEN, [payment(BROKEN)]],
    [HEALTHY, [payment(HEALTHY)]],
  ]);
  failing = new Set<string>();
  failure = new PollError("http_4xx", "HTTP 404: not found", { status: 404 });

  async accountStream(id: string, stream: string, query: Query): Promise<RawRecords> {
    if (this.failing.has(id)) throw this.failure;
    if (stream !== "payments") return [];
    const all = this.payments.get(id) ?? [];
    const token = (record: JsonRecord) =>
      /^\d+$/.test(record.paging_token as string) ? BigInt(record.paging_token as string) : -1n;
    const cursor = query.cursor === undefined ? undefined : BigInt(query.cursor);
    if (query.order === "desc") return all.slice(-1);
    return all.filter((record) => cursor === undefined || token(record) > cursor).slice(0, Number(query.limit));
  }
}

async function received(job: AccountActivityJob, name: string) {
  const samples = job.samples();
  const values = parseExposition(await renderSamples("h", [...samples.persistent, ...samples.live]));
  return valueOf(values, "stellar_horizon_account_payments_total", {
    horizon: "h",
    account: name,
    direction: "received",
    asset: "native",
  });
}

describe("one account's failing stream and the other watched accounts", () => {
  it("keeps counting a healthy account's payments while another account's stream fails at every poll", async () => {
    const horizon = new Horizon();
    const job = new AccountActivityJob(horizon, [account("broken", BROKEN), account("healthy", HEALTHY)], SCHEDULE);
    await job.run(pollContext());
    // From now on the first account's streams fail at every poll (a 404 after records, say: a poll error).
    horizon.failing.add(BROKEN);
    for (let poll = 0; poll < 3; poll++) {
      horizon.payments.get(HEALTHY)!.push(payment(HEALTHY));
      await expect(job.run(pollContext())).rejects.toBeInstanceOf(PollError);
    }
    expect(await received(job, "healthy")).toBe(3);
  });

  it("never loses the payments of an account whose first poll is held up by another account's bad newest record", async () => {
    const horizon = new Horizon();
    // The first account's newest payment carries a paging token no cursor can use: its first poll fails (by design,
    // retried at every poll) until a newer record comes.
    horizon.payments.set(BROKEN, [{ ...payment(BROKEN), paging_token: "abc" }]);
    const job = new AccountActivityJob(horizon, [account("broken", BROKEN), account("healthy", HEALTHY)], SCHEDULE);
    await expect(job.run(pollContext())).rejects.toMatchObject({ reason: "paging" });
    for (let poll = 0; poll < 3; poll++) {
      horizon.payments.get(HEALTHY)!.push(payment(HEALTHY));
      await expect(job.run(pollContext())).rejects.toMatchObject({ reason: "paging" });
    }
    // The broken account gets a newer, good record; two more polls.
    horizon.payments.get(BROKEN)!.push(payment(BROKEN));
    await job.run(pollContext());
    await job.run(pollContext());
    // Its first poll was at the exporter's first poll: the three payments since are counted.
    expect(await received(job, "healthy")).toBe(3);
  });
});

const ME = Keypair.random().publicKey();

function operation(token: bigint) {
  return {
    paging_token: token.toString(),
    type: "set_options",
    created_at: "2026-11-27T12:00:00Z",
    transaction_successful: true,
  };
}

describe("the first poll's newest record", () => {
  it("starts after the newest record served, even when the answer to order=desc&limit=1 is an ascending page", async () => {
    // History from before the exporter started: 50 set_options operations.
    const history = Array.from({ length: 50 }, (_, index) => operation(1_000n + BigInt(index)));
    const reader: ActivityReader = {
      // Every request answered with the account's whole ascending history after the cursor, whatever order and limit.
      accountStream: async (_id, _stream, query): Promise<RawRecords> =>
        history.filter((record) => query.cursor === undefined || BigInt(record.paging_token) > BigInt(query.cursor)),
    };
    const watched: WatchedAccount = {
      name: "cold",
      id: ME,
      lowBalance: {},
      offers: false,
      claimableBalances: false,
      cold: true,
      operations: true,
    };
    const job = new AccountActivityJob(reader, [watched], SCHEDULE);
    await job.run(pollContext());
    await job.run(pollContext());
    const samples = job.samples();
    const values = parseExposition(await renderSamples("h", [...samples.persistent, ...samples.live]));
    // Nothing older than the exporter counts (StellarAccountUnexpectedOperation would fire for history).
    expect(
      valueOf(values, "stellar_horizon_account_operations_total", {
        horizon: "h",
        account: "cold",
        type: "set_options",
      }),
    ).toBe(0);
  });
});

/** A Horizon that is down: every request is answered 503 (after the client's retries). */
function downHorizon() {
  const asked: string[] = [];
  const reader: ActivityReader = {
    accountStream: async (id: string, stream: string, _query: Query): Promise<RawRecords> => {
      asked.push(`${id} ${stream}`);
      throw new PollError("http_5xx", "HTTP 503: Service Unavailable", { status: 503 });
    },
  };
  return { reader, asked };
}

describe("the activity poll against a Horizon that is down", () => {
  it("stops at the first 5xx (the other streams would fare no better) rather than asking every stream", async () => {
    const horizon = downHorizon();
    const job = new AccountActivityJob(
      horizon.reader,
      Array.from({ length: 10 }, (_, index) => watched(index)),
      SCHEDULE,
    );
    await expect(job.run(pollContext())).rejects.toMatchObject({ reason: "http_5xx" });
    // The other streams would fare no better: asking each (with retries) would only hammer it.
    expect(horizon.asked).toHaveLength(1);
  });
});
