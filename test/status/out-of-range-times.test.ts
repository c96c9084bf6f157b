import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type PublishedSource, RPC_METRICS } from "../../src/catalog/metrics.js";
import { feeStatsSchema, healthSchema, latestLedgerSchema } from "../../src/client/rpc-schemas.js";
import { rpcStatusSamples } from "../../src/collectors/rpc-status.js";
import type { CollectorSamples, Sample, SeriesSource } from "../../src/exposition/samples.js";
import { createServerApp } from "../../src/server/app.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";
import { polledTarget } from "./target-view.js";

const NOW_MS = Date.parse("2026-03-02T12:00:00Z");
/** Past year 275760, the last a Date holds, yet a uint64 a Stellar RPC may send. */
const FAR_SECONDS = 99_999_999_999_999;
const fixture = (name: string) => JSON.parse(readFileSync(`test/fixtures/stellar-rpc/${name}`, "utf8"));

/** The landing page and /status.json of one Stellar RPC whose `job` published `samples`. */
async function pages(job: PublishedSource, samples: CollectorSamples<SeriesSource>) {
  const board = createStatusBoard(() => NOW_MS);
  const view = polledTarget("rpc", "hostile-rpc", NOW_MS);
  board.published(view, job, samples, NOW_MS + 60_000);
  const app = createServerApp({
    version: "test",
    web: () => undefined,
    renderMetrics: async () => [],
    status: () => statusReport("test", [view], board, NOW_MS),
    isReady: () => true,
  });
  const [json, page] = await Promise.all([app.request("/status.json"), app.request("/")]);
  return {
    json: { status: json.status, body: await json.text() },
    page: { status: page.status, body: await page.text() },
  };
}

describe("an upstream time past what a Date holds", () => {
  it("a getLatestLedger close time past year 275760: the landing page shows the ledger without its close time", async () => {
    // The schema takes any unsigned 64-bit integer string.
    const latestLedger = latestLedgerSchema.parse({
      ...fixture("getLatestLedger-java-sdk.json").result,
      closeTime: String(FAR_SECONDS),
    });
    const feeStats = feeStatsSchema.parse(fixture("getFeeStats-result-stellar-docs.json"));
    const health = healthSchema.parse({
      status: "healthy",
      latestLedger: latestLedger.sequence,
      oldestLedger: 1,
      ledgerRetentionWindow: 17280,
    });
    const { json, page } = await pages(
      "status",
      rpcStatusSamples({ health, healthy: true, latestLedger, feeStats }, true),
    );
    expect(json.status).toBe(200);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`data-value="${latestLedger.sequence}"`);
    expect(page.body).not.toMatch(/closed <time/);
    expect(wellFormedProblems(page.body)).toEqual([]);
  });

  it("a contract entry's expected archival past year 275760: out of range on the page, no expiresAt in the JSON", async () => {
    // The collector multiplies a TTL (up to 2^32 ledgers) by the close interval the RPC's close times show.
    const labels = { contract: "counter", entry: "instance", durability: "persistent" };
    const samples: Sample[] = [
      { metric: RPC_METRICS.contractEntryExists, labels, value: 1 },
      { metric: RPC_METRICS.contractEntryArchived, labels, value: 0 },
      { metric: RPC_METRICS.contractEntryTtl, labels, value: 4_000_000_000 },
      { metric: RPC_METRICS.contractEntryExpiry, labels, value: FAR_SECONDS },
    ];
    const { json, page } = await pages("contracts", { live: samples, persistent: [] });
    expect(json.status).toBe(200);
    const [entry] = JSON.parse(json.body).targets[0].contracts;
    expect(entry.expiryTimestampSeconds.value).toBe(FAR_SECONDS);
    expect(entry).not.toHaveProperty("expiresAt");
    expect(page.status).toBe(200);
    expect(page.body).toContain(`data-value="${FAR_SECONDS}">out of range</span>`);
    expect(wellFormedProblems(page.body)).toEqual([]);
  });
});
