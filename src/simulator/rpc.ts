/**
 * A Stellar RPC beside the simulated Horizon: JSON-RPC 2.0 at /rpc, answering from the same
 * network model, so its ledgers, close times and fees are those Horizon serves. Its captive core
 * is modelled as following Horizon's ingestion; scenarios make it unhealthy or fall behind.
 */

import { xdr } from "@stellar/stellar-base";
import type { Context, Hono } from "hono";
import type { SimulatedAccounts } from "./accounts.js";
import type { SimulatedContracts } from "./contracts.js";
import { inclusionFeeStats } from "./fees.js";
import { ledgerEntries } from "./ledger-entries.js";
import type { LedgerRecord } from "./ledgers.js";
import type { HorizonModel, ModelStatus } from "./model.js";
import { releaseFor } from "./scenarios.js";

export const RPC_PATH = "/rpc";

/** What the RPC needs from the simulator. */
export interface RpcBackend {
  readonly model: HorizonModel;
  readonly networkPassphrase: string;
  readonly accounts: SimulatedAccounts;
  readonly contracts: SimulatedContracts;
  /** Brings the model up to the current time; returns that time. */
  sync(): number;
}

/** stellar-rpc's default history retention window (HISTORY_RETENTION_WINDOW): 7 days of ledgers. */
const RETENTION_WINDOW_LEDGERS = 120_960;
/** stellar-rpc's default MAX_HEALTHY_LEDGER_LATENCY: older than this, getHealth answers an error. */
const MAX_HEALTHY_LATENCY_MS = 30_000;
/** Under `rpc_lagging` the RPC serves this many ledgers behind Horizon. */
export const RPC_LAG_LEDGERS = 20;
/** getFeeStats windows: stellar-rpc's defaults for Soroban and classic transactions. */
const SOROBAN_FEE_WINDOW = 50;
const CLASSIC_FEE_WINDOW = 10;

const PARSE_ERROR = { code: -32700, message: "parse error" };
const INVALID_REQUEST = { code: -32600, message: "invalid request" };
const METHOD_NOT_FOUND = { code: -32601, message: "method not found" };
const NOT_INITIALIZED = { code: -32603, message: "data stores are not initialized" };

type JsonRpcId = string | number | null;
type Answer = { result: unknown } | { error: { code: number; message: string } };

class RpcView {
  readonly latest: LedgerRecord;
  /** The major version of the stellar-rpc release advertised by getVersionInfo. */
  private readonly rpcMajorVersion: number;

  constructor(
    private readonly backend: RpcBackend,
    private readonly status: ModelStatus,
    private readonly nowMs: number,
  ) {
    const behind = status.behaviour.rpc === "lagging" ? RPC_LAG_LEDGERS : 0;
    const sequence = Math.max(status.historyElderLedger, status.historyLatestLedger - behind);
    this.latest = backend.model.ledger(sequence) ?? this.fail();
    this.rpcMajorVersion = Number.parseInt(releaseFor(status.versions.coreSupported).rpcVersion, 10);
  }

  answer(method: unknown, params: unknown): Answer {
    switch (method) {
      case "getHealth":
        return this.health();
      case "getLatestLedger":
        return { result: this.latestLedger() };
      case "getLedgerEntries":
        return ledgerEntries(params, {
          accounts: this.backend.accounts,
          contracts: this.backend.contracts,
          latestLedger: this.latest.sequence,
          rpcMajorVersion: this.rpcMajorVersion,
        });
      case "getLedgers":
        return this.ledgers(params);
      case "getEvents":
        return this.backend.contracts.events.answer(params, {
          oldest: this.oldestLedger(),
          latest: this.latest.sequence,
          closedAt: (ledger) => rfc3339(this.backend.model.ledger(ledger)?.closedAtMs ?? this.latest.closedAtMs),
        });
      case "getFeeStats":
        return {
          result: {
            sorobanInclusionFee: inclusionFeeStats(this.window(SOROBAN_FEE_WINDOW)),
            inclusionFee: inclusionFeeStats(this.window(CLASSIC_FEE_WINDOW)),
            latestLedger: this.latest.sequence,
          },
        };
      case "getNetwork":
        return {
          result: { passphrase: this.backend.networkPassphrase, protocolVersion: this.status.versions.current },
        };
      case "getVersionInfo":
        return { result: this.versionInfo() };
      default:
        return { error: METHOD_NOT_FOUND };
    }
  }

