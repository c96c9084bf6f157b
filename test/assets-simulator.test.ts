import { Asset, Horizon, Networks } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HorizonClient } from "../src/client/horizon-client.js";
import { AssetsJob } from "../src/collectors/assets.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import {
  DEMO_ASSET,
  DEMO_WATCHED_ASSETS,
  startSimulator,
  USDC,
  type RunningSimulator,
} from "../src/simulator/index.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { fixtureJson } from "./support/fixtures.js";
import { configFrom, startHarness, type Harness } from "./support/exporter-harness.js";
import { runnerFor } from "./support/job-harness.js";

const [USDC_CODE, USDC_ISSUER] = USDC.split(":") as [string, string];
const [, DEMO_ISSUER] = DEMO_ASSET.split(":") as [string, string];

describe("the simulator's /assets", () => {
  let running: RunningSimulator;
  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 60_000, networkPassphrase: Networks.TESTNET });
  });
  afterAll(() => running.close());

  it("answers the official SDK's assets().forCode().forIssuer() in Horizon 23+ shape", async () => {
    const server = new Horizon.Server(running.url, { allowHttp: true });
    const page = await server.assets().forCode(USDC_CODE).forIssuer(USDC_ISSUER).limit(1).call();
    expect(page.records).toHaveLength(1);
    const [record] = page.records;
    expect(record).toMatchObject({
      asset_type: "credit_alphanum4",
      asset_code: "USDC",
      asset_issuer: USDC_ISSUER,
      paging_token: `USDC_${USDC_ISSUER}_credit_alphanum4`,
      contract_id: new Asset(USDC_CODE, USDC_ISSUER).contractId(Networks.TESTNET),
      // The capture's rest of the network plus the hot (30 000) and cold (250 000) wallets' trustlines.
      accounts: { authorized: 1058055, authorized_to_maintain_liabilities: 0, unauthorized: 0 },
      balances: {
        authorized: "121538232.6884846",
        authorized_to_maintain_liabilities: "0.0000000",
        unauthorized: "0.0000000",
      },
      // Plus the cold wallet's claimable 1 250.
      claimable_balances_amount: "9817.4304807",
      num_claimable_balances: 450,
      liquidity_pools_amount: "6154162.8631633",
      contracts_amount: "2734426.6007745",
      flags: { auth_required: false, auth_revocable: true, auth_immutable: false, auth_clawback_enabled: false },
    });
    expect(Object.keys(record!)).not.toContain("num_archived_contracts");
    expect(Object.keys(record!)).not.toContain("amount");
    const demo = await server.assets().forCode("DEMO").call();
    expect(demo.records.map((asset) => asset.asset_issuer)).toEqual([DEMO_ISSUER]);
    expect(Object.keys(demo.records[0]!)).not.toContain("contract_id");
    expect((demo.records[0]!._links as unknown as { toml: { href: string } }).toml.href).toBe(
      "https://issuer.example.com/.well-known/stellar.toml",
    );
  });

  it("lists every asset in code order, filters, and answers 200 with no records for an unknown asset", async () => {
    const all = (await (await fetch(`${running.url}/assets`)).json()) as { _embedded: { records: unknown[] } };
    expect(all._embedded.records.map((record) => (record as { asset_code: string }).asset_code)).toEqual([
      "DEMO",
      "USDC",
    ]);
    const unknown = await fetch(`${running.url}/assets?asset_code=NOPE&asset_issuer=${USDC_ISSUER}`);
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as { _embedded: { records: unknown[] } })._embedded.records).toEqual([]);
  });

  it("refuses a bad code, issuer or cursor with Horizon's 400s", async () => {
    const bad = async (query: string) => {
      const response = await fetch(`${running.url}/assets?${query}`);
      return { status: response.status, body: (await response.json()) as { extras?: unknown } };
    };
    expect(await bad("asset_code=USDCUSDCUSDCX")).toEqual({
      status: 400,
      body: fixtureJson("error-bad_request-asset_code_invalid-horizon-src.json"),
    });
    const issuer = await bad("asset_issuer=GNOTANISSUER");
    expect(issuer.status).toBe(400);
    expect(issuer.body.extras).toEqual({
      invalid_field: "asset_issuer",
      reason: "GNOTANISSUER is not a valid asset issuer",
    });
    expect((await bad("cursor=nonsense")).body.extras).toEqual({
      invalid_field: "cursor",
      reason: "the cursor is not a valid paging_token",
    });
  });
});

