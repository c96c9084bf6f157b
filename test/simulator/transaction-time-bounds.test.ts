// stellar-core's TransactionFrame::isTooEarly: a transaction whose minTime is after the last closed ledger's close
// time is refused with txTOO_EARLY (TransactionQueue::canAdd checks with lowerBoundCloseTimeOffset 0).
import { Account, Keypair, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { transactionFailedExtrasSchema } from "../../src/client/schemas.js";
import type { Simulator } from "../../src/simulator/index.js";
import { simulatorAt } from "./helpers.js";

const signer = Keypair.random();

function envelope(simulator: Simulator, minTime: number): string {
  const sequence = simulator.accounts.get(signer.publicKey())!.sequence;
  const nowSeconds = Math.floor(simulator.now() / 1000);
  const transaction = new TransactionBuilder(new Account(signer.publicKey(), sequence.toString()), {
    fee: "100",
    networkPassphrase: Networks.TESTNET,
    timebounds: { minTime, maxTime: nowSeconds + 30 },
  })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .build();
  transaction.sign(signer);
  return transaction.toXdr();
}

/** The submission's result code when refused at once; "held" when it waits for a ledger. */
async function verdict(simulator: Simulator, tx: string): Promise<string> {
  const heldBefore = simulator.state().heldSubmissions;
  let settled = false;
  const request = simulator.app.request("/transactions", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ tx }).toString(),
  });
  const answer = Promise.resolve(request).finally(() => (settled = true));
  while (!settled && simulator.state().heldSubmissions === heldBefore) await new Promise((done) => setImmediate(done));
  if (!settled) return "held";
  const body = (await (await answer).json()) as { extras: unknown };
  return transactionFailedExtrasSchema.parse(body.extras).result_codes.transaction;
}

describe("POST /transactions time bounds", () => {
  it("refuses a minTime after the last closed ledger's close time, even one the wall clock has passed", async () => {
    const { simulator, clock } = simulatorAt({ networkPassphrase: Networks.TESTNET });
    simulator.accounts.add({ id: signer.publicKey(), balance: 1_000_0000000n }, simulator.latestLedgerPoint());
    // A ledger closes (every 5 s), then 3 s pass without another.
    const before = simulator.state().coreLatestLedger;
    clock.tick(5000);
    simulator.advance(0);
    expect(simulator.state().coreLatestLedger).toBe(before + 1);
    const lastCloseMs = simulator.latestLedgerPoint().closedAtMs;
    clock.nowMs = lastCloseMs + 3000;
    simulator.advance(0);
    expect(simulator.state().coreLatestLedger).toBe(before + 1);
    const lastCloseSeconds = Math.floor(lastCloseMs / 1000);
    expect(await verdict(simulator, envelope(simulator, Math.floor(clock.nowMs / 1000)))).toBe("tx_too_early");
    expect(await verdict(simulator, envelope(simulator, lastCloseSeconds + 1))).toBe("tx_too_early");
    expect(await verdict(simulator, envelope(simulator, lastCloseSeconds))).toBe("held");
  });

  it("accepts a transaction without a lower bound (minTime 0), as the SDK's setTimeout builds it", async () => {
    const { simulator, clock } = simulatorAt({ networkPassphrase: Networks.TESTNET });
    simulator.accounts.add({ id: signer.publicKey(), balance: 1_000_0000000n }, simulator.latestLedgerPoint());
    clock.tick(3000);
    simulator.advance(0);
    expect(await verdict(simulator, envelope(simulator, 0))).toBe("held");
  });
});
