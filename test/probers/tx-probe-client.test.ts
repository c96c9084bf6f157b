// The probe over a real HorizonClient and loopback HTTP: what the client's courtesy and validation do to a probe run.
import { Networks } from "@stellar/stellar-base";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { HorizonClient } from "../../src/client/horizon-client.js";
import { feeStatsSchema } from "../../src/client/schemas.js";
import { txProbeWith } from "../../src/config/tx-probe.js";
import { MetricStore } from "../../src/exposition/store.js";
import type { HorizonJobParts } from "../../src/job/job.js";
import { NetworkView } from "../../src/job/network.js";
import { txProbeJob } from "../../src/probers/tx-probe.js";
import { stellarBase } from "../../src/stellar-base.js";
import { parseExposition, valueOf } from "../support/exposition.js";
import { fixtureJson } from "../support/fixtures.js";
import { runnerFor } from "../support/job-harness.js";
import { LoopbackServer } from "../support/loopback-server.js";

const stats = feeStatsSchema.parse(fixtureJson("fee_stats-java-sdk.json"));
const success = fixtureJson<Record<string, unknown>>("tx_submit_success-stellar-docs.json");

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** One probe run against a Horizon whose account read answers with `accountHeaders` and whose submissions answer
 * `submitted` (200): the probe's series, and how many submissions Horizon received. */
async function probeRun(accountHeaders: Record<string, string>, submitted: Record<string, unknown>) {
  const signer = stellarBase().Keypair.random();
  const id = signer.publicKey();
  let posts = 0;
  server = new LoopbackServer((request, response) => {
    if (request.method === "POST") {
      posts += 1;
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify(submitted));
      return;
    }
    const account = {
      ...fixtureJson<Record<string, unknown>>("account-stellar-docs.json"),
      id,
      account_id: id,
      signers: [{ weight: 1, key: id, type: "ed25519_public_key" }],
    };
    response.writeHead(200, { "Content-Type": "application/hal+json", ...accountHeaders });
    response.end(JSON.stringify(account));
  });
  const url = await server.start();
  const client = new HorizonClient({ url, timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  const network = new NetworkView();
  network.learn({
    passphrase: Networks.TESTNET,
    baseFeeStroops: stats.last_ledger_base_fee,
    feeP90Stroops: stats.fee_charged.p90,
    latestLedger: 10,
  });
  const txProbe = txProbeWith(signer, { interval: "1m", maxFee: 1000, allowPubnet: false });
  const parts = { target: { txProbe }, client, network, log: pino({ level: "silent" }), clock: systemClock };
  const store = new MetricStore();
  const { runner } = runnerFor(txProbeJob(parts as unknown as HorizonJobParts), { store });
  await runner.run();
  return { series: parseExposition((await store.scrape(Date.now(), "identity")).toString()), posts };
}

describe("the transaction probe over HTTP", () => {
  it("does not submit, or count a submission, when its account read's answer exhausted the rate limit", async () => {
    // The last request of this window; the window resets in 20 s.
    const exhausted = { "X-Ratelimit-Limit": "3600", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "20" };
    const { series, posts } = await probeRun(exhausted, success);
    expect(posts).toBe(0);
    expect(valueOf(series, "stellar_horizon_tx_probe_submissions_total", { horizon: "h" })).toBe(0);
    const rateLimited = { horizon: "h", reason: "rate_limited" };
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", rateLimited)).toBe(0);
  });

  it("counts a success answer with a negative fee_charged as a schema failure, and exports no fee", async () => {
    const { series, posts } = await probeRun({}, { ...success, fee_charged: "-5" });
    expect(posts).toBe(1);
    expect(valueOf(series, "stellar_horizon_tx_probe_fee_charged_stroops", { horizon: "h" })).toBeUndefined();
    expect(valueOf(series, "stellar_horizon_tx_probe_failures_total", { horizon: "h", reason: "schema" })).toBe(1);
  });
});
