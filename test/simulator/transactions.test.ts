import { Account, Keypair, Memo, Networks, Operation, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { transactionFailedExtrasSchema, transactionResponseSchema } from "../../src/client/schemas.js";
import type { Simulator } from "../../src/simulator/index.js";
import { fixture, simulatorAt } from "./helpers.js";

const signer = Keypair.random();

function funded(): { simulator: Simulator; clock: { tick(ms: number): void; nowMs: number } } {
  const { simulator, clock } = simulatorAt({ networkPassphrase: Networks.TESTNET });
  simulator.accounts.add({ id: signer.publicKey(), balance: 1_000_0000000n }, simulator.latestLedgerPoint());
  return { simulator, clock };
}

function envelope(
  simulator: Simulator,
  options: { fee?: number; key?: Keypair; passphrase?: string; sequence?: bigint } = {},
): string {
  const sequence = options.sequence ?? simulator.accounts.get(signer.publicKey())!.sequence;
  const nowSeconds = Math.floor(simulator.now() / 1000);
  const transaction = new TransactionBuilder(new Account(signer.publicKey(), sequence.toString()), {
    fee: String(options.fee ?? 100),
    networkPassphrase: options.passphrase ?? Networks.TESTNET,
    timebounds: { minTime: nowSeconds, maxTime: nowSeconds + 30 },
  })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .addMemo(Memo.text("stellar-horizon-exporter"))
    .build();
  transaction.sign(options.key ?? signer);
  return transaction.toXdr();
}

async function post(simulator: Simulator, tx: string) {
  const response = await simulator.app.request("/transactions", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ tx }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("POST /transactions", () => {
  it("holds the request until the next ledger closes, counts the transaction in it, answers Horizon's TransactionResponse", async () => {
    const { simulator, clock } = funded();
    const twin = simulatorAt({ networkPassphrase: Networks.TESTNET }).simulator;
    const before = simulator.accounts.get(signer.publicKey())!.sequence;
    let settled = false;
    const answer = post(simulator, envelope(simulator)).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(simulator.state().heldSubmissions).toBe(1);
    clock.tick(5000);
    simulator.advance(0);
    const { status, body } = await answer;
    expect(status).toBe(200);
    const expectedKeys = Object.keys(fixture("tx_submit_success-stellar-docs.json") as object);
    expect(Object.keys(body).slice(0, expectedKeys.length)).toEqual(expectedKeys);
    const parsed = transactionResponseSchema.parse(body);
    expect([body.fee_charged, body.max_fee, parsed.successful]).toEqual(["100", "100", true]);
    expect(body.memo).toBe("stellar-horizon-exporter");
    expect(xdr.TransactionResult.fromXdr(parsed.result_xdr, "base64").result.type).toBe("txSuccess");
    expect(simulator.accounts.get(signer.publicKey())!.sequence).toBe(before + 1n);
    twin.advance(5000);
    const withTransaction = simulator.state().historyLatestLedger;
    expect(withTransaction).toBe(parsed.ledger);
    const ledger = (await (await simulator.app.request(`/ledgers/${parsed.ledger}`)).json()) as Record<string, number>;
    const twinLedger = (await (await twin.app.request(`/ledgers/${parsed.ledger}`)).json()) as Record<string, number>;
    expect(ledger.successful_transaction_count).toBe(twinLedger.successful_transaction_count! + 1);
    expect(ledger.operation_count).toBe(twinLedger.operation_count! + 1);
  });

  it.each([
    ["a fee below the surge minimum", "tx_insufficient_fee", "txInsufficientFee", { fee: 100 }, "fee_spike"],
    ["a signature by another key", "tx_bad_auth", "txBadAuth", { key: Keypair.random() }, undefined],
    ["another network's passphrase", "tx_bad_auth", "txBadAuth", { passphrase: Networks.PUBLIC }, undefined],
    ["a sequence already used", "tx_bad_seq", "txBadSeq", { sequence: 5n }, undefined],
  ] as const)(
    "%s is a transaction_failed problem %s with a real result XDR",
    async (_, code, resultName, options, scenario) => {
      const { simulator } = funded();
      if (scenario) simulator.setScenario(scenario);
      const { status, body } = await post(simulator, envelope(simulator, options));
      expect(status).toBe(400);
      expect(body.type).toBe("https://stellar.org/horizon-errors/transaction_failed");
      const extras = transactionFailedExtrasSchema.parse(body.extras);
      expect(extras.result_codes).toEqual({ transaction: code });
      expect(xdr.TransactionResult.fromXdr(extras.result_xdr, "base64").result.type).toBe(resultName);
      expect(simulator.state().heldSubmissions).toBe(0);
    },
  );

  it("an account that does not exist is tx_no_account; a missing tx field is a bad request", async () => {
    const { simulator } = simulatorAt({ networkPassphrase: Networks.TESTNET });
    const { status, body } = await post(simulator, envelope(simulator, { sequence: 1n }));
    expect([status, (body.extras as { result_codes: unknown }).result_codes]).toEqual([
      400,
      { transaction: "tx_no_account" },
    ]);
    const empty = await simulator.app.request("/transactions", { method: "POST" });
    expect(empty.status).toBe(400);
  });

  it("txsub_timeout answers 504 transaction_submission_timeout after 30 s and includes nothing", async () => {
    const { simulator, clock } = funded();
    simulator.setScenario("txsub_timeout");
    const before = simulator.accounts.get(signer.publicKey())!.sequence;
    const answer = post(simulator, envelope(simulator));
    await new Promise((resolve) => setImmediate(resolve));
    clock.tick(29_000);
    simulator.advance(0);
    expect(simulator.state().heldSubmissions).toBe(1);
    clock.tick(1_000);
    simulator.advance(0);
    const { status, body } = await answer;
    expect([status, body.type, body.title]).toEqual([
      504,
      "https://stellar.org/horizon-errors/transaction_submission_timeout",
      "Transaction Submission Timeout",
    ]);
    expect(simulator.accounts.get(signer.publicKey())!.sequence).toBe(before);
  });
});
