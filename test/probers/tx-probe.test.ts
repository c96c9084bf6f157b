import { Keypair, Networks, TransactionBuilder, xdr, type Transaction } from "@stellar/stellar-sdk";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { TX_PROBE_COMMON_FAILURE_REASONS } from "../../src/catalog/metrics.js";
import { PollError } from "../../src/client/errors.js";
import {
  feeStatsSchema,
  problemSchema,
  transactionResponseSchema,
  type TransactionResponse,
} from "../../src/client/schemas.js";
import { MetricStore } from "../../src/exposition/store.js";
import { parseSchedule, type Schedule } from "../../src/config/schedule.js";
import {
  failureReason,
  keySigns,
  probeFee,
  PROBE_MEMO,
  TxProbe,
  type ProbeAccount,
  type ProbeHorizon,
} from "../../src/probers/tx-probe.js";
import { stellarBase } from "../../src/stellar-base.js";
import { NetworkView } from "../../src/job/network.js";
import { runnerFor } from "../support/job-harness.js";
import { ManualClock } from "../support/manual-clock.js";
import { parseExposition, valueOf } from "../support/exposition.js";
import { fixtureJson } from "../support/fixtures.js";
import { until } from "../support/wait.js";

const stats = feeStatsSchema.parse(fixtureJson("fee_stats-java-sdk.json"));
const schedule = parseSchedule("1m") as Schedule;

function problemError(name: string, reason: "http_4xx" | "http_5xx"): PollError {
  const problem = problemSchema.parse(fixtureJson(name));
  return new PollError(reason, problem.title, { status: problem.status, problem });
}

describe("the probe's key", () => {
  const account = (signers: { key: string; weight: number }[], low: number) => ({
    signers: signers.map((signer) => ({ ...signer, type: "ed25519_public_key" })),
    thresholds: { low, medium: low, high: low },
  });
  const key = "GA6JGJCXPUD3TPCRR7W3UV76BHU7G76M3OGNFUVMFBVBTLU6HKJONH43";

  it("signs when its weight meets the low threshold, and never with weight 0", () => {
    expect(keySigns(account([{ key, weight: 1 }], 0), key)).toBe(true);
    expect(keySigns(account([{ key, weight: 5 }], 5), key)).toBe(true);
    expect(keySigns(account([{ key, weight: 4 }], 5), key)).toBe(false);
    expect(keySigns(account([{ key, weight: 0 }], 0), key)).toBe(false);
    expect(
      keySigns(account([{ key: "GBHK76WVNFS4TV2UWC4I4EL4DKDKCU6WP46Z7UKDFLOXQNBITBUPJ5IU", weight: 10 }], 1), key),
    ).toBe(false);
  });
});

describe("probe fee", () => {
  const with90 = (p90: number, base = 100) => ({ baseFeeStroops: base, feeP90Stroops: p90 });
  it("bids the p90 fee charged, at least the base fee, at most max_fee", () => {
    expect(probeFee(with90(250), 1000)).toBe(250);
    expect(probeFee(with90(50), 1000)).toBe(100);
    expect(probeFee(with90(5000), 1000)).toBe(1000);
    expect(probeFee(with90(100, 2000), 1000)).toBe(1000);
  });
});

/** Horizon's transaction_failed answer with result code `code`. */
function transactionFailed(code: string): PollError {
  return new PollError("http_4xx", "HTTP 400: Transaction Failed", {
    status: 400,
    problem: {
      type: "https://stellar.org/horizon-errors/transaction_failed",
      title: "Transaction Failed",
      status: 400,
      extras: { result_codes: { transaction: code }, result_xdr: "AAAA" },
    },
  });
}

