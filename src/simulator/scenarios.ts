/**
 * Named ways the simulated Horizon can (mis)behave, described as data: each
 * scenario says how the network, ingestion, fees, protocol, HTTP layer and
 * response shapes behave while it is active.
 */

/** A scenario's one-off change to the demo accounts. */
export type AccountEvent = "change_signer" | "drain_account" | "merge_account" | "deauthorize_trustline";

export const SCENARIOS = [
  "healthy",
  "ingest_lag",
  "ingestion_stalled",
  "network_halt",
  "fee_spike",
  "protocol_upgrade_pending",
  "unsupported_protocol",
  "rate_limited",
  "flapping",
  "old_horizon",
  "network_reset",
  "pool_drain",
  "failed_transactions",
  "txsub_timeout",
  "signer_change",
  "account_drain",
  "deposits_stopped",
  "account_merged",
  "trustline_deauthorized",
  "rpc_unhealthy",
  "rpc_lagging",
  "contract_expiring",
  "asset_mint",
  "contract_silent",
  "contract_upgrade",
  "old_versions",
  "stablecoin_depeg",
  "maker_stops_quoting",
  "corridor_drain",
] as const;

export type ScenarioName = (typeof SCENARIOS)[number];

export interface ScenarioBehaviour {
  /** Whether stellar-core keeps closing ledgers. */
  readonly core: "closing" | "halted";
  /** How Horizon's ingestion keeps up with core. */
  readonly ingestion: "following" | "lagging" | "stalled";
  /** Surge-pricing multiplier on every fee (1 = no congestion). */
  readonly feeMultiplier: number;
  /** Range of the share of each ledger's transactions that fail. */
  readonly failedShare: readonly [number, number];
  /** `previous`: the network, Horizon and RPC of protocol 22 (Horizon 22.0.1, stellar-rpc 22.1.2). */
  readonly protocol: "current" | "upgrade_pending" | "unsupported" | "previous";
  readonly http: "normal" | "rate_limited" | "flapping";
  /** Render the response shapes of an older Horizon. */
  readonly legacyShapes: boolean;
  /** How the Stellar RPC at /rpc behaves: in step with Horizon, unhealthy, or behind. */
  readonly rpc: "following" | "unhealthy" | "lagging";
  /** Whether core includes submitted transactions, or Horizon's submissions time out (504). */
  readonly submissions: "including" | "timing_out";
  /** One-off change applied when the scenario is entered. */
  readonly onEnter?: "reset_network" | "drain_pool";
  /** One-off change to the simulated accounts applied when the scenario is entered. */
  readonly accounts?: AccountEvent;
  /** Whether the hot wallet's customers keep depositing; absent: they do. */
  readonly deposits?: "stopped";
  /** One-off change to the simulated contracts: the demo storage key is left minutes to live. */
  /** One-off change to the demo assets: DEMO is minted and its issuer's flags change. */
  readonly assets?: "mint";
  readonly contracts?: "expire_soon" | "fall_silent" | "upgrade";
  /** The DEX while the scenario lasts: USDX trades off its peg, or the maker's asks are gone. */
  readonly market?: "depeg" | "maker_gone";
  /** The USDC markets empty (no path), then thin liquidity returns at a worse rate (src/simulator/order-book.ts). */
  readonly liquidity?: "leaving";
}

const FEE_SPIKE_MULTIPLIER = 50;
/** Mainnet's usual failed share (arbitrage bots) runs from a quarter to well past half. */
const USUAL_FAILED_SHARE: readonly [number, number] = [0.25, 0.6];
/** A failing dApp or bot storm: almost every transaction fails. */
const FAILING_SHARE: readonly [number, number] = [0.85, 0.95];

const HEALTHY: ScenarioBehaviour = {
  core: "closing",
  ingestion: "following",
  feeMultiplier: 1,
  failedShare: USUAL_FAILED_SHARE,
  protocol: "current",
  http: "normal",
  legacyShapes: false,
  rpc: "following",
  submissions: "including",
};

export const SCENARIO_BEHAVIOURS: Readonly<Record<ScenarioName, ScenarioBehaviour>> = {
  healthy: HEALTHY,
  ingest_lag: { ...HEALTHY, ingestion: "lagging" },
  ingestion_stalled: { ...HEALTHY, ingestion: "stalled" },
  network_halt: { ...HEALTHY, core: "halted" },
  fee_spike: { ...HEALTHY, feeMultiplier: FEE_SPIKE_MULTIPLIER },
  protocol_upgrade_pending: { ...HEALTHY, protocol: "upgrade_pending" },
  unsupported_protocol: { ...HEALTHY, protocol: "unsupported" },
  rate_limited: { ...HEALTHY, http: "rate_limited" },
  flapping: { ...HEALTHY, http: "flapping" },
  old_horizon: { ...HEALTHY, legacyShapes: true },
  network_reset: { ...HEALTHY, onEnter: "reset_network" },
  pool_drain: { ...HEALTHY, onEnter: "drain_pool" },
  failed_transactions: { ...HEALTHY, failedShare: FAILING_SHARE },
  txsub_timeout: { ...HEALTHY, submissions: "timing_out" },
  signer_change: { ...HEALTHY, accounts: "change_signer" },
  account_drain: { ...HEALTHY, accounts: "drain_account" },
  deposits_stopped: { ...HEALTHY, deposits: "stopped" },
  account_merged: { ...HEALTHY, accounts: "merge_account" },
  trustline_deauthorized: { ...HEALTHY, accounts: "deauthorize_trustline" },
  rpc_unhealthy: { ...HEALTHY, rpc: "unhealthy" },
  rpc_lagging: { ...HEALTHY, rpc: "lagging" },
  contract_expiring: { ...HEALTHY, contracts: "expire_soon" },
  asset_mint: { ...HEALTHY, assets: "mint" },
  contract_silent: { ...HEALTHY, contracts: "fall_silent" },
  contract_upgrade: { ...HEALTHY, contracts: "upgrade" },
  old_versions: { ...HEALTHY, protocol: "previous" },
  stablecoin_depeg: { ...HEALTHY, market: "depeg" },
  maker_stops_quoting: { ...HEALTHY, market: "maker_gone" },
  corridor_drain: { ...HEALTHY, liquidity: "leaving" },
};

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIOS as readonly string[]).includes(name);
}

