import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HorizonClient } from "../src/client/horizon-client.js";
import { amountStroops, stroopsToUnits } from "../src/client/wire-values.js";
import { AssetsJob } from "../src/collectors/assets.js";
import { watchedAssets } from "../src/config/assets.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { isNearestFloat } from "./support/exact-decimal.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { fixtureJson } from "./support/fixtures.js";
import { runnerFor } from "./support/job-harness.js";
import { LoopbackServer } from "./support/loopback-server.js";
import { pollContext } from "./support/poll-context.js";

type JsonRecord = Record<string, unknown>;

const USDC_PAGE = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("assets-usdc-pubnet-stellar-docs.json");
const USDC_RECORD = USDC_PAGE._embedded.records[0]!;
const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const CNY_RECORD = fixtureJson<{ _embedded: { records: JsonRecord[] } }>("assets-cny-stellar-docs.json")._embedded
  .records[1]!;
const CNY = "CNY:GAASPHILC6DCBPP2P4T66QNSYF6C6OGN6DK36NY4G5SBR7AWH75TJG7N";
/** A valid issuer no record names. */
const UNKNOWN = "NOPE:GDEUQ2MX3YXMITFOTC3CO3GW5V3XE3IVG7JKLZZAOZ7WFYIN256INDUS";
const SUPPLY_PARTS = [
  ["balances", "authorized"],
  ["balances", "authorized_to_maintain_liabilities"],
  ["balances", "unauthorized"],
  ["claimable_balances_amount"],
  ["liquidity_pools_amount"],
  ["contracts_amount"],
] as const;

/** A Horizon serving `/assets` from `records`, keyed CODE:ISSUER; `status` replaces every answer when set. */
class AssetsHorizon {
  records = new Map<string, unknown>();
  status: number | undefined;
  /** Replaces every answer's body with this JSON (status 200) when set. */
  body: unknown;
  requests: URL[] = [];
  private readonly server = new LoopbackServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    this.requests.push(url);
    if (this.status !== undefined) {
      response.writeHead(this.status, { "content-type": "application/problem+json" });
      response.end(JSON.stringify({ type: "x", title: "Broken", status: this.status }));
      return;
    }
    if (this.body !== undefined) {
      response.writeHead(200, { "content-type": "application/hal+json; charset=utf-8" });
      response.end(JSON.stringify(this.body));
      return;
    }
    const key = `${url.searchParams.get("asset_code")}:${url.searchParams.get("asset_issuer")}`;
    const record = this.records.get(key);
    response.writeHead(200, { "content-type": "application/hal+json; charset=utf-8" });
    response.end(JSON.stringify({ _links: {}, _embedded: { records: record === undefined ? [] : [record] } }));
  });
  url = "";

  async start(): Promise<void> {
    this.url = await this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}

const horizon = new AssetsHorizon();
beforeAll(() => horizon.start());
afterAll(() => horizon.stop());
beforeEach(() => {
  horizon.records.clear();
  horizon.status = undefined;
  horizon.body = undefined;
  horizon.requests = [];
});

