import { z } from "zod";
import type { RpcEndpoint } from "../catalog/metrics.js";
import { excerpt, PollError } from "./errors.js";
import {
  contractEventSchema,
  eventsResultSchema,
  outOfRangeWindow,
  type GetEventsAnswer,
  type GetEventsParams,
  type RpcContractEvent,
} from "./event-schemas.js";
import { CourteousHttp, validated, type HttpOptions } from "./http.js";
import {
  feeStatsSchema,
  healthSchema,
  jsonRpcResponseSchema,
  latestLedgerSchema,
  networkSchema,
  versionInfoSchema,
  type JsonRpcError,
  type JsonRpcResponse,
  type RpcFeeStats,
  type RpcHealth,
  type RpcLatestLedger,
  type RpcNetwork,
  type RpcVersionInfo,
} from "./rpc-schemas.js";

export type RpcClientOptions = HttpOptions<RpcEndpoint>;

/** What one status poll learns. */
export interface RpcStatus {
  /** getHealth's result; undefined when it answered a JSON-RPC error, which is how an RPC says unhealthy. */
  readonly health: RpcHealth | undefined;
  readonly healthy: boolean;
  readonly latestLedger: RpcLatestLedger;
  readonly feeStats: RpcFeeStats;
}

/** What one versions poll learns; changes only on upgrades. */
export interface RpcVersions {
  readonly network: RpcNetwork;
  readonly versionInfo: RpcVersionInfo;
}

const ACCEPT = "application/json";

const batchSchema = z.array(z.unknown()).min(1);

/**
 * One Stellar RPC target: JSON-RPC 2.0 batches POSTed to the URL exactly as configured, with the
 * same timeouts, retries, body cap and rate-limit courtesy as a Horizon target.
 */
export class RpcClient {
  private readonly http: CourteousHttp<RpcEndpoint>;

  constructor(options: RpcClientOptions) {
    this.http = new CourteousHttp(options, ACCEPT);
  }

  /** `signal` aborts the request and its retries when the poll reaches its deadline. */
  async status(signal?: AbortSignal): Promise<RpcStatus> {
    const [health, latestLedger, feeStats] = await this.batch(
      "status",
      ["getHealth", "getLatestLedger", "getFeeStats"],
      signal,
    );
    const healthResult =
      health.error === undefined ? validated(healthSchema, health.result, "Stellar RPC's getHealth") : undefined;
    return {
      health: healthResult,
      healthy: healthResult?.status === "healthy",
      latestLedger: validated(
        latestLedgerSchema,
        resultOf("getLatestLedger", latestLedger),
        "Stellar RPC's getLatestLedger",
      ),
      feeStats: validated(feeStatsSchema, resultOf("getFeeStats", feeStats), "Stellar RPC's getFeeStats"),
    };
  }

  async versions(signal?: AbortSignal): Promise<RpcVersions> {
    const [network, versionInfo] = await this.batch("versions", ["getNetwork", "getVersionInfo"], signal);
    return {
      network: validated(networkSchema, resultOf("getNetwork", network), "Stellar RPC's getNetwork"),
      versionInfo: validated(
        versionInfoSchema,
        resultOf("getVersionInfo", versionInfo),
        "Stellar RPC's getVersionInfo",
      ),
    };
  }

  /**
   * One call with parameters, alone in its HTTP request: its result, unvalidated (the caller
   * knows the method's schema); a JSON-RPC error object fails it with reason `rpc_error`.
   */
  async call(endpoint: RpcEndpoint, method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    return resultOfBody(
      method,
      await this.http.json(endpoint, this.http.url.href, { json: callRequest(method, params) }, signal),
    );
  }

  /**
   * One getEvents call. The -32600 an RPC answers for a start outside its retention window comes
   * back as that window; any other JSON-RPC error fails the call with reason `rpc_error`.
   */
  async getEvents(params: GetEventsParams, signal?: AbortSignal): Promise<GetEventsAnswer> {
    const body = await this.http.json("events", this.http.url.href, { json: callRequest("getEvents", params) }, signal);
    const response = validated(jsonRpcResponseSchema, body, "a JSON-RPC response");
    if (response.error !== undefined) {
      const window = outOfRangeWindow(response.error.code, response.error.message);
      if (window !== undefined) return { kind: "out_of_range", ...window };
      throw rpcError("getEvents", response.error);
    }
    const result = validated(eventsResultSchema, response.result, "Stellar RPC's getEvents");
    const events: RpcContractEvent[] = [];
    for (const event of result.events ?? []) {
      const parsed = contractEventSchema.safeParse(event);
      if (parsed.success) events.push(parsed.data);
    }
    return {
      kind: "events",
      events,
      invalid: (result.events?.length ?? 0) - events.length,
      latestLedger: result.latestLedger,
      cursor: result.cursor,
    };
  }

  /** One HTTP request for all the calls; the responses in the order of `methods`, matched by id. */
  private async batch<const M extends readonly string[]>(
    endpoint: RpcEndpoint,
    methods: M,
    signal: AbortSignal | undefined,
  ): Promise<{ readonly [K in keyof M]: JsonRpcResponse }> {
    const calls = methods.map((method, index) => ({ jsonrpc: "2.0", id: index + 1, method }));
    const body = await this.http.json(endpoint, this.http.url.href, { json: JSON.stringify(calls) }, signal);
    // A server that rejects the batch as a whole answers with one error object instead of an array.
    const whole = jsonRpcResponseSchema.safeParse(body);
    if (whole.success && whole.data.error !== undefined) throw rpcError(methods.join(", "), whole.data.error);
    const responses = validated(batchSchema, body, "a JSON-RPC batch").map((response) =>
      validated(jsonRpcResponseSchema, response, "a JSON-RPC response"),
    );
    const matched = calls.map(({ id, method }) => {
      const response = responses.find((candidate) => String(candidate.id) === String(id));
      if (response === undefined) throw new PollError("schema", `the JSON-RPC batch has no response to ${method}`);
      return response;
    });
    return matched as { readonly [K in keyof M]: JsonRpcResponse };
  }
}

function callRequest(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
}

/** A single call's result from its parsed response body; a JSON-RPC error object fails it with reason `rpc_error`. */
function resultOfBody(method: string, body: unknown): unknown {
  return resultOf(method, validated(jsonRpcResponseSchema, body, "a JSON-RPC response"));
}

function resultOf(method: string, response: JsonRpcResponse): unknown {
  if (response.error !== undefined) throw rpcError(method, response.error);
  return response.result;
}

function rpcError(method: string, error: JsonRpcError): PollError {
  return new PollError("rpc_error", `${method} answered JSON-RPC error ${error.code}: ${excerpt(error.message)}`);
}