describe("failure reasons", () => {
  it.each([
    ["error-transaction_failed-tx_insufficient_fee-stellar-docs.json", "tx_insufficient_fee"],
    ["error-transaction_failed-tx_too_late-trustee-wallet.json", "tx_too_late"],
    ["error-transaction_failed-ruby-vcr.json", "tx_failed"],
  ])("%s counts as %s", (name, reason) => {
    expect(failureReason(problemError(name, "http_4xx"))).toBe(reason);
  });

  it("a result code longer than any real one, or with other characters, counts as tx_other: label values stay bounded", () => {
    const failed = transactionFailed;
    expect(failureReason(failed("tx_bad_minseq_age_or_gap"))).toBe("tx_bad_minseq_age_or_gap");
    expect(failureReason(failed(`tx_${"a".repeat(100_000)}`))).toBe("tx_other");
    expect(failureReason(failed("tx_bad\u0000seq"))).toBe("tx_other");
  });

  it.each([
    "tx_bad_seq",
    "tx_too_early",
    "tx_no_source_account",
    "tx_bad_minseq_age_or_gap",
    "tx_fee_bump_inner_failed",
    "tx_bad_auth_extra",
    "tx_soroban_invalid",
  ])("%s, a code Stellar defines as Horizon spells it, is its own reason", (code) => {
    expect(failureReason(transactionFailed(code))).toBe(code);
  });

  it.each(["tx_no_account", "tx_bad_min_seq_age_or_gap", "tx_aa_bogus", "tx_x"])(
    "%s, shaped like a result code but none Stellar defines, counts as tx_other",
    (code) => {
      expect(failureReason(transactionFailed(code))).toBe("tx_other");
    },
  );

  it("Horizon's 504s count as timeout", () => {
    expect(failureReason(problemError("error-timeout-horizon-src.json", "http_5xx"))).toBe("timeout");
    const submissionTimeout = {
      type: "transaction_submission_timeout",
      title: "Transaction Submission Timeout",
      status: 504,
    };
    expect(failureReason(new PollError("http_5xx", "x", { status: 504, problem: submissionTimeout }))).toBe("timeout");
  });

  it("an unexpected result code is tx_other; request failures keep their poll reason", () => {
    const problem = { ...problemSchema.parse(fixtureJson("error-transaction_failed-ruby-vcr.json")) };
    problem.extras = { ...problem.extras, result_codes: { transaction: 'tx_bad"label' } };
    expect(failureReason(new PollError("http_4xx", "x", { status: 400, problem }))).toBe("tx_other");
    expect(failureReason(new PollError("network", "ECONNRESET"))).toBe("network");
    expect(failureReason(new PollError("http_5xx", "x", { status: 502 }))).toBe("http_5xx");
  });
});

/** A Horizon that records what it receives and answers as told. */
class ScriptedHorizon implements ProbeHorizon {
  readonly received: Transaction[] = [];
  sequence = 103_720_918_407_102_567n; // above 2^53
  /** false: Horizon answers 404 for the account. */
  funded = true;
  keySigns = true;
  answer: (transaction: Transaction) => TransactionResponse | PollError = () => this.success(12);
  holding = false;
  /** The account read's answer asks to hold back: an exhausted rate limit. */
  holdAfterRead = false;
  /** Account reads answer nothing until their run is aborted. */
  hangReading = false;
  reads = 0;

  probeAccount(_accountId: string, signal: AbortSignal): Promise<ProbeAccount | undefined> {
    this.reads += 1;
    if (this.hangReading)
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(new PollError("network", "aborted at shutdown")), { once: true }),
      );
    if (this.holdAfterRead) this.holding = true;
    return Promise.resolve(this.funded ? { sequence: this.sequence, keySigns: this.keySigns } : undefined);
  }

  /** Submissions answer nothing until their run is aborted, as a slow Horizon's do. */
  hang = false;
  /** Submissions answer this long after they are sent, on `clock`: Horizon holds one until it is in a ledger. */
  inclusion: { clock: ManualClock; ms: number } | undefined;

  submitTransaction(envelopeXdr: string, signal: AbortSignal): Promise<TransactionResponse> {
    const transaction = TransactionBuilder.fromXdr(envelopeXdr, Networks.TESTNET) as Transaction;
    this.received.push(transaction);
    if (this.hang)
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(new PollError("network", "aborted at shutdown")), { once: true }),
      );
    const answer = this.answer(transaction);
    const settle = (resolve: (value: TransactionResponse) => void, reject: (error: PollError) => void) =>
      answer instanceof PollError ? reject(answer) : resolve(answer);
    const { inclusion } = this;
    if (inclusion === undefined) return new Promise(settle);
    return new Promise((resolve, reject) => {
      inclusion.clock.setTimeout(() => settle(resolve, reject), inclusion.ms);
      signal.addEventListener("abort", () => reject(signal.reason as PollError), { once: true });
    });
  }

  holdingBack(): boolean {
    return this.holding;
  }

  success(ledger: number): TransactionResponse {
    return transactionResponseSchema.parse({
      ...fixtureJson<Record<string, unknown>>("tx_submit_success-stellar-docs.json"),
      ledger,
      fee_charged: "123",
    });
  }
}

