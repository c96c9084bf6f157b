import { Account, Keypair, MuxedAccount, StrKey, xdr } from "@stellar/stellar-base";
import { describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import type { Query, RawRecords } from "../src/client/horizon-client.js";
import {
  ASSETS_PER_ACCOUNT,
  AccountActivityJob,
  OPERATION_TYPES_PER_ACCOUNT,
  type ActivityReader,
} from "../src/collectors/account-activity.js";
import { failureCode } from "../src/collectors/payment-records.js";
import type { WatchedAccount } from "../src/config/accounts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { NetworkView } from "../src/job/network.js";
import { renderSamples } from "./support/render-samples.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { fixtureJson } from "./support/fixtures.js";
import { pollContext } from "./support/poll-context.js";

type JsonRecord = Record<string, unknown>;
type StreamName = "payments" | "transactions" | "operations";

const SCHEDULE = parseSchedule("30s") as Schedule;
const ME = Keypair.random().publicKey();
const OTHER = Keypair.random().publicKey();
const USDC = `USDC:${Keypair.random().publicKey()}`;

/** Horizon's answer for an account it never saw. */
const problem = { type: "https://stellar.org/horizon-errors/not_found", title: "Resource Missing", status: 404 };

/**
 * An independent Horizon's three streams of one account, in memory: it serves them as Horizon
 * does (ascending or descending from a cursor, `limit`, `include_failed`), and a 404 while the
 * account is unknown. `repeat` makes each ascending page start again at the cursor's own record.
 */
class Streams implements ActivityReader {
  readonly records: Record<StreamName, JsonRecord[]> = { payments: [], transactions: [], operations: [] };
  known = true;
  repeat = false;
  requests: { stream: StreamName; query: Query }[] = [];
  failWith?: PollError;

  async accountStream(id: string, stream: StreamName, query: Query): Promise<RawRecords> {
    this.requests.push({ stream, query });
    if (this.failWith) throw this.failWith;
    if (!this.known || id !== ME) throw new PollError("http_4xx", "HTTP 404: not found", { status: 404, problem });
    const all = this.records[stream].filter(
      (record) => query.include_failed === "true" || record.transaction_successful !== false,
    );
    const token = (record: JsonRecord) => BigInt(record.paging_token as string);
    const cursor = query.cursor === undefined ? undefined : BigInt(query.cursor);
    const limit = Number(query.limit);
    if (query.order === "desc")
      return all
        .filter((r) => cursor === undefined || token(r) < cursor)
        .reverse()
        .slice(0, limit);
    const after = all.filter((record) => cursor === undefined || token(record) > cursor);
    const repeated = this.repeat ? all.filter((record) => token(record) === cursor) : [];
    return [...repeated, ...after].slice(0, limit);
  }
}

let nextToken = 1n << 32n;
function token(): string {
  nextToken += 1n;
  return nextToken.toString();
}

function payment(from: string, to: string, amount: string, asset = "native", extra: JsonRecord = {}): JsonRecord {
  const [code, issuer] = asset.split(":");
  return {
    paging_token: token(),
    type: "payment",
    type_i: 1,
    created_at: "2026-11-27T12:00:00Z",
    transaction_successful: true,
    from,
    to,
    amount,
    ...(asset === "native"
      ? { asset_type: "native" }
      : { asset_type: "credit_alphanum4", asset_code: code, asset_issuer: issuer }),
    ...extra,
  };
}

function resultXdr(result: xdr.TransactionResultResult, fee = 100): string {
  return new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString(String(fee)),
    result,
    ext: new xdr.TransactionResultExt(0),
  }).toXDR("base64");
}

const SUCCESS_XDR = resultXdr(xdr.TransactionResultResult.txSuccess([]));
const BAD_SEQ_XDR = resultXdr(xdr.TransactionResultResult.txBadSeq());
const UNDERFUNDED_XDR = resultXdr(
  xdr.TransactionResultResult.txFailed([
    xdr.OperationResult.opInner(xdr.OperationResultTr.payment(xdr.PaymentResult.paymentSuccess())),
    xdr.OperationResult.opInner(xdr.OperationResultTr.payment(xdr.PaymentResult.paymentUnderfunded())),
  ]),
);

function transaction(
  source: string,
  successful: boolean,
  result: string,
  fee = "100",
  feeAccount = source,
): JsonRecord {
  return {
    paging_token: token(),
    created_at: "2026-11-27T12:00:00Z",
    successful,
    source_account: source,
    fee_account: feeAccount,
    fee_charged: fee,
    result_xdr: result,
  };
}

function operation(type: string, successful = true): JsonRecord {
  return { paging_token: token(), type, created_at: "2026-11-27T12:00:00Z", transaction_successful: successful };
}

