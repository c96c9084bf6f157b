import { xdr } from "@stellar/stellar-base";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ContractsCollector, contractsRequestsPerPoll } from "../src/collectors/contracts.js";
import { RpcAccountsCollector } from "../src/collectors/rpc-accounts.js";
import { contractInstanceKey } from "../src/client/ledger-keys.js";
import type { WatchedContract } from "../src/config/contracts.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { NetworkView } from "../src/job/network.js";
import { rpcFixtureJson } from "./support/fixtures.js";
import { ManualClock } from "./support/manual-clock.js";
import { runnerFor } from "./support/job-harness.js";

type Capture = {
  result: { entries: { key: string; xdr: string; lastModifiedLedgerSeq: number; liveUntilLedgerSeq?: number }[] };
};
const capture = (name: string) => rpcFixtureJson<Capture>(name).result.entries;
const INSTANCE = capture("getLedgerEntries-contract-instance-dotnet-sdk.json")[0]!;
const CODE = capture("getLedgerEntries-contract-code-dotnet-sdk.json")[0]!;
const WASM_CONTRACT = "CDSUR2JFKSUORJLUA2FISW7P6ALDTS2PDK6AYQZ7G4CSY5WZS5QVSM47";
const LATEST_LEDGER = rpcFixtureJson<{ result: unknown }>("getLatestLedger-java-sdk.json").result;

/** An RPC on `clock` answering each call after `delayMs(method, keys)`: entries from `served`, none for other keys. */
function slowRpc(
  clock: ManualClock,
  served: Map<string, unknown>,
  delayMs: (method: string, keys: string[]) => number,
) {
  const answered: number[] = [];
  const client = {
    call: (_endpoint: string, method: string, params: unknown, signal?: AbortSignal) => {
      const asked = method === "getLedgerEntries" ? (params as { keys: string[] }).keys : [];
      const result =
        method === "getLedgerEntries"
          ? { entries: asked.flatMap((key) => served.get(key) ?? []), latestLedger: 458386 }
          : LATEST_LEDGER;
      return new Promise<unknown>((resolve, reject) => {
        const timer = clock.setTimeout(
          () => {
            answered.push(clock.now());
            resolve(result);
          },
          delayMs(method, asked),
        );
        signal?.addEventListener("abort", () => (clock.clearTimeout(timer), reject(signal.reason)), { once: true });
      });
    },
  };
  return { client, answered };
}

// 10 s timeout and 2 retries: 30 s without progress fails a run as "no answer"; its cap is 2 such budgets (60 s).
const DEADLINES = { timeoutMs: 10_000, retries: 2 };

describe("a ledger-entries poll's deadline", () => {
  it("contracts: an answer with no entries (temporary keys all expired) is progress, not 'no answer'", async () => {
    expect(contractInstanceKey(WASM_CONTRACT)).toBe(INSTANCE.key);
    // 300 temporary keys, none returned: the first call holds the instance and 199 of them, the second 101.
    const keys = Array.from({ length: 300 }, (_, index) => ({
      name: `k${index}`,
      key: xdr.ScVal.scvU32(index).toXDR("base64"),
      durability: "temporary" as const,
    }));
    const contracts: WatchedContract[] = [{ name: "hello", id: WASM_CONTRACT, keys }];
    const clock = new ManualClock(0);
    const served = new Map<string, unknown>([INSTANCE, CODE].map((entry) => [entry.key, entry]));
    // The call with the instance is answered in 1 s, the one of missing keys in 25 s, the code's round in 10 s.
    const { client, answered } = slowRpc(clock, served, (_method, asked) =>
      asked.includes(INSTANCE.key) ? 1_000 : asked.includes(CODE.key) ? 10_000 : 25_000,
    );
    const options = { stateArchival: false, maxBodyBytes: 8 * 1024 ** 2 };
    const requestsPerRun = contractsRequestsPerPoll(contracts, options);
    expect(requestsPerRun).toBe(2);
    const job = new ContractsCollector(
      contracts,
      { client, network: { current: {} }, clock, log: pino({ level: "silent" }), ...options },
      { schedule: parseSchedule("1m") as Schedule, requestsPerRun },
    );
    const { runner } = runnerFor(job, { clock, ...DEADLINES });
    const running = runner.run();
    for (let second = 0; second < 40; second += 1) await clock.advance(1_000);
    await running;
    expect(answered).toEqual([1_000, 25_000, 35_000]);
    expect(runner.snapshot().lastError).toBeUndefined();
    expect(runner.snapshot().lastSuccessMs).toBeDefined();
  });

  it("accounts: an answer with no entries (the account not created yet) is progress, not 'no answer'", async () => {
    const clock = new ManualClock(0);
    // getLedgerEntries answers in 25 s (the account is missing), getLatestLedger in 10 s more.
    const { client, answered } = slowRpc(clock, new Map(), (method) =>
      method === "getLedgerEntries" ? 25_000 : 10_000,
    );
    const account = { name: "treasury", id: "GDAT5HWTGIU4TSSZ4752OUC4SABDLTLZFRPZUJ3D6LKBNEPA7V2CIG54" };
    const watched = [{ ...account, lowBalance: {}, cold: false, assets: [] }];
    const timing = { schedule: parseSchedule("1m") as Schedule, requestsPerRun: 2 };
    const job = new RpcAccountsCollector(client, watched, new NetworkView(), timing);
    const { runner } = runnerFor(job, { clock, ...DEADLINES });
    const running = runner.run();
    for (let second = 0; second < 40; second += 1) await clock.advance(1_000);
    await running;
    expect(answered).toEqual([25_000, 35_000]);
    expect(runner.snapshot().lastError).toBeUndefined();
    expect(runner.snapshot().lastSuccessMs).toBeDefined();
  });
});
