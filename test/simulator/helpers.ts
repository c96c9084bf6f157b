import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rpc as StellarRpc } from "@stellar/stellar-sdk";
import { onTestFinished } from "vitest";
import { listen } from "../../src/server/listen.js";
import { createSimulator, RPC_PATH, type Simulator, type SimulatorOptions } from "../../src/simulator/index.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "horizon");

/** A real Horizon response body from the captures in test/fixtures/horizon, parsed. */
export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
}

/** A real Horizon response body from the captures in test/fixtures/horizon, byte for byte. */
export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), "utf8");
}

/** 2024-07-05T00:33:24Z, the close time of the captured mainnet ledger 52425760. */
export const START_MS = 1_720_139_604_000;

/** A clock that only moves when told to. */
export class ManualClock {
  constructor(public nowMs: number = START_MS) {}
  readonly now = (): number => this.nowMs;
  tick(ms: number): void {
    this.nowMs += ms;
  }
}

/** A simulator on a manual clock with a fixed 5 s ledger interval unless told otherwise. */
export function simulatorAt(options: SimulatorOptions = {}): { simulator: Simulator; clock: ManualClock } {
  const clock = new ManualClock();
  const simulator = createSimulator({ ledgerIntervalMs: 5000, now: clock.now, ...options });
  return { simulator, clock };
}

/** The official SDK's Stellar RPC client on the simulator, served on a loopback port until the test ends. */
export async function sdkRpcServer(simulator: Simulator): Promise<StellarRpc.Server> {
  const server = await listen(simulator.app, "127.0.0.1", 0);
  onTestFinished(() => server.close());
  return new StellarRpc.Server(`${server.url}${RPC_PATH}`, { allowHttp: true });
}

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export async function getJson<T = Record<string, any>>(
  simulator: Simulator,
  path: string,
  init?: RequestInit,
): Promise<JsonResponse<T>> {
  const response = await simulator.app.request(path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as T };
}

/** One JSON-RPC call to the simulated Stellar RPC: the whole response (result or error). */
export async function rpcCall(simulator: Simulator, method: string, params?: unknown): Promise<Record<string, any>> {
  const { body } = await getJson(simulator, "/rpc", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return body;
}

/**
 * The JSON type signature of a value: keys in order with their types, recursively;
 * arrays by the signature of their elements.
 */
export function typeSignature(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const distinct = [
      ...new Map(value.map((item) => [JSON.stringify(typeSignature(item)), typeSignature(item)])).values(),
    ];
    return { array: distinct };
  }
  if (typeof value === "object") return Object.entries(value).map(([key, item]) => [key, typeSignature(item)]);
  return typeof value;
}