/** A probe of `horizon`, run by a runner; with `clock`, its time and deadline are that clock's, with `timeoutMs` and
 * `retries` as http.timeout and http.retries. */
function probeFixture(
  passphrase: string = Networks.TESTNET,
  allowPubnet = false,
  timing: { clock?: ManualClock; timeoutMs?: number; retries?: number } = {},
) {
  const horizon = new ScriptedHorizon();
  const store = new MetricStore();
  // The exporter signs with its own library; the SDK below decodes and verifies what it sent.
  const signer = stellarBase().Keypair.random();
  const lines: string[] = [];
  const log = pino({ level: "trace" }, { write: (line: string) => lines.push(line) });
  let clock = 1_700_000_000_000;
  const network = new NetworkView();
  network.learn({
    passphrase,
    baseFeeStroops: stats.last_ledger_base_fee,
    feeP90Stroops: stats.fee_charged.p90,
    latestLedger: 10,
  });
  const job = new TxProbe({
    settings: { schedule, maxFee: 1000, allowPubnet },
    signer,
    client: horizon,
    network,
    log,
    now: () => (timing.clock ? timing.clock.now() : (clock += 2500)),
  });
  // Run as its runtime runs it: one run at a time, published after each.
  const { runner: probe } = runnerFor(job, { store, log, ...timing });
  const metrics = async () => parseExposition((await store.scrape(Date.now(), "identity")).toString());
  return { horizon, probe, signer, lines, metrics };
}