describe("the assets job against the simulator", () => {
  let running: RunningSimulator;
  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 60_000, networkPassphrase: Networks.TESTNET });
  });
  afterAll(() => running.close());

  it("shows a mint and a flag change (asset_mint), and frozen holders (trustline_deauthorized)", async () => {
    const client = new HorizonClient({ url: running.url, timeoutMs: 5_000, retries: 0, maxBodyBytes: 1 << 20 });
    const job = new AssetsJob(client, DEMO_WATCHED_ASSETS, parseSchedule("1m") as Schedule);
    const { runner, store } = runnerFor(job);
    const poll = async () => {
      await runner.run();
      return parseExposition((await store.scrape(Date.now(), "identity")).toString());
    };
    const demo = (labels: Record<string, string> = {}) => ({ horizon: "h", asset: DEMO_ASSET, ...labels });
    const usdc = (labels: Record<string, string> = {}) => ({ horizon: "h", asset: USDC, ...labels });
    let values = await poll();
    // 5 000 000 + 250 + 40 000
    expect(valueOf(values, "stellar_horizon_asset_supply", demo())).toBe(5_040_250);
    expect(valueOf(values, "stellar_horizon_asset_supply", usdc())).toBe(130436639.5829031);
    expect(valueOf(values, "stellar_horizon_asset_flag", demo({ flag: "auth_clawback_enabled" }))).toBe(0);
    expect(valueOf(values, "stellar_horizon_asset_info", demo({ contract_id: "" }))).toBe(1);

    running.simulator.setScenario("asset_mint");
    values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_supply", demo())).toBe(6_040_250);
    expect(valueOf(values, "stellar_horizon_asset_flag", demo({ flag: "auth_clawback_enabled" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_asset_flag_changes_total", demo())).toBe(1);
    expect(valueOf(values, "stellar_horizon_asset_flag_changes_total", usdc())).toBe(0);
    values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_flag_changes_total", demo())).toBe(1);

    expect(valueOf(values, "stellar_horizon_asset_holders", usdc({ held_by: "unauthorized" }))).toBe(0);
    running.simulator.setScenario("trustline_deauthorized");
    values = await poll();
    expect(valueOf(values, "stellar_horizon_asset_holders", usdc({ held_by: "unauthorized" }))).toBe(1);
    expect(valueOf(values, "stellar_horizon_asset_amount", usdc({ held_by: "unauthorized" }))).toBe(30_000);
  });
});

describe("the exporter watching the simulator's assets", () => {
  let running: RunningSimulator;
  let harness: Harness | undefined;
  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 60_000, networkPassphrase: Networks.TESTNET });
  });
  afterAll(async () => {
    await harness?.exporter.close();
    await running.close();
  });

  it("exports them, counts their requests, and shows them on the Horizon card and in /status.json", async () => {
    harness = await startHarness(
      await configFrom([`--horizon.url=sim=${running.url}`, `--asset=${USDC}`, `--asset=${DEMO_ASSET}`]),
    );
    const values = await harness.scrape();
    expect(valueOf(values, "stellar_horizon_asset_supply", { horizon: "sim", asset: DEMO_ASSET })).toBe(5_040_250);
    expect(
      valueOf(values, "stellar_horizon_exporter_requests_total", { horizon: "sim", endpoint: "assets", code: "200" }),
    ).toBe(2);
    const status = (await (await fetch(`${harness.exporter.url}/status.json`)).json()) as {
      targets: { assets?: { asset: string; supply?: { value: number }; flags: string[] }[] }[];
    };
    const assets = status.targets[0]!.assets!;
    expect(assets.map(({ asset, supply, flags }) => [asset, supply?.value, flags])).toEqual([
      [USDC, 130436639.5829031, ["auth_revocable"]],
      [DEMO_ASSET, 5_040_250, []],
    ]);
    const page = await (await fetch(`${harness.exporter.url}/`)).text();
    expect(page).toContain("<caption>Watched assets</caption>");
    expect(page).toContain(
      `data-series="stellar_horizon_asset_supply{asset=&quot;${DEMO_ASSET}&quot;,horizon=&quot;sim&quot;}" data-value="5040250"`,
    );
  });
});