function jobFor(assets: string[]): AssetsJob {
  const problems: string[] = [];
  const watched = watchedAssets(assets, "test", problems);
  expect(problems).toEqual([]);
  const client = new HorizonClient({ url: horizon.url, timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
  return new AssetsJob(client, watched, parseSchedule("1m") as Schedule);
}

async function scrape(job: AssetsJob) {
  const { runner, store, metrics } = runnerFor(job);
  return {
    poll: async () => {
      await runner.run();
      return parseExposition((await store.scrape(Date.now(), "identity")).toString());
    },
    own: async () => parseExposition((await metrics.render("identity")).toString()),
  };
}

const at = (asset: string, labels: Record<string, string> = {}) => ({ horizon: "h", asset, ...labels });

function withAmounts(record: JsonRecord, amount: string): JsonRecord {
  const balances = { authorized: amount, authorized_to_maintain_liabilities: amount, unauthorized: amount };
  return {
    ...record,
    balances,
    claimable_balances_amount: amount,
    liquidity_pools_amount: amount,
    contracts_amount: amount,
  };
}

describe("the assets job", () => {
  it("asks for one asset per request, limit 1", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    await (await scrape(jobFor([USDC, CNY]))).poll();
    expect(horizon.requests.map((url) => [url.pathname, ...url.searchParams.entries()])).toEqual([
      ["/assets", ["asset_code", "USDC"], ["asset_issuer", USDC.slice(5)], ["limit", "1"]],
      ["/assets", ["asset_code", "CNY"], ["asset_issuer", CNY.slice(4)], ["limit", "1"]],
    ]);
  });

  it("reports each answer as progress, so a poll of many assets keeps its deadline", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    let answers = 0;
    await jobFor([USDC, CNY, UNKNOWN]).run({ ...pollContext(), progressed: () => (answers += 1) });
    expect(horizon.requests).toHaveLength(3);
    expect(answers).toBe(3);
  });

  it("exports the served values exactly; supply is the six-part sum to the stroop", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    const values = await (await scrape(jobFor([USDC]))).poll();
    expect(valueOf(values, "stellar_horizon_asset_exists", at(USDC))).toBe(1);
    // 121258232.6884846 + 0 + 0 + 8567.4304807 + 6154162.8631633 + 2734426.6007745; the archived pair is ignored.
    expect(valueOf(values, "stellar_horizon_asset_supply", at(USDC))).toBe(130155389.5829031);
    const amount = (held_by: string) => valueOf(values, "stellar_horizon_asset_amount", at(USDC, { held_by }));
    expect(amount("authorized")).toBe(121258232.6884846);
    expect(amount("authorized_to_maintain_liabilities")).toBe(0);
    expect(amount("unauthorized")).toBe(0);
    expect(amount("claimable_balances")).toBe(8567.4304807);
    expect(amount("liquidity_pools")).toBe(6154162.8631633);
    expect(amount("contracts")).toBe(2734426.6007745);
    const holders = (held_by: string) => valueOf(values, "stellar_horizon_asset_holders", at(USDC, { held_by }));
    expect(holders("authorized")).toBe(1058053);
    expect(holders("authorized_to_maintain_liabilities")).toBe(0);
    expect(holders("unauthorized")).toBe(0);
    expect(holders("claimable_balances")).toBe(449);
    expect(holders("liquidity_pools")).toBe(645);
    expect(holders("contracts")).toBe(388);
    const flag = (name: string) => valueOf(values, "stellar_horizon_asset_flag", at(USDC, { flag: name }));
    expect([
      flag("auth_required"),
      flag("auth_revocable"),
      flag("auth_immutable"),
      flag("auth_clawback_enabled"),
    ]).toEqual([0, 1, 0, 0]);
    const contract_id = "CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75";
    expect(valueOf(values, "stellar_horizon_asset_info", at(USDC, { contract_id }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_asset_flag_changes_total", at(USDC))).toBe(0);
    expect([...values.keys()].filter((key) => key.includes("archived"))).toEqual([]);
  });

  it("sums parts beyond int64 and beyond 2^53 exactly, converting once", async () => {
    // Each part is far past int64 stroops; the exact sum's nearest float is not the float sum of the parts.
    const part = "98765432109876543.2109877";
    horizon.records.set(USDC, withAmounts(USDC_RECORD, part));
    const { poll } = await scrape(jobFor([USDC]));
    let values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_supply", at(USDC))).toBe(stroopsToUnits(amountStroops(part) * 6n));
    expect(
      isNearestFloat(valueOf(values, "stellar_horizon_asset_supply", at(USDC))!, "592592592659259259.2659262"),
    ).toBe(true);
    expect(valueOf(values, "stellar_horizon_asset_amount", at(USDC, { held_by: "contracts" }))).toBe(Number(part));
    // Just past 2^53 units plus five small parts: 9007199254740994.5 exactly, nearest float ...994; adding
    // the parts as floats stays at ...992.
    const small = withAmounts(USDC_RECORD, "0.3000000");
    horizon.records.set(USDC, {
      ...small,
      balances: { ...(small.balances as JsonRecord), authorized: "9007199254740993.0000000" },
    });
    values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_supply", at(USDC))).toBe(9007199254740994);
    expect(SUPPLY_PARTS.reduce((total, _part, index) => total + (index === 0 ? 9007199254740993 : 0.3), 0)).toBe(
      9007199254740992,
    );
  });

  it("leaves out the parts a Horizon does not send, and counts 0 for them in supply", async () => {
    const {
      contract_id: _contract,
      contracts_amount: _amount,
      num_contracts: _count,
      claimable_balances_amount: _claimable,
      ...older
    } = USDC_RECORD;
    horizon.records.set(USDC, {
      ...older,
      flags: { auth_required: true, auth_revocable: true, auth_immutable: false },
    });
    const values = await (await scrape(jobFor([USDC]))).poll();
    expect(valueOf(values, "stellar_horizon_asset_amount", at(USDC, { held_by: "contracts" }))).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_asset_holders", at(USDC, { held_by: "contracts" }))).toBeUndefined();
    expect(
      valueOf(values, "stellar_horizon_asset_amount", at(USDC, { held_by: "claimable_balances" })),
    ).toBeUndefined();
    expect(valueOf(values, "stellar_horizon_asset_holders", at(USDC, { held_by: "claimable_balances" }))).toBe(449);
    // 121258232.6884846 + 6154162.8631633
    expect(valueOf(values, "stellar_horizon_asset_supply", at(USDC))).toBe(127412395.5516479);
    expect(valueOf(values, "stellar_horizon_asset_info", at(USDC, { contract_id: "" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_asset_flag", at(USDC, { flag: "auth_required" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_asset_flag", at(USDC, { flag: "auth_clawback_enabled" }))).toBeUndefined();
  });

  it("gives exists 0 and nothing else for an asset /assets does not return, without a poll error", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    const { poll, own } = await scrape(jobFor([UNKNOWN, USDC]));
    const values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_exists", at(UNKNOWN))).toBe(0);
    expect(valueOf(values, "stellar_horizon_asset_flag_changes_total", at(UNKNOWN))).toBe(0);
    const series = [...values.keys()].filter((key) => key.includes(`asset="${UNKNOWN}"`));
    expect(series.map((key) => key.slice(0, key.indexOf("{"))).sort()).toEqual([
      "stellar_horizon_asset_exists",
      "stellar_horizon_asset_flag_changes_total",
    ]);
    expect(valueOf(values, "stellar_horizon_asset_exists", at(USDC))).toBe(1);
    const self = await own();
    expect(valueOf(self, "stellar_horizon_exporter_poll_errors_total", { horizon: "h", endpoint: "assets" })).toBe(
      undefined,
    );
  });

  it("never reads a failed request as exists 0", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    const { poll, own } = await scrape(jobFor([USDC]));
    expect(valueOf(await poll(), "stellar_horizon_asset_exists", at(USDC))).toBe(1);
    horizon.status = 503;
    const values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_exists", at(USDC))).not.toBe(0);
    const self = await own();
    const errors = [...self.entries()].filter(([key]) => key.startsWith("stellar_horizon_exporter_poll_errors_total"));
    expect(errors).toEqual([
      ['stellar_horizon_exporter_poll_errors_total{endpoint="assets",horizon="h",reason="http_5xx"}', 1],
    ]);
  });

  it("fails the poll (reason schema) on an answer that is no page, counting it invalid, never as exists 0", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    const { poll, own } = await scrape(jobFor([USDC]));
    await poll();
    horizon.body = { type: "not a page" };
    const values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_exists", at(USDC))).not.toBe(0);
    const self = await own();
    const of = { horizon: "h", endpoint: "assets" };
    expect(valueOf(self, "stellar_horizon_exporter_poll_errors_total", { ...of, reason: "schema" })).toBe(1);
    expect(valueOf(self, "stellar_horizon_exporter_invalid_records_total", of)).toBe(1);
  });

  it("counts a flag change once, and never at the first poll", async () => {
    horizon.records.set(USDC, USDC_RECORD);
    const { poll } = await scrape(jobFor([USDC]));
    const changes = async () => valueOf(await poll(), "stellar_horizon_asset_flag_changes_total", at(USDC));
    expect(await changes()).toBe(0);
    expect(await changes()).toBe(0);
    const flags = { ...(USDC_RECORD.flags as JsonRecord), auth_clawback_enabled: true };
    horizon.records.set(USDC, { ...USDC_RECORD, flags });
    expect(await changes()).toBe(1);
    expect(await changes()).toBe(1);
    // Gone, then back with the same flags as the last valid record: no change.
    horizon.records.delete(USDC);
    expect(await changes()).toBe(1);
    // An invalid record: the asset has no series, and its flags are not compared.
    horizon.records.set(USDC, { ...USDC_RECORD, flags: { ...flags, auth_required: "yes" } });
    expect(await changes()).toBeUndefined();
    horizon.records.set(USDC, { ...USDC_RECORD, flags });
    expect(await changes()).toBe(1);
    horizon.records.set(USDC, USDC_RECORD);
    expect(await changes()).toBe(2);
  });

  it("counts no change for a flag Horizon did not send, and compares it with its last known value", async () => {
    // One replica older than Horizon 2.1 (no auth_clawback_enabled) behind a load balancer, or an upgrade.
    const { auth_clawback_enabled: _, ...olderFlags } = USDC_RECORD.flags as JsonRecord;
    const older = { ...USDC_RECORD, flags: olderFlags };
    const { poll } = await scrape(jobFor([USDC]));
    const changes = async (record: JsonRecord) => {
      horizon.records.set(USDC, record);
      return valueOf(await poll(), "stellar_horizon_asset_flag_changes_total", at(USDC));
    };
    expect(await changes(older)).toBe(0);
    expect(await changes(USDC_RECORD)).toBe(0); // auth_clawback_enabled: false
    expect(await changes(older)).toBe(0);
    // Set while an older replica answered: the last known false is the baseline.
    const clawback = { ...USDC_RECORD, flags: { ...(USDC_RECORD.flags as JsonRecord), auth_clawback_enabled: true } };
    expect(await changes(clawback)).toBe(1);
    expect(await changes(older)).toBe(1);
    expect(await changes(clawback)).toBe(1);
  });

  it("counts an invalid record at each poll that returns it and leaves that asset out", async () => {
    horizon.records.set(USDC, { ...USDC_RECORD, contracts_amount: "12.5" });
    horizon.records.set(CNY, CNY_RECORD);
    const { poll, own } = await scrape(jobFor([USDC, CNY]));
    const invalid = async () =>
      valueOf(await own(), "stellar_horizon_exporter_invalid_records_total", { horizon: "h", endpoint: "assets" });
    let values = await poll();
    expect(await invalid()).toBe(1);
    values = await poll();
    expect(await invalid()).toBe(2);
    expect([...values.keys()].filter((key) => key.includes(`asset="${USDC}"`))).toEqual([]);
    expect(valueOf(values, "stellar_horizon_asset_supply", at(CNY))).toBe(1);
    for (const bad of [
      { ...USDC_RECORD, balances: { authorized: "-1.0000000" } },
      { ...USDC_RECORD, num_contracts: 1.5 },
      { ...USDC_RECORD, asset_code: "EURC" },
      { ...USDC_RECORD, liquidity_pools_amount: `${"9".repeat(50)}.0000000` },
    ]) {
      horizon.records.set(USDC, bad);
      await poll();
    }
    expect(await invalid()).toBe(6);
  });
});