describe("a probe run", () => {
  it("stopped with its submission in flight, logs no failure and counts none", async () => {
    const { horizon, probe, lines } = probeFixture();
    horizon.hang = true;
    const run = probe.run();
    await until("the submission", () => (horizon.received.length === 1 ? true : undefined), { intervalMs: 1 });
    await probe.stop();
    await run;
    expect(lines.join("")).not.toMatch(/submission failed/);
    expect(lines.join("")).toMatch(/transaction probe submission cancelled/);
  });

  it("stopped while reading its account, logs no warning, only that the read was cancelled", async () => {
    const { horizon, probe, lines } = probeFixture();
    horizon.hangReading = true;
    const run = probe.run();
    await until("the account read", () => (horizon.reads === 1 ? true : undefined), { intervalMs: 1 });
    await probe.stop();
    await run;
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged.filter(({ level }) => level >= 40)).toEqual([]);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 20, msg: "transaction probe account read cancelled" }),
    );
  });

  it("warns when its account read fails at the run's deadline", async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const { horizon, probe, lines } = probeFixture(Networks.TESTNET, false, { clock, timeoutMs: 5_000, retries: 0 });
    horizon.hangReading = true;
    const run = probe.run();
    await until("the account read", () => (horizon.reads === 1 ? true : undefined), { intervalMs: 1 });
    await clock.advance(100_000);
    await run;
    const warnings = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((l) => l.level >= 40);
    expect(warnings.map(({ msg }) => msg)).toContain(
      "transaction probe cannot read its account's sequence; not submitting",
    );
  });

  it("submits one signed BumpSequence-to-0 with the probe memo, next sequence, valid until 30 s after it is built", async () => {
    const { horizon, probe, signer, metrics } = probeFixture();
    await probe.run();
    const [transaction] = horizon.received;
    expect(horizon.received).toHaveLength(1);
    expect(transaction!.source).toBe(signer.publicKey());
    expect(transaction!.sequence).toBe("103720918407102568");
    expect(transaction!.operations).toEqual([expect.objectContaining({ type: "bumpSequence", bumpTo: "0" })]);
    expect(Buffer.from(transaction!.memo.value as Uint8Array).toString()).toBe(PROBE_MEMO);
    // No minTime: core refuses one after the last closed ledger's close time, a few seconds behind our clock.
    expect(transaction!.timeBounds).toEqual({ minTime: "0", maxTime: String(1_700_000_002 + 30) });
    expect(transaction!.fee).toBe(
      String(probeFee({ baseFeeStroops: stats.last_ledger_base_fee, feeP90Stroops: stats.fee_charged.p90 }, 1000)),
    );
    expect(
      Keypair.fromPublicKey(signer.publicKey()).verify(transaction!.hash(), transaction!.signatures[0]!.signature),
    ).toBe(true);
    const series = await metrics();
    expect(valueOf(series, "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(1);
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "tx_bad_seq" })).toBe(0);
    expect(valueOf(series, "stellar_horizon_tx_probe_duration_seconds_sum", { horizon: "h" })).toBe(2.5);
    expect(valueOf(series, "stellar_horizon_tx_probe_inclusion_ledgers_bucket", { horizon: "h", le: "2" })).toBe(1);
    expect(valueOf(series, "stellar_horizon_tx_probe_inclusion_ledgers_bucket", { horizon: "h", le: "1" })).toBe(0);
    expect(valueOf(series, "stellar_horizon_tx_probe_fee_charged_stroops", { horizon: "h" })).toBe(123);
    expect(valueOf(series, "stellar_horizon_tx_probe_last_success_timestamp_seconds", { horizon: "h" })).toBe(
      1_700_000_007.5,
    );
  });

  it("counts a transaction_failed answer under its result code and leaves the success series alone", async () => {
    const { horizon, probe, metrics } = probeFixture();
    horizon.answer = () => problemError("error-transaction_failed-tx_insufficient_fee-stellar-docs.json", "http_4xx");
    await probe.run();
    await probe.run();
    const series = await metrics();
    expect(valueOf(series, "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(2);
    expect(
      valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "tx_insufficient_fee" }),
    ).toBe(2);
    expect(
      valueOf(series, "stellar_horizon_tx_probe_last_success_timestamp_seconds", { horizon: "h" }),
    ).toBeUndefined();
    expect(valueOf(series, "stellar_horizon_tx_probe_duration_seconds_count", { horizon: "h" })).toBe(0);
  });

  const refused = (series: Awaited<ReturnType<ReturnType<typeof probeFixture>["metrics"]>>) =>
    Object.fromEntries(
      ["pubnet", "unfunded", "no_key"].map((reason) => [
        reason,
        valueOf(series, "stellar_horizon_tx_probe_refused", { horizon: "h", reason }),
      ]),
    );

  it("exports every refusal reason at 0 while it submits", async () => {
    const { probe, metrics } = probeFixture();
    await probe.run();
    expect(refused(await metrics())).toEqual({ pubnet: 0, unfunded: 0, no_key: 0 });
  });

  it("refuses pubnet without allow_pubnet: one warning, nothing submitted, ever, refused{reason=pubnet} 1", async () => {
    const { horizon, probe, lines, metrics } = probeFixture(Networks.PUBLIC);
    await probe.run();
    await probe.run();
    expect(horizon.received).toHaveLength(0);
    expect(lines.filter((line) => line.includes("allow_pubnet"))).toHaveLength(1);
    expect(refused(await metrics())).toEqual({ pubnet: 1, unfunded: 0, no_key: 0 });
  });

  it.each([
    ["unfunded", (horizon: ScriptedHorizon): void => void (horizon.funded = false), "does not exist: fund it"],
    ["no_key", (horizon: ScriptedHorizon): void => void (horizon.keySigns = false), "no longer signs for its account"],
  ] as const)(
    "refuses while %s, logging once when it starts and once when it ends",
    async (reason, breakIt, message) => {
      const { horizon, probe, lines, metrics } = probeFixture();
      breakIt(horizon);
      await probe.run();
      await probe.run();
      await probe.run();
      expect(horizon.received).toHaveLength(0);
      expect(refused(await metrics())).toEqual({ pubnet: 0, unfunded: 0, no_key: 0, [reason]: 1 });
      expect(lines.filter((line) => line.includes("refuses to submit"))).toEqual([expect.stringContaining(message)]);
      expect(JSON.parse(lines.find((line) => line.includes("refuses to submit"))!)).toMatchObject({
        level: 40,
        reason,
      });

      horizon.funded = true;
      horizon.keySigns = true;
      await probe.run();
      await probe.run();
      expect(horizon.received).toHaveLength(2);
      expect(refused(await metrics())).toEqual({ pubnet: 0, unfunded: 0, no_key: 0 });
      expect(lines.filter((line) => line.includes("submits again"))).toHaveLength(1);
    },
  );

  it("submits on pubnet when allowed", async () => {
    const { horizon, probe } = probeFixture(Networks.PUBLIC, true);
    horizon.answer = () => horizon.success(11);
    await probe.run();
    expect(horizon.received).toHaveLength(1);
  });

  it("sends nothing while Horizon asks us to hold back", async () => {
    const { horizon, probe, metrics } = probeFixture();
    horizon.holding = true;
    await probe.run();
    expect(horizon.received).toHaveLength(0);
    expect(valueOf(await metrics(), "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(0);
  });

  it("submits nothing, and counts nothing, when the account read's answer asked to hold back", async () => {
    const { horizon, probe, metrics } = probeFixture();
    horizon.holdAfterRead = true;
    await probe.run();
    const series = await metrics();
    expect(horizon.received).toHaveLength(0);
    expect(valueOf(series, "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(0);
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "rate_limited" })).toBe(
      0,
    );
  });

  it("does not count a submission the client held back without sending, but counts a 429", async () => {
    const { horizon, probe, metrics } = probeFixture();
    horizon.answer = () => new PollError("rate_limited", "holding back for 20 s more, as the server asked");
    await probe.run();
    const rateLimited = { horizon: "h", reason: "rate_limited" };
    expect(valueOf(await metrics(), "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(0);
    expect(valueOf(await metrics(), "stellar_horizon_tx_probe_failures_total", rateLimited)).toBe(0);
    horizon.answer = () => new PollError("rate_limited", "HTTP 429: Rate Limit Exceeded", { status: 429 });
    await probe.run();
    expect(valueOf(await metrics(), "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(1);
    expect(valueOf(await metrics(), "stellar_horizon_tx_probe_failures_total", rateLimited)).toBe(1);
  });

  it("keeps its reasons bounded however many codes a Horizon invents: every invented one is tx_other", async () => {
    const { horizon, probe, metrics } = probeFixture();
    // tx_bogus_a, tx_bogus_b, ... tx_bogus_ba: a new code, shaped like a real one, every run.
    let run = 0;
    const letters = (n: number) => String(n).replace(/\d/g, (digit) => "abcdefghij"[Number(digit)]!);
    horizon.answer = () => transactionFailed(`tx_bogus_${letters(run++)}`);
    for (let i = 0; i < 50; i++) await probe.run();
    const series = await metrics();
    const reasons = [...series.keys()].filter((key) => key.startsWith("stellar_horizon_tx_probe_failures_total{"));
    expect(reasons).toHaveLength(TX_PROBE_COMMON_FAILURE_REASONS.length);
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "tx_other" })).toBe(50);
  });

  it("joins a run in flight instead of starting a second one", async () => {
    const { horizon, probe } = probeFixture();
    await Promise.all([probe.run(), probe.run(), probe.run()]);
    expect(horizon.received).toHaveLength(1);
  });

  it("never logs the seed, even at trace level", async () => {
    const { horizon, probe, signer, lines } = probeFixture();
    horizon.answer = () => problemError("error-transaction_failed-ruby-vcr.json", "http_4xx");
    await probe.run();
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(signer.secret());
  });
});

