import { xdr } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import {
  pageSchema,
  problemSchema,
  transactionFailedExtrasSchema,
  transactionResponseSchema,
} from "../src/client/schemas.js";
import { fixtureJson } from "./support/fixtures.js";

describe("POST /transactions success answers parse with exact values", () => {
  it.each([
    // Horizon 1.x: hash, ledger and XDRs only.
    [
      "tx_submit_success-ruby-vcr-2020.json",
      "affdba4d060e4bcc06fdf3fd355aaffeb68529c2475a3fe18758938767771da4",
      988992,
      undefined,
      undefined,
      undefined,
    ],
    [
      "tx_submit_success-stellar-docs.json",
      "8ef0c6d60357bf91b0b0d7800b747ff02bf73117d3e017690cbff641ca67f124",
      139575,
      true,
      100,
      100,
    ],
    [
      "transaction-java-sdk.json",
      "a434302ea03b42dd00614e258e6b7cdce5dc8a9d7381b1cba8844b75df4f1486",
      52429011,
      true,
      100,
      100,
    ],
    [
      "transaction_fee_bump-java-sdk.json",
      "01f25077d5924dc2381055b22befacfdb7d6466325e2511d9cc0739d23bf14f0",
      52428726,
      true,
      200,
      2000,
    ],
  ])("%s", (name, hash, ledger, successful, feeCharged, maxFee) => {
    const parsed = transactionResponseSchema.parse(fixtureJson(name));
    expect(parsed.hash).toBe(hash);
    expect(parsed.ledger).toBe(ledger);
    expect(parsed.successful).toBe(successful);
    expect(parsed.fee_charged).toBe(feeCharged);
    expect(parsed.max_fee).toBe(maxFee);
    expect(xdr.TransactionResult.fromXdr(parsed.result_xdr, "base64").result.type).toMatch(
      /^tx(FeeBumpInner)?Success$/,
    );
  });

  it("every record of a transactions page", () => {
    const records = pageSchema
      .parse(fixtureJson("transactions-java-sdk.json"))
      ._embedded.records.map((record) => transactionResponseSchema.parse(record));
    expect(records.map(({ hash, fee_charged, max_fee }) => [hash.slice(0, 8), fee_charged, max_fee])).toEqual([
      ["65bdbaa1", 9700, 970000],
      ["1932d1ca", 100, 101],
      ["3f302dd6", 100, 103111],
    ]);
  });

  it("fees sent as numbers, as Horizons before 1.0 did", () => {
    const body = { ...fixtureJson("tx_submit_success-stellar-docs.json"), fee_charged: 100, max_fee: 200 };
    const parsed = transactionResponseSchema.parse(body);
    expect([parsed.fee_charged, parsed.max_fee]).toEqual([100, 200]);
  });

  it("refuses a fee that is neither an integer string nor a whole number", () => {
    const body = { ...fixtureJson("tx_submit_success-stellar-docs.json"), fee_charged: "1.5" };
    expect(transactionResponseSchema.safeParse(body).success).toBe(false);
  });
});

describe("transaction_failed problems parse with exact result codes", () => {
  it.each([
    ["error-transaction_failed-ruby-vcr.json", "tx_failed", ["op_already_exists"], "txFailed", 100],
    ["error-transaction_failed-op_underfunded-ruby-vcr.json", "tx_failed", ["op_underfunded"], "txFailed", 100],
    [
      "error-transaction_failed-tx_insufficient_fee-stellar-docs.json",
      "tx_insufficient_fee",
      undefined,
      "txInsufficientFee",
      10,
    ],
    ["error-transaction_failed-tx_too_late-trustee-wallet.json", "tx_too_late", undefined, "txTooLate", 100],
  ])("%s", (name, transaction, operations, resultName, feeCharged) => {
    const problem = problemSchema.parse(fixtureJson(name));
    expect(problem.status).toBe(400);
    expect(problem.type.split("/").pop()).toBe("transaction_failed");
    const extras = transactionFailedExtrasSchema.parse(problem.extras);
    expect(extras.result_codes.transaction).toBe(transaction);
    expect(extras.result_codes.operations).toEqual(operations);
    const result = xdr.TransactionResult.fromXdr(extras.result_xdr, "base64");
    expect(result.result.type).toBe(resultName);
    expect(result.feeCharged).toBe(BigInt(feeCharged));
  });

  it.each(["error-timeout-horizon-src.json", "error-timeout-stellar-docs.json"])("%s is a 504 timeout", (name) => {
    const problem = problemSchema.parse(fixtureJson(name));
    expect([problem.status, problem.type.split("/").pop()]).toEqual([504, "timeout"]);
  });
});
