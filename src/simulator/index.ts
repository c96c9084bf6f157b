/**
 * Horizon simulator: a Hono app that speaks Horizon's wire format and can be
 * told to misbehave. Used by the demo, scenario tests and alert tests.
 */

export { RPC_PATH } from "./rpc.js";
export { SCENARIOS, type ScenarioName } from "./scenarios.js";
export {
  createSimulator,
  MAX_NETWORK_START_AGE_MS,
  Simulator,
  type SimulatorOptions,
  type SimulatorState,
} from "./simulator.js";
export { startSimulator, type RunningSimulator, type StartOptions } from "./server.js";
export {
  AccountError,
  SimulatedAccounts,
  type AccountSpec,
  type LedgerPoint,
  type SimulatedAccount,
} from "./accounts.js";
export { COLD_WALLET, DEMO_RPC_WATCHED_ACCOUNTS, DEMO_WATCHED_ACCOUNTS, HOT_WALLET, USDC } from "./demo-accounts.js";
export { SIMULATOR_REQUESTS_PER_HOUR } from "./http-faults.js";
export { DEMO_ASSET, DEMO_MINT, DEMO_WATCHED_ASSETS } from "./asset-stats.js";
export {
  DEMO_BRL,
  DEMO_EURC,
  DEMO_MAKER,
  DEMO_NGNT,
  DEMO_WATCHED_MARKETS,
  LIQUIDITY_GONE_MS,
  OrderBook,
  USDX,
} from "./order-book.js";
export { DEMO_CORRIDORS } from "./paths.js";