function account(options: Partial<WatchedAccount> = {}): WatchedAccount {
  return {
    name: "deposits",
    id: ME,
    lowBalance: {},
    offers: false,
    claimableBalances: false,
    cold: false,
    activity: true,
    ...options,
  };
}

async function series(job: AccountActivityJob): Promise<Map<string, number>> {
  const samples = job.samples();
  const rendered = await renderSamples("h", [...samples.persistent, ...samples.live]);
  return parseExposition(rendered);
}

const at = (labels: Record<string, string> = {}) => ({ horizon: "h", account: "deposits", ...labels });

describe("AccountActivityJob", () => {
  it("counts nothing at the first poll, which reads the newest record of each stream, and sets the last payment time", async () => {
    const horizon = new Streams();
    horizon.records.payments.push(payment(OTHER, ME, "5.0000000"), payment(OTHER, ME, "7.0000000"));
    horizon.records.transactions.push(transaction(ME, true, SUCCESS_XDR));
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    await job.run(pollContext());
    expect(
      horizon.requests.map(({ stream, query }) => [stream, query.order, query.limit, query.include_failed]),
    ).toEqual([
      ["payments", "desc", 1, "false"],
      ["transactions", "desc", 1, "true"],
    ]);
    const values = await series(job);
    expect(
      valueOf(values, "stellar_horizon_account_payments_total", at({ direction: "received", asset: "native" })),
    ).toBe(undefined);
    expect(valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "successful" }))).toBe(0);
    expect(valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "failed" }))).toBe(0);
    expect(valueOf(values, "stellar_horizon_account_fee_charged_stroops_total", at())).toBe(0);
    expect(
      valueOf(values, "stellar_horizon_account_last_payment_timestamp_seconds", at({ direction: "received" })),
    ).toBe(Date.parse("2026-11-27T12:00:00Z") / 1000);
    expect(valueOf(values, "stellar_horizon_account_last_payment_timestamp_seconds", at({ direction: "sent" }))).toBe(
      undefined,
    );
  });

  it.each(["abc", "", "-1", String(2n ** 64n)])(
    "fails a first poll whose newest record's paging token is %j, and starts at the next one",
    async (badToken) => {
      const horizon = new Streams();
      horizon.records.payments.push(payment(OTHER, ME, "5.0000000"));
      const good = horizon.records.payments[0]!.paging_token;
      horizon.records.payments[0]!.paging_token = badToken;
      const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
      await expect(job.run(pollContext())).rejects.toMatchObject({ reason: "paging" });
      horizon.records.payments[0]!.paging_token = good;
      await job.run(pollContext());
      expect(horizon.requests.filter(({ stream }) => stream === "payments").map(({ query }) => query.order)).toEqual([
        "desc",
        "desc",
      ]);
      horizon.records.payments.push(payment(OTHER, ME, "7.0000000"));
      await job.run(pollContext());
      const values = await series(job);
      // The payment served at the start is not counted; the one after it is, once.
      expect(
        valueOf(values, "stellar_horizon_account_payments_total", at({ direction: "received", asset: "native" })),
      ).toBe(1);
    },
  );

  it("counts every payment served after the first poll exactly once, across pages, polls and repeated records", async () => {
    const horizon = new Streams();
    horizon.records.payments.push(payment(OTHER, ME, "1.0000000"));
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    // 450 received (three pages in one poll), then 3 more, with every ascending page repeating its cursor record.
    let expected = 0n;
    for (let i = 0; i < 450; i++) {
      const stroops = BigInt(i * 1_234_567 + 1);
      expected += stroops;
      horizon.records.payments.push(
        payment(OTHER, ME, `${stroops / 10_000_000n}.${(stroops % 10_000_000n).toString().padStart(7, "0")}`),
      );
    }
    horizon.repeat = true;
    await job.run(ctx);
    horizon.records.payments.push(payment(OTHER, ME, "0.1000000"), payment(OTHER, ME, "0.2000000"));
    horizon.records.payments.push(payment(OTHER, ME, "0.3000000"));
    await job.run(ctx);
    await job.run(ctx);
    const values = await series(job);
    const received = at({ direction: "received", asset: "native" });
    expect(valueOf(values, "stellar_horizon_account_payments_total", received)).toBe(453);
    const exact = expected + 6_000_000n;
    expect(valueOf(values, "stellar_horizon_account_payment_amount_total", received)).toBe(
      Number(`${exact / 10_000_000n}.${(exact % 10_000_000n).toString().padStart(7, "0")}`),
    );
    expect(ctx.invalid).toBe(0);
  });

  it("after a restart counts nothing old: a new job's first poll counts nothing, its next only what came after", async () => {
    const horizon = new Streams();
    // History from before the first job started, which Horizon keeps serving.
    horizon.records.payments.push(payment(OTHER, ME, "100.0000000"), payment(ME, OTHER, "200.0000000"));
    horizon.records.transactions.push(transaction(ME, true, SUCCESS_XDR, "1000"));
    horizon.records.operations.push(operation("set_options"), operation("payment"));
    const watched = account({ operations: true });
    const counts = async (job: AccountActivityJob) => {
      const values = await series(job);
      return {
        received: valueOf(
          values,
          "stellar_horizon_account_payments_total",
          at({ direction: "received", asset: "native" }),
        ),
        receivedAmount: valueOf(
          values,
          "stellar_horizon_account_payment_amount_total",
          at({ direction: "received", asset: "native" }),
        ),
        sent: valueOf(values, "stellar_horizon_account_payments_total", at({ direction: "sent", asset: "native" })),
        successful: valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "successful" })),
        fees: valueOf(values, "stellar_horizon_account_fee_charged_stroops_total", at()),
        setOptions: valueOf(values, "stellar_horizon_account_operations_total", at({ type: "set_options" })),
        payments: valueOf(values, "stellar_horizon_account_operations_total", at({ type: "payment" })),
      };
    };
    const ctx = pollContext();

    // The first process: starts at the newest records, then counts two polls' worth.
    const before = new AccountActivityJob(horizon, [watched], SCHEDULE);
    await before.run(ctx);
    horizon.records.payments.push(payment(OTHER, ME, "1.0000000"));
    horizon.records.transactions.push(transaction(ME, true, SUCCESS_XDR, "10"));
    horizon.records.operations.push(operation("payment"));
    await before.run(ctx);
    horizon.records.payments.push(payment(OTHER, ME, "2.0000000"), payment(ME, OTHER, "4.0000000"));
    horizon.records.operations.push(operation("set_options"));
    await before.run(ctx);
    expect(await counts(before)).toEqual({
      received: 2,
      receivedAmount: 3,
      sent: 1,
      successful: 1,
      fees: 10,
      setOptions: 1,
      payments: 1,
    });

    // The restarted process, against the same Horizon: all of the above is history to it.
    const after = new AccountActivityJob(horizon, [watched], SCHEDULE);
    await after.run(ctx);
    expect(await counts(after)).toEqual({
      received: undefined,
      receivedAmount: undefined,
      sent: undefined,
      successful: 0,
      fees: 0,
      setOptions: 0,
      payments: undefined,
    });
    horizon.records.payments.push(payment(OTHER, ME, "0.5000000"));
    horizon.records.transactions.push(transaction(ME, true, SUCCESS_XDR, "7"), transaction(ME, true, SUCCESS_XDR, "8"));
    horizon.records.operations.push(operation("payment"), operation("payment"), operation("payment"));
    await after.run(ctx);
    expect(await counts(after)).toEqual({
      received: 1,
      receivedAmount: 0.5,
      sent: undefined,
      successful: 2,
      fees: 15,
      setOptions: 0,
      payments: 3,
    });
    expect(ctx.invalid).toBe(0);
  });

  it("reads at most 5 pages of 200 a stream and poll, and continues the backlog at the next poll", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account({ activity: false, operations: true })], SCHEDULE);
    await job.run(pollContext());
    for (let i = 0; i < 1_300; i++) horizon.records.operations.push(operation("payment"));
    horizon.requests = [];
    await job.run(pollContext());
    expect(horizon.requests).toHaveLength(5);
    expect(valueOf(await series(job), "stellar_horizon_account_operations_total", at({ type: "payment" }))).toBe(1000);
    await job.run(pollContext());
    expect(valueOf(await series(job), "stellar_horizon_account_operations_total", at({ type: "payment" }))).toBe(1300);
  });

  it("counts path payments on both sides, merges without an amount, self-payments both ways and balance changes", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    await job.run(pollContext());
    const [code, issuer] = USDC.split(":");
    horizon.records.payments.push(
      {
        ...payment(ME, OTHER, "10.0000000", USDC),
        type: "path_payment_strict_send",
        type_i: 13,
        source_asset_type: "native",
        source_amount: "123.4567890",
      },
      {
        ...payment(OTHER, ME, "2.5000000", "native"),
        type: "path_payment_strict_receive",
        type_i: 2,
        source_asset_type: "credit_alphanum4",
        source_asset_code: code,
        source_asset_issuer: issuer,
        source_amount: "2.0000000",
      },
      {
        paging_token: token(),
        type: "account_merge",
        type_i: 8,
        created_at: "2026-11-27T12:01:00Z",
        account: OTHER,
        into: ME,
      },
      payment(ME, ME, "3.0000000", USDC),
      {
        paging_token: token(),
        type: "create_account",
        created_at: "2026-11-27T12:02:00Z",
        funder: ME,
        account: OTHER,
        starting_balance: "1.5000000",
      },
      {
        paging_token: token(),
        type: "invoke_host_function",
        created_at: "2026-11-27T12:03:00Z",
        transaction_successful: true,
        asset_balance_changes: [
          {
            asset_type: "credit_alphanum4",
            asset_code: code,
            asset_issuer: issuer,
            type: "transfer",
            from: OTHER,
            to: ME,
            amount: "4.0000000",
          },
          {
            asset_type: "credit_alphanum4",
            asset_code: code,
            asset_issuer: issuer,
            type: "mint",
            from: issuer,
            to: ME,
            amount: "1.0000000",
          },
          {
            asset_type: "credit_alphanum4",
            asset_code: code,
            asset_issuer: issuer,
            type: "clawback",
            from: ME,
            to: issuer,
            amount: "0.5000000",
          },
          {
            asset_type: "credit_alphanum4",
            asset_code: code,
            asset_issuer: issuer,
            type: "burn",
            from: ME,
            amount: "9.0000000",
          },
        ],
      },
      payment(OTHER, ME, "1000.0000000", "native", { transaction_successful: false }),
    );
    horizon.records.payments.at(-1)!.transaction_successful = false;
    await job.run(pollContext());
    const values = await series(job);
    const count = (direction: string, asset: string) =>
      valueOf(values, "stellar_horizon_account_payments_total", at({ direction, asset }));
    const amount = (direction: string, asset: string) =>
      valueOf(values, "stellar_horizon_account_payment_amount_total", at({ direction, asset }));
    // Sent: the path payment's native source amount, the self-payment, the create_account, the clawback.
    expect([count("sent", "native"), amount("sent", "native")]).toEqual([2, 124.956789]);
    expect([count("sent", USDC), amount("sent", USDC)]).toEqual([2, 3.5]);
    // Received: the path payment's destination amount, the merge (no amount), self-payment, transfer and mint.
    expect([count("received", "native"), amount("received", "native")]).toEqual([2, 2.5]);
    expect([count("received", USDC), amount("received", USDC)]).toEqual([3, 8]);
    expect(valueOf(values, "stellar_horizon_account_last_payment_timestamp_seconds", at({ direction: "sent" }))).toBe(
      Date.parse("2026-11-27T12:03:00Z") / 1000,
    );
  });

  it("counts balance changes with contract (C...) holders and payments to a muxed (M...) address for its account", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    const [contract, otherContract] = [0, 1].map(() => StrKey.encodeContract(Keypair.random().rawPublicKey()));
    const [code, issuer] = USDC.split(":");
    const usdc = { asset_type: "credit_alphanum4", asset_code: code, asset_issuer: issuer };
    const invoke = (...changes: JsonRecord[]) => ({
      paging_token: token(),
      type: "invoke_host_function",
      created_at: "2026-11-27T12:03:00Z",
      transaction_successful: true,
      asset_balance_changes: changes,
    });
    horizon.records.payments.push(
      invoke(
        { ...usdc, type: "transfer", from: contract, to: ME, amount: "4.0000000" },
        { asset_type: "native", type: "transfer", from: ME, to: contract, amount: "1.5000000" },
        // Horizon omits a mint's `from`.
        { ...usdc, type: "mint", to: ME, amount: "1.0000000" },
        { ...usdc, type: "transfer", from: contract, to: otherContract, amount: "8.0000000" },
      ),
      payment(OTHER, new MuxedAccount(new Account(ME, "0"), "42").accountId(), "2.0000000"),
      // Shaped like a contract address, its checksum wrong: not an address.
      invoke({ ...usdc, type: "transfer", from: `C${"A".repeat(55)}`, to: ME, amount: "16.0000000" }),
    );
    await job.run(ctx);
    const values = await series(job);
    const counted = (direction: string, asset: string) => [
      valueOf(values, "stellar_horizon_account_payments_total", at({ direction, asset })),
      valueOf(values, "stellar_horizon_account_payment_amount_total", at({ direction, asset })),
    ];
    expect({
      receivedUsdc: counted("received", USDC),
      sentNative: counted("sent", "native"),
      receivedNative: counted("received", "native"),
      invalid: ctx.invalid,
    }).toEqual({ receivedUsdc: [2, 5], sentNative: [1, 1.5], receivedNative: [1, 2], invalid: 1 });
    // Holders other than the watched account become no label.
    expect([...values.keys()].filter((key) => key.includes(contract!) || key.includes(otherContract!))).toEqual([]);
  });

  it("counts own transactions by result, fees it paid, and failures by the code in result_xdr", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    await job.run(pollContext());
    horizon.records.transactions.push(
      transaction(ME, true, SUCCESS_XDR, "100"),
      transaction(ME, false, BAD_SEQ_XDR, "200"),
      transaction(ME, false, UNDERFUNDED_XDR, "300"),
      // Received: not its transaction; a fee bump it paid for another source.
      transaction(OTHER, true, SUCCESS_XDR, "400"),
      transaction(OTHER, false, BAD_SEQ_XDR, "500", ME),
    );
    await job.run(pollContext());
    const values = await series(job);
    expect(valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "successful" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "failed" }))).toBe(2);
    expect(valueOf(values, "stellar_horizon_account_fee_charged_stroops_total", at())).toBe(1100);
    expect(valueOf(values, "stellar_horizon_account_transaction_failures_total", at({ code: "tx_bad_seq" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_transaction_failures_total", at({ code: "op_underfunded" }))).toBe(
      1,
    );
    expect(valueOf(values, "stellar_horizon_account_transaction_failures_total", at({ code: "tx_failed" }))).toBe(
      undefined,
    );
  });

  it("counts a failed transaction whose result_xdr does not decode or names no failure as failed, code tx_other", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    horizon.records.transactions.push(
      transaction(ME, false, BAD_SEQ_XDR.slice(0, 12), "100"),
      transaction(ME, false, "not xdr!", "200"),
      transaction(ME, false, SUCCESS_XDR, "300"),
      transaction(ME, false, BAD_SEQ_XDR, "400"),
      // A successful transaction's result_xdr is not read.
      transaction(ME, true, "not xdr!", "500"),
    );
    await job.run(ctx);
    const values = await series(job);
    const failures = (code: string) =>
      valueOf(values, "stellar_horizon_account_transaction_failures_total", at({ code }));
    expect({
      failed: valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "failed" })),
      successful: valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "successful" })),
      fees: valueOf(values, "stellar_horizon_account_fee_charged_stroops_total", at()),
      other: failures("tx_other"),
      badSeq: failures("tx_bad_seq"),
      invalid: ctx.invalid,
    }).toEqual({ failed: 4, successful: 1, fees: 1500, other: 3, badSeq: 1, invalid: 0 });
  });

  it("counts successful operations by type, the unexpected ones from 0", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account({ operations: true })], SCHEDULE);
    await job.run(pollContext());
    expect(valueOf(await series(job), "stellar_horizon_account_operations_total", at({ type: "set_options" }))).toBe(0);
    horizon.records.operations.push(operation("set_options"), operation("payment"), operation("change_trust", false));
    await job.run(pollContext());
    const values = await series(job);
    expect(valueOf(values, "stellar_horizon_account_operations_total", at({ type: "set_options" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_operations_total", at({ type: "payment" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_account_operations_total", at({ type: "change_trust" }))).toBe(undefined);
  });

  it("counts a fee past int64, which no transaction can charge, as an invalid record", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    horizon.records.transactions.push(
      transaction(ME, true, SUCCESS_XDR, "18446744073709551615"),
      transaction(ME, true, SUCCESS_XDR, "9223372036854775807"),
    );
    await job.run(ctx);
    const fees = valueOf(await series(job), "stellar_horizon_account_fee_charged_stroops_total", at());
    expect([fees, ctx.invalid]).toEqual([9223372036854775807, 1]);
  });

  it("bounds the asset and operation type labels: spam counts as other, native and limited assets keep theirs", async () => {
    const horizon = new Streams();
    const limited = account({ operations: true, maxOutflowPerHour: { [USDC]: 100 } });
    const job = new AccountActivityJob(horizon, [limited], SCHEDULE);
    await job.run(pollContext());
    const spam = Array.from({ length: 25 }, (_, index) => `SPAM${index}:${OTHER}`);
    for (const asset of spam) horizon.records.payments.push(payment(OTHER, ME, "1.0000000", asset));
    horizon.records.payments.push(payment(OTHER, ME, "2.0000000"), payment(OTHER, ME, "3.0000000", USDC));
    const types = Array.from({ length: 40 }, (_, index) => `new_type_${index}`);
    for (const type of types) horizon.records.operations.push(operation(type));
    horizon.records.operations.push(operation("set_options"));
    await job.run(pollContext());
    const values = await series(job);
    const received = (asset: string) => at({ direction: "received", asset });
    const payments = [...values.keys()].filter((key) => key.startsWith("stellar_horizon_account_payments_total{"));
    // native, USDC and the first 18 spam assets, each received; USDC sent from 0; other.
    expect(payments).toHaveLength(ASSETS_PER_ACCOUNT + 2);
    expect(valueOf(values, "stellar_horizon_account_payments_total", received("other"))).toBe(7);
    expect(valueOf(values, "stellar_horizon_account_payment_amount_total", received("other"))).toBe(undefined);
    expect(valueOf(values, "stellar_horizon_account_payment_amount_total", received("native"))).toBe(2);
    expect(valueOf(values, "stellar_horizon_account_payment_amount_total", received(USDC))).toBe(3);
    expect(valueOf(values, "stellar_horizon_account_payments_total", received(spam[17]!))).toBe(1);
    const operations = [...values.keys()].filter((key) => key.startsWith("stellar_horizon_account_operations_total{"));
    expect(operations).toHaveLength(OPERATION_TYPES_PER_ACCOUNT + 1);
    expect(valueOf(values, "stellar_horizon_account_operations_total", at({ type: "other" }))).toBe(12);
    expect(valueOf(values, "stellar_horizon_account_operations_total", at({ type: "set_options" }))).toBe(1);
  });

  it("starts at the newest record at the first answer after 404s, which fail no poll, counting nothing before it", async () => {
    const horizon = new Streams();
    // History Horizon holds but answers 404 for at first (not ingested yet, a proxy): none of it may be counted.
    horizon.records.payments.push(payment(OTHER, ME, "100.0000000"), payment(OTHER, ME, "200.0000000"));
    horizon.records.transactions.push(transaction(ME, true, SUCCESS_XDR, "1000"));
    horizon.known = false;
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    await job.run(ctx);
    horizon.known = true;
    await job.run(ctx);
    horizon.records.payments.push(payment(OTHER, ME, "2.0000000"));
    await job.run(ctx);
    const values = await series(job);
    const received = at({ direction: "received", asset: "native" });
    expect([
      valueOf(values, "stellar_horizon_account_payments_total", received),
      valueOf(values, "stellar_horizon_account_payment_amount_total", received),
      valueOf(values, "stellar_horizon_account_transactions_total", at({ result: "successful" })),
      valueOf(values, "stellar_horizon_account_fee_charged_stroops_total", at()),
    ]).toEqual([1, 2, 0, 0]);
    // Each 404 left the stream unstarted: the first answer was the newest record's.
    const orders = horizon.requests.filter(({ stream }) => stream === "payments").map(({ query }) => query.order);
    expect(orders).toEqual(["desc", "desc", "desc", "asc"]);
    horizon.known = false;
    await expect(job.run(ctx)).rejects.toMatchObject({ details: { status: 404 } });
    expect(ctx.invalid).toBe(0);
  });

  it("fails the first poll on a 404 that is not Horizon's not_found problem (a proxy's page)", async () => {
    const horizon = new Streams();
    horizon.failWith = new PollError("http_4xx", "HTTP 404: <title>Not Found</title>", { status: 404 });
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    await expect(job.run(pollContext())).rejects.toMatchObject({ reason: "http_4xx" });
  });

  it("counts a record failing its schema as invalid, and moves past it", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(horizon, [account()], SCHEDULE);
    await job.run(pollContext());
    horizon.records.payments.push(
      { ...payment(OTHER, ME, "1.0000000"), amount: "lots" },
      payment(OTHER, ME, "2.0000000"),
    );
    const ctx = pollContext();
    await job.run(ctx);
    await job.run(ctx);
    expect(ctx.invalid).toBe(1);
    expect(
      valueOf(
        await series(job),
        "stellar_horizon_account_payment_amount_total",
        at({ direction: "received", asset: "native" }),
      ),
    ).toBe(2);
  });

  it("shows the configured expectation and outflow limits, with the limited assets' sent counters from 0", async () => {
    const horizon = new Streams();
    const job = new AccountActivityJob(
      horizon,
      [account({ expectPaymentWithinSeconds: 7200, maxOutflowPerHour: { native: 50_000, [USDC]: 100_000 } })],
      SCHEDULE,
    );
    await job.run(pollContext());
    const values = await series(job);
    expect(valueOf(values, "stellar_horizon_account_payment_expected_within_seconds", at())).toBe(7200);
    expect(valueOf(values, "stellar_horizon_account_outflow_limit_per_hour", at({ asset: USDC }))).toBe(100_000);
    expect(
      valueOf(values, "stellar_horizon_account_payment_amount_total", at({ direction: "sent", asset: "native" })),
    ).toBe(0);
  });
});