export class UnknownScenarioError extends Error {
  constructor(readonly scenario: string) {
    super(`unknown scenario "${scenario}"; known scenarios: ${SCENARIOS.join(", ")}`);
    this.name = "UnknownScenarioError";
  }
}

/**
 * The software versions a Horizon deployment reports, by the protocol it was built for.
 * Protocol 22's Horizon and core strings are a real mainnet capture; commits of the other releases
 * are placeholders. Protocol 28 (Horizon 28.0.0, stellar-rpc 28) is the default; 29 the next one.
 */
export interface Release {
  readonly horizonVersion: string;
  readonly coreVersion: string;
  /** The Stellar RPC release of that protocol; its captive core runs `coreVersion`. */
  readonly rpcVersion: string;
}

const CURRENT_PROTOCOL = 28;
/** The protocol of `old_versions`: the simulator's default before protocol 28. */
const PREVIOUS_PROTOCOL = 22;

const RELEASES: Readonly<Record<number, Release>> = {
  22: {
    horizonVersion: "22.0.1-dd8a9b473a303cfcdd383d1db45dace93ea0861c",
    coreVersion: "stellar-core 22.1.0 (fdd833d57c86cfe0c5057da5b2319953ab841de0)",
    rpcVersion: "22.1.2-7f8e3b5a1c9d2e4f6a8b0c1d3e5f7a9b2c4d6e8f",
  },
  23: {
    horizonVersion: "23.0.0-3c2fd1b7e5e8a0d4b1f6c9a27e4d8b05f1a6c3e9",
    coreVersion: "stellar-core 23.0.1 (9e5b2a41c7d03f86e1a4b9c2d57f0e3a8b6c1d24)",
    rpcVersion: "23.0.0-5d1c8e2f4a6b9c0d3e7f1a2b4c6d8e0f1a3b5c7d",
  },
  28: {
    horizonVersion: "28.0.0-8b1e4c7d2a5f9e3b6c0d1a4f7e2b5c8d9a3f6e1b",
    coreVersion: "stellar-core 28.0.0 (4f2a9c1e7b3d5a8f0e6c2b9d1a7f3e5c8b0d4a62)",
    rpcVersion: "28.0.1-c3e7a1f5b9d2e6a0c4f8b2d6e0a4c8f2b6d0e4a8",
  },
  29: {
    horizonVersion: "29.0.0-1d5f9b3e7a2c6e0b4d8f2a6c0e4b8d2f6a0c4e8b",
    coreVersion: "stellar-core 29.0.0 (7a3e9d1f5c2b8e4a0d6f2c8b4e0a6d2f8c4b0e6a)",
    rpcVersion: "29.0.0-e5b1d7f3a9c5e1b7d3f9a5c1e7b3d9f5a1c7e3b9",
  },
};

/** Horizon 2.11 (2021), the release whose root document the `old_horizon` shapes follow. */
export const LEGACY_HORIZON_VERSION = "2.11.0-07dcbb1e43d9ee991461e1284af1d11dcae645d7";

export function releaseFor(protocol: number): Release {
  const release = RELEASES[protocol];
  if (release === undefined) throw new RangeError(`no release known for protocol ${protocol}`);
  return release;
}

export interface ProtocolVersions {
  /** Protocol the network runs (ledgers close with it). */
  readonly current: number;
  /** Highest protocol this Horizon build can ingest. */
  readonly horizonSupported: number;
  /** Highest protocol the connected stellar-core supports. */
  readonly coreSupported: number;
}

export function protocolVersions(behaviour: ScenarioBehaviour): ProtocolVersions {
  switch (behaviour.protocol) {
    case "current":
      return { current: CURRENT_PROTOCOL, horizonSupported: CURRENT_PROTOCOL, coreSupported: CURRENT_PROTOCOL };
    case "upgrade_pending":
      // Operators upgraded Horizon and core ahead of the network vote.
      return { current: CURRENT_PROTOCOL, horizonSupported: CURRENT_PROTOCOL + 1, coreSupported: CURRENT_PROTOCOL + 1 };
    case "unsupported":
      // The network voted an upgrade this Horizon build does not know.
      return { current: CURRENT_PROTOCOL + 1, horizonSupported: CURRENT_PROTOCOL, coreSupported: CURRENT_PROTOCOL + 1 };
    case "previous":
      return { current: PREVIOUS_PROTOCOL, horizonSupported: PREVIOUS_PROTOCOL, coreSupported: PREVIOUS_PROTOCOL };
  }
}