describe("a submission waiting for its ledger", () => {
  it("outlives a short http.timeout: included after 20 s (timeout 5 s, 2 retries), it counts as a success", async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const { horizon, probe, metrics } = probeFixture(Networks.TESTNET, false, { clock, timeoutMs: 5_000, retries: 2 });
    horizon.inclusion = { clock, ms: 20_000 };
    const run = probe.run();
    await until("the submission", () => (horizon.received.length === 1 ? true : undefined), { intervalMs: 1 });
    await clock.advance(25_000);
    await run;
    const series = await metrics();
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "timeout" })).toBe(0);
    expect(valueOf(series, "stellar_horizon_tx_probe_duration_seconds_count", { horizon: "h" })).toBe(1);
    expect(valueOf(series, "stellar_horizon_tx_probe_duration_seconds_sum", { horizon: "h" })).toBe(20);
  });
});

it("fee_charged falls back to the result XDR for Horizon 1.x answers", async () => {
  const { horizon, probe, metrics } = probeFixture();
  horizon.answer = () => transactionResponseSchema.parse(fixtureJson("tx_submit_success-ruby-vcr-2020.json"));
  await probe.run();
  expect(valueOf(await metrics(), "stellar_horizon_tx_probe_fee_charged_stroops", { horizon: "h" })).toBe(
    Number(
      xdr.TransactionResult.fromXdr(
        fixtureJson<{ result_xdr: string }>("tx_submit_success-ruby-vcr-2020.json").result_xdr,
        "base64",
      ).feeCharged,
    ),
  );
});

