import { Asset, Horizon } from "@stellar/stellar-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator, type Simulator, type StartOptions } from "../../src/simulator/index.js";
import { ManualClock } from "./helpers.js";
import { until } from "../support/wait.js";

const running: RunningSimulator[] = [];

/** Waits until the request settles or the simulator holds a request hanging, whichever comes first. */
async function settledOrHanging<T>(request: Promise<T>, simulator: Simulator): Promise<T | "hang"> {
  let settled = false;
  const markSettled = (): void => {
    settled = true;
  };
  request.then(markSettled, markSettled);
  await until("a hanging request", () => settled || simulator.state().hangingRequests > 0 || undefined, {
    intervalMs: 5,
  });
  return settled ? request : "hang";
}

async function start(options: StartOptions = {}): Promise<RunningSimulator> {
  const simulator = await startSimulator({ host: "127.0.0.1", port: 0, ...options });
  running.push(simulator);
  return simulator;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

describe("startSimulator", () => {
  it("listens on 127.0.0.1 with an ephemeral port and links back to itself", async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=utf-8");
    const root = (await response.json()) as { _links: { self: { href: string } } };
    expect(root._links.self.href).toBe(`${url}/`);
  });

  it("close() ends requests left hanging by flapping, promptly", async () => {
    const { url, simulator, close } = await start({ scenario: "flapping", seed: 5 });
    // Requests are independent: hang detection must not block the others.
    const requests: Promise<unknown>[] = [];
    while (simulator.state().hangingRequests === 0 && requests.length < 100) {
      const request = fetch(`${url}/fee_stats`).then(
        (response) => response.text(),
        (error: unknown) => error,
      );
      requests.push(request);
      await settledOrHanging(request, simulator);
    }
    expect(simulator.state().hangingRequests).toBeGreaterThan(0);
    const started = Date.now();
    await close();
    await Promise.all(requests);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(simulator.state().hangingRequests).toBe(0);
  });
});

describe("flapping over HTTP", () => {
  it("yields each failure kind, roughly half the requests still succeeding", async () => {
    const { url, simulator } = await start({ scenario: "flapping", seed: 9 });
    const seen = new Map<string, number>();
    const count = (kind: string): void => void seen.set(kind, (seen.get(kind) ?? 0) + 1);
    for (let i = 0; i < 120; i++) {
      const abort = new AbortController();
      const request = fetch(`${url}/ledgers?limit=1`, { signal: abort.signal }).then(async (response) => ({
        status: response.status,
        type: response.headers.get("content-type"),
        body: await response.text(),
      }));
      const outcome = await settledOrHanging(request, simulator);
      if (outcome === "hang") {
        count("hang");
        abort.abort();
        await request.catch(() => undefined);
        // The simulator notices the client leaving and stops holding the request.
        await until("no hanging request", () => simulator.state().hangingRequests === 0 || undefined, {
          intervalMs: 5,
        });
        continue;
      }
      if (outcome.status === 200) count("ok");
      else if (outcome.status === 503) {
        expect(outcome.type).toBe("text/plain; charset=utf-8");
        expect(outcome.body).toBe("Server capacity exceeded.\n");
        count("503 text");
      } else {
        expect(outcome.type).toBe("application/problem+json; charset=utf-8");
        expect(JSON.parse(outcome.body).status).toBe(outcome.status);
        count(String(outcome.status));
      }
    }
    expect([...seen.keys()].sort()).toEqual(["500", "503 text", "504", "hang", "ok"]);
    expect(seen.get("ok")).toBeGreaterThan(40);
    expect(seen.get("ok")).toBeLessThan(80);
  });
});

describe("a real Horizon client reads the simulator", () => {
  it("@stellar/stellar-sdk: root, fee stats, ledgers paged with next(), liquidity pools", async () => {
    const clock = new ManualClock(Date.now());
    const { url, simulator } = await start({ ledgerIntervalMs: 5000, now: clock.now, pools: 120 });
    const server = new Horizon.Server(url, { allowHttp: true });

    const root = await server.root();
    expect(root.network_passphrase).toBe("Public Global Stellar Network ; September 2015");
    expect(root.history_latest_ledger).toBe(simulator.state().historyLatestLedger);

    const fees = await server.feeStats();
    expect(fees.last_ledger).toBe(String(root.history_latest_ledger));
    expect(await server.fetchBaseFee()).toBe(100);

    let page = await server.ledgers().order("asc").limit(7).call();
    const sequences: number[] = [];
    for (let pages = 0; pages < 5; pages++) {
      sequences.push(...page.records.map((record) => record.sequence));
      page = await page.next();
    }
    expect(sequences).toHaveLength(35);
    sequences.forEach((sequence, index) => expect(sequence).toBe(root.history_elder_ledger + index));

    // The SDK types a single ledger as a page; at runtime it is the ledger record.
    const latest = (await server
      .ledgers()
      .ledger(root.history_latest_ledger)
      .call()) as unknown as Horizon.ServerApi.LedgerRecord;
    expect(latest.sequence).toBe(root.history_latest_ledger);

    clock.tick(5000);
    const newer = await server.ledgers().order("desc").limit(1).call();
    expect(newer.records[0]?.sequence).toBe(root.history_latest_ledger + 1);

    let pools = await server.liquidityPools().limit(50).call();
    const ids: string[] = [];
    while (pools.records.length > 0) {
      ids.push(...pools.records.map((pool) => pool.id));
      pools = await pools.next();
    }
    expect(ids).toHaveLength(120);
    expect(new Set(ids).size).toBe(120);

    const nativePools = await server.liquidityPools().forAssets(Asset.native()).limit(200).call();
    expect(nativePools.records.length).toBeGreaterThan(0);
    for (const pool of nativePools.records) expect(pool.reserves.map((reserve) => reserve.asset)).toContain("native");

    const single = await server
      .liquidityPools()
      .liquidityPoolId(ids[0] ?? "")
      .call();
    expect(single.id).toBe(ids[0]);
  });
});