/** A Horizon serving the scripted pages, one a request (then empty ones), or throwing a scripted error; cursors noted. */
function scripted(...pages: (JsonRecord[] | Error)[]) {
  const cursors: unknown[] = [];
  const reader: ActivityReader = {
    accountStream: async (_id, _stream, query) => {
      cursors.push(query.cursor);
      const page = pages.shift() ?? [];
      if (page instanceof Error) throw page;
      return page;
    },
  };
  return { reader, cursors };
}

describe("AccountActivityJob's cursor follows the rules of the markets and ledgers jobs", () => {
  const watched = [account({ activity: false, operations: true })];
  const counted = async (job: AccountActivityJob) =>
    valueOf(await series(job), "stellar_horizon_account_operations_total", at({ type: "set_options" }));

  it("fails with reason paging, counting nothing, when a full page does not move the cursor", async () => {
    const newest = operation("set_options");
    const stuck = Array.from({ length: 200 }, () => ({ ...newest }));
    const { reader, cursors } = scripted([newest], stuck);
    const job = new AccountActivityJob(reader, watched, SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    await expect(job.run(ctx)).rejects.toMatchObject({ reason: "paging" });
    expect(cursors).toEqual([undefined, newest.paging_token]);
    expect(await counted(job)).toBe(0);
    expect(ctx.invalid).toBe(0);
  });

  it("takes a page holding only the record at the cursor as nothing newer, poll after poll", async () => {
    const horizon = new Streams();
    horizon.repeat = true;
    horizon.records.operations.push(operation("set_options"));
    const job = new AccountActivityJob(horizon, watched, SCHEDULE);
    const ctx = pollContext();
    for (let poll = 0; poll < 3; poll++) await job.run(ctx);
    expect(await counted(job)).toBe(0);
    horizon.records.operations.push(operation("set_options"), operation("set_options"));
    await job.run(ctx);
    await job.run(ctx);
    expect(await counted(job)).toBe(2);
    expect(ctx.invalid).toBe(0);
  });

  it("counts a record whose token cannot be the cursor once, and moves past it with a later record", async () => {
    const [newest, first, second, third] = [0, 1, 2, 3].map(() => operation("set_options"));
    const unusable = (token: string) => ({ ...operation("set_options"), paging_token: token });
    const { reader, cursors } = scripted(
      [newest!],
      [unusable("abc"), first!, second!, unusable("-1")],
      [unusable("-1")],
      [unusable("-1")],
      [unusable("-1"), third!],
    );
    const job = new AccountActivityJob(reader, watched, SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    await job.run(ctx);
    expect([await counted(job), ctx.invalid]).toEqual([2, 2]);
    await job.run(ctx);
    await job.run(ctx);
    expect([await counted(job), ctx.invalid]).toEqual([2, 2]);
    await job.run(ctx);
    await job.run(ctx);
    expect([await counted(job), ctx.invalid]).toEqual([3, 2]);
    // The cursor moved past "abc" at once, and past "-1" with the record after it.
    const [n, s, t] = [newest, second, third].map((record) => record!.paging_token);
    expect(cursors).toEqual([undefined, n, s, s, s, t]);
  });

  /** What three polls over the scripted pages counted: records, and invalid records. */
  const threePolls = async (...pages: Parameters<typeof scripted>) => {
    const job = new AccountActivityJob(scripted(...pages).reader, watched, SCHEDULE);
    const ctx = pollContext();
    for (let poll = 0; poll < 3; poll++) await job.run(ctx);
    return [await counted(job), ctx.invalid];
  };

  it("never counts a record with an unusable token served before the cursor's own record, poll after poll", async () => {
    const [newest, first, second] = [0, 1, 2].map(() => operation("set_options"));
    const old = { ...operation("set_options"), paging_token: "abc" };
    expect(await threePolls([newest!], [old, newest!, first!], [old, newest!, first!, second!])).toEqual([2, 0]);
  });

  it("counts an unusable token once when a record at the cursor comes back only after a newer one", async () => {
    const [newest, first] = [0, 1].map(() => operation("set_options"));
    const unusable = { ...operation("set_options"), paging_token: "abc" };
    expect(await threePolls([newest!], [unusable, first!, newest!], [])).toEqual([1, 1]);
  });

  it("counts each record of a page out of order once, the cursor moving to the newest", async () => {
    const [newest, first, second, third] = [0, 1, 2, 3].map(() => operation("set_options"));
    const { reader, cursors } = scripted([newest!], [second!, first!, second!, third!, newest!], [third!]);
    const job = new AccountActivityJob(reader, watched, SCHEDULE);
    const ctx = pollContext();
    for (let poll = 0; poll < 3; poll++) await job.run(ctx);
    expect([await counted(job), ctx.invalid]).toEqual([3, 0]);
    expect(cursors).toEqual([undefined, newest!.paging_token, third!.paging_token]);
  });

  it("drops a cursor Horizon refuses (400): that poll fails, the next starts after the newest record again", async () => {
    const [newest, latest, after] = [0, 1, 2].map(() => operation("set_options"));
    const refused = new PollError("http_4xx", "400 Bad Request", { status: 400 });
    const { reader, cursors } = scripted([newest!], refused, [latest!], [after!]);
    const job = new AccountActivityJob(reader, watched, SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    await expect(job.run(ctx)).rejects.toBe(refused);
    await job.run(ctx);
    expect(await counted(job)).toBe(0);
    await job.run(ctx);
    expect(await counted(job)).toBe(1);
    expect(cursors).toEqual([undefined, newest!.paging_token, undefined, latest!.paging_token]);
  });

  it("starts over after the newest record once the network restarted, its cursor past every new record", async () => {
    const [newest, counted1, reset, afterReset] = [0, 1, 2, 3].map(() => operation("set_options"));
    const { reader, cursors } = scripted([newest!], [counted1!], [], [reset!], [afterReset!]);
    const network = new NetworkView();
    const job = new AccountActivityJob(reader, watched, SCHEDULE, network);
    const ctx = pollContext();
    await job.run(ctx);
    await job.run(ctx);
    await job.run(ctx);
    expect(await counted(job)).toBe(1);
    network.ledgerRead(1_000_000);
    network.ledgerRead(5);
    await job.run(ctx);
    await job.run(ctx);
    expect(await counted(job)).toBe(2);
    // The poll after the restart reads the newest record (counting nothing), as a first poll does; the next pages on.
    const c = counted1!.paging_token;
    expect(cursors).toEqual([undefined, newest!.paging_token, c, undefined, reset!.paging_token]);
  });

  it("keeps its cursor through any other failure", async () => {
    const [newest, next] = [0, 1].map(() => operation("set_options"));
    const unavailable = new PollError("http_5xx", "503 Service Unavailable", { status: 503 });
    const { reader, cursors } = scripted([newest!], unavailable, [next!]);
    const job = new AccountActivityJob(reader, watched, SCHEDULE);
    const ctx = pollContext();
    await job.run(ctx);
    await expect(job.run(ctx)).rejects.toBe(unavailable);
    await job.run(ctx);
    expect(await counted(job)).toBe(1);
    expect(cursors).toEqual([undefined, newest!.paging_token, newest!.paging_token]);
  });
});

describe("the mainnet captures", () => {
  it("count the account's payments after the first exactly", async () => {
    const page = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("account_payments-stellar-docs.json");
    const records = page._embedded.records;
    const id = records[0]!.account as string;
    const horizon: ActivityReader = {
      accountStream: async (_id, stream, query) => {
        if (stream !== "payments") return [];
        const served = query.order === "desc" ? [records[0]!] : records;
        return served.filter(
          (r) => query.cursor === undefined || BigInt(r.paging_token as string) > BigInt(query.cursor),
        );
      },
    };
    const job = new AccountActivityJob(horizon, [account({ id, name: "deposits" })], SCHEDULE);
    await job.run(pollContext());
    await job.run(pollContext());
    const values = await series(job);
    const issuer = records.find((r) => r.asset_code === "USD")!.asset_issuer as string;
    const received = at({ direction: "received", asset: "native" });
    // The merge (no amount) and seven lumen payments; the create_account came with the first poll.
    expect(valueOf(values, "stellar_horizon_account_payments_total", received)).toBe(8);
    expect(valueOf(values, "stellar_horizon_account_payment_amount_total", received)).toBe(1043.7953057);
    expect(
      valueOf(
        values,
        "stellar_horizon_account_payment_amount_total",
        at({ direction: "sent", asset: `USD:${issuer}` }),
      ),
    ).toBe(84.9410878);
    expect(
      valueOf(values, "stellar_horizon_account_last_payment_timestamp_seconds", at({ direction: "received" })),
    ).toBe(Date.parse("2021-03-20T13:42:07Z") / 1000);
  });

  it("decode every transaction's result_xdr as a success", () => {
    const page = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("account_transactions-stellar-docs.json");
    for (const record of page._embedded.records)
      expect(failureCode({ result_xdr: record.result_xdr as string })).toBe(undefined);
  });
});

describe("failureCode", () => {
  it.each([
    [BAD_SEQ_XDR, "tx_bad_seq"],
    [resultXdr(xdr.TransactionResultResult.txInsufficientFee()), "tx_insufficient_fee"],
    [UNDERFUNDED_XDR, "op_underfunded"],
    [
      resultXdr(
        xdr.TransactionResultResult.txFailed([
          xdr.OperationResult.opInner(
            xdr.OperationResultTr.createAccount(xdr.CreateAccountResult.createAccountAlreadyExist()),
          ),
        ]),
      ),
      "op_already_exists",
    ],
    [
      resultXdr(
        xdr.TransactionResultResult.txFailed([
          xdr.OperationResult.opInner(
            xdr.OperationResultTr.pathPaymentStrictReceive(
              xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveNoDestination(),
            ),
          ),
        ]),
      ),
      "op_no_destination",
    ],
    [resultXdr(xdr.TransactionResultResult.txFailed([xdr.OperationResult.opBadAuth()])), "op_bad_auth"],
    ["not xdr", undefined],
  ])("%s is %s", (result, code) => {
    expect(failureCode({ result_xdr: result })).toBe(code);
  });
});