it("a Horizon 1.x success whose result XDR does not decode counts once, as a schema failure, not as a success", async () => {
  const { horizon, probe, metrics } = probeFixture();
  horizon.answer = () =>
    transactionResponseSchema.parse({
      ...fixtureJson<Record<string, unknown>>("tx_submit_success-ruby-vcr-2020.json"),
      result_xdr: "AAAA",
    });
  await probe.run();
  const series = await metrics();
  expect(valueOf(series, "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(1);
  expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "schema" })).toBe(1);
  expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "internal" })).toBe(
    undefined,
  );
  expect(valueOf(series, "stellar_horizon_tx_probe_duration_seconds_count", { horizon: "h" })).toBe(0);
  expect(valueOf(series, "stellar_horizon_tx_probe_inclusion_ledgers_count", { horizon: "h" })).toBe(0);
  expect(valueOf(series, "stellar_horizon_tx_probe_last_success_timestamp_seconds", { horizon: "h" })).toBeUndefined();
});

describe("fees charged", () => {
  const answer = { ...fixtureJson<Record<string, unknown>>("tx_submit_success-stellar-docs.json") };

  it.each([
    ["fee_charged", "-5"],
    ["fee_charged", -5],
    ["max_fee", "-1"],
  ])("a success answer with a negative %s (%j) is refused by its schema", (field, value) => {
    expect(transactionResponseSchema.safeParse({ ...answer, [field]: value }).success).toBe(false);
  });

  it("a Horizon 1.x result XDR charging a negative fee counts as a schema failure, not a fee", async () => {
    const { xdr: baseXdr } = stellarBase();
    const result = new baseXdr.TransactionResult({
      feeCharged: baseXdr.Int64.fromString("-5"),
      result: baseXdr.TransactionResultResult.txSuccess([]),
      ext: new baseXdr.TransactionResultExt(0),
    });
    const { horizon, probe, metrics } = probeFixture();
    horizon.answer = () =>
      transactionResponseSchema.parse({
        ...fixtureJson<Record<string, unknown>>("tx_submit_success-ruby-vcr-2020.json"),
        result_xdr: result.toXDR("base64"),
      });
    await probe.run();
    const series = await metrics();
    expect(valueOf(series, "stellar_horizon_tx_probe_fee_charged_stroops", { horizon: "h" })).toBeUndefined();
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "schema" })).toBe(1);
  });
});