  /**
   * id, protocol and sequence; stellar-rpc v25 added closeTime, headerXdr (a LedgerHeader) and
   * metadataXdr (a LedgerCloseMeta) together, which the SDK's getLatestLedger requires.
   */
  private latestLedger(): Record<string, unknown> {
    const basics = {
      id: this.latest.hash,
      protocolVersion: this.latest.protocolVersion,
      sequence: this.latest.sequence,
    };
    if (this.rpcMajorVersion < 25) return basics;
    return {
      ...basics,
      closeTime: unixSeconds(this.latest.closedAtMs),
      headerXdr: this.latest.headerXdr,
      metadataXdr: closeMeta(this.latest),
    };
  }

  /**
   * getLedgers from `startLedger`, `pagination.limit` of them (default 5, at most 200), as
   * stellar-rpc 22+ sends them: `headerXdr` a LedgerHeaderHistoryEntry. `metadataXdr` is a
   * LedgerCloseMeta v0 with no transactions (the simulated ledgers carry none as XDR), which every
   * SDK decodes.
   */
  private ledgers(params: unknown): Answer {
    const { startLedger, pagination } = (params ?? {}) as { startLedger?: unknown; pagination?: { limit?: unknown } };
    const oldest = Math.max(this.status.historyElderLedger, this.latest.sequence - RETENTION_WINDOW_LEDGERS + 1);
    if (typeof startLedger !== "number" || startLedger < oldest || startLedger > this.latest.sequence) {
      const message =
        `start ledger must be between the oldest ledger: ${oldest} and the latest ledger: ` +
        `${this.latest.sequence} for this rpc instance.`;
      return { error: { code: -32602, message } };
    }
    const limit = pagination?.limit === undefined ? 5 : Number(pagination.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      return { error: { code: -32602, message: "limit must not exceed 200" } };
    const records = this.backend.model.ledgers(startLedger, 1, Math.min(limit, this.latest.sequence - startLedger + 1));
    const oldestRecord = this.backend.model.ledger(oldest) ?? this.fail();
    return {
      result: {
        ledgers: records.map((record) => ({
          hash: record.hash,
          sequence: record.sequence,
          ledgerCloseTime: unixSeconds(record.closedAtMs),
          headerXdr: historyEntry(record).toXDR("base64"),
          metadataXdr: closeMeta(record),
        })),
        latestLedger: this.latest.sequence,
        latestLedgerCloseTime: Number(unixSeconds(this.latest.closedAtMs)),
        oldestLedger: oldest,
        oldestLedgerCloseTime: Number(unixSeconds(oldestRecord.closedAtMs)),
        cursor: String(records.at(-1)?.sequence ?? startLedger),
      },
    };
  }

  /** The oldest ledger the RPC still holds: its retention window back from the latest. */
  private oldestLedger(): number {
    return Math.max(this.status.historyElderLedger, this.latest.sequence - RETENTION_WINDOW_LEDGERS + 1);
  }

  private health(): Answer {
    if (this.status.behaviour.rpc === "unhealthy") return { error: NOT_INITIALIZED };
    const latencyMs = this.nowMs - this.latest.closedAtMs;
    if (latencyMs > MAX_HEALTHY_LATENCY_MS) {
      const message =
        `latency (${goDuration(Math.round(latencyMs / 1000))}) since last known ledger closed is too high ` +
        `(>${goDuration(MAX_HEALTHY_LATENCY_MS / 1000)})`;
      return { error: { code: -32603, message } };
    }
    const oldest = this.backend.model.ledger(this.oldestLedger()) ?? this.fail();
    // The close times came with stellar-rpc 27.1; the advertised releases are 22, 23 and 28 on.
    const withTimes = this.rpcMajorVersion >= 27;
    return {
      result: {
        status: "healthy",
        latestLedger: this.latest.sequence,
        ...(withTimes ? { latestLedgerCloseTime: unixSeconds(this.latest.closedAtMs) } : {}),
        oldestLedger: oldest.sequence,
        ...(withTimes ? { oldestLedgerCloseTime: unixSeconds(oldest.closedAtMs) } : {}),
        ledgerRetentionWindow: RETENTION_WINDOW_LEDGERS,
      },
    };
  }

  /** v22 sends both key spellings (the snake_case ones deprecated); later versions camelCase only. */
  private versionInfo(): Record<string, unknown> {
    const supported = this.status.versions.coreSupported;
    const release = releaseFor(supported);
    const commitHash = release.rpcVersion.slice(release.rpcVersion.indexOf("-") + 1);
    const camel = {
      version: release.rpcVersion,
      commitHash,
      buildTimestamp: "2025-06-30T12:00:00",
      captiveCoreVersion: release.coreVersion,
      protocolVersion: supported,
    };
    if (supported > 22) return camel;
    return {
      ...camel,
      commit_hash: camel.commitHash,
      build_time_stamp: camel.buildTimestamp,
      captive_core_version: camel.captiveCoreVersion,
      protocol_version: camel.protocolVersion,
    };
  }

  /** The fee samples of up to `count` ledgers ending at the RPC's latest, oldest first. */
  private window(count: number) {
    return this.backend.model
      .ledgers(this.latest.sequence, -1, count)
      .reverse()
      .map((record) => record.fees);
  }

  private fail(): never {
    // The history is never empty and the RPC's ledgers lie within it.
    throw new Error("simulated RPC ledger missing from history");
  }
}

/** A LedgerCloseMeta v0 of a ledger without transactions (the simulated ledgers carry none as XDR). */
function closeMeta(record: LedgerRecord): string {
  return new xdr.LedgerCloseMeta(
    0,
    new xdr.LedgerCloseMetaV0({
      ledgerHeader: historyEntry(record),
      txSet: new xdr.TransactionSet({ previousLedgerHash: Buffer.from(record.prevHash, "hex"), txes: [] }),
      txProcessing: [],
      upgradesProcessing: [],
      scpInfo: [],
    }),
  ).toXDR("base64");
}

/** A ledger as getLedgers' headerXdr carries it: its hash, its header, no extension. */
function historyEntry(record: LedgerRecord): xdr.LedgerHeaderHistoryEntry {
  return new xdr.LedgerHeaderHistoryEntry({
    hash: Buffer.from(record.hash, "hex"),
    header: xdr.LedgerHeader.fromXDR(record.headerXdr, "base64"),
    ext: new xdr.LedgerHeaderHistoryEntryExt(0),
  });
}

/** A close time as getEvents' `ledgerClosedAt`: RFC3339 in UTC, whole seconds. */
function rfc3339(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Whole seconds as Go's time.Duration prints them, as stellar-rpc's messages do: 45s, 1m45s, 2h0m5s. */
function goDuration(seconds: number): string {
  const [hours, minutes, rest] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  return minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
}

function unixSeconds(epochMs: number): string {
  return String(Math.floor(epochMs / 1000));
}

function respond(view: RpcView, call: unknown): Record<string, unknown> {
  const request = typeof call === "object" && call !== null ? (call as Record<string, unknown>) : undefined;
  const id: JsonRpcId = typeof request?.id === "string" || typeof request?.id === "number" ? request.id : null;
  if (request?.jsonrpc !== "2.0" || typeof request.method !== "string")
    return { jsonrpc: "2.0", id, error: INVALID_REQUEST };
  return { jsonrpc: "2.0", id, ...view.answer(request.method, request.params) };
}

export function registerRpcRoutes(app: Hono, backend: RpcBackend): void {
  app.post(RPC_PATH, async (c: Context) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return c.json({ jsonrpc: "2.0", id: null, error: PARSE_ERROR });
    }
    const nowMs = backend.sync();
    const view = new RpcView(backend, backend.model.status(), nowMs);
    if (!Array.isArray(body)) return c.json(respond(view, body));
    if (body.length === 0) return c.json({ jsonrpc: "2.0", id: null, error: INVALID_REQUEST });
    return c.json(body.map((call) => respond(view, call)));
  });
}
