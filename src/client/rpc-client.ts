import { z } from "zod";
import type { RpcEndpoint } from "../catalog/metrics.js";
import { excerpt, PollError } from "./errors.js";
import {
  contractEventSchema,
  eventPlaces,
  eventsResultSchema,
  type EventPlace,
  type GetEventsAnswer,
  type GetEventsParams,
  type RpcContractEvent,
} from "./event-schemas.js";
import { CourteousHttp, validated, type HttpOptions } from "./http.js";
import { validRecord } from "./paging.js";
import {
  feeStatsSchema,
  healthSchema,
  jsonRpcResponseSchema,
  latestLedgerSchema,
  networkSchema,
  versionInfoSchema,
  type JsonRpcResponse,
} from "./rpc-schemas.js";

export type RpcStatus = Awaited<ReturnType<RpcClient["status"]>>;
export type RpcVersions = Awaited<ReturnType<RpcClient["versions"]>>;

/** stellar-rpc's -32600 message when the start (a cursor's ledger included) lies outside its window. */
const OUT_OF_RANGE = /startLedger must be within the ledger range: (\d+) - (\d+)/;

/** One Stellar RPC target: JSON-RPC 2.0 batches POSTed to the URL exactly as configured. */
export class RpcClient {
  private readonly http: CourteousHttp<RpcEndpoint>;

  constructor(options: HttpOptions<RpcEndpoint>) {
    this.http = new CourteousHttp(options, "application/json");
  }

  async status(signal?: AbortSignal) {
    const methods = ["getHealth", "getLatestLedger", "getFeeStats"] as const;
    const [health, latestLedger, feeStats] = await this.batch("status", methods, signal);
    // A JSON-RPC error from getHealth is how an RPC says unhealthy: no result then.
    const healthResult = health.error === undefined ? validResult(healthSchema, "getHealth", health) : undefined;
    return {
      health: healthResult,
      healthy: healthResult?.status === "healthy",
      latestLedger: validResult(latestLedgerSchema, "getLatestLedger", latestLedger),
      feeStats: validResult(feeStatsSchema, "getFeeStats", feeStats),
    };
  }

  async versions(signal?: AbortSignal) {
    const [network, versionInfo] = await this.batch("versions", ["getNetwork", "getVersionInfo"], signal);
    return {
      network: validResult(networkSchema, "getNetwork", network),
      versionInfo: validResult(versionInfoSchema, "getVersionInfo", versionInfo),
    };
  }

  /** One call alone in its HTTP request: its result, unvalidated; a JSON-RPC error fails it as `rpc_error`. */
  async call(endpoint: RpcEndpoint, method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    return resultOf(method, await this.single(endpoint, method, params, signal));
  }

  /** One getEvents call; the -32600 for a start outside the retention window comes back as that window. */
  async getEvents(params: GetEventsParams, signal?: AbortSignal): Promise<GetEventsAnswer> {
    const response = await this.single("events", "getEvents", params, signal);
    const range = response.error?.code === -32600 ? OUT_OF_RANGE.exec(response.error.message) : null;
    if (range !== null) return { kind: "out_of_range", oldestLedger: Number(range[1]), latestLedger: Number(range[2]) };
    const { events: raw, latestLedger, cursor } = validResult(eventsResultSchema, "getEvents", response);
    const places = eventPlaces(raw ?? []);
    const events: RpcContractEvent[] = [];
    const invalid: EventPlace[] = [];
    for (const [index, event] of (raw ?? []).entries()) {
      const valid = validRecord(contractEventSchema, event);
      if (valid === undefined) invalid.push(places[index]!);
      else events.push(valid);
    }
    return { kind: "events", events, invalid, latestLedger, cursor };
  }

  private async single(endpoint: RpcEndpoint, method: string, params: unknown, signal: AbortSignal | undefined) {
    const json = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    const body = await this.http.json(endpoint, this.http.url.href, { json }, signal);
    return validated(jsonRpcResponseSchema, body, "a JSON-RPC response");
  }

  /** One HTTP request for all the calls; the responses in the order of `methods`, matched by id. */
  private async batch<const M extends readonly string[]>(endpoint: RpcEndpoint, methods: M, signal?: AbortSignal) {
    const calls = methods.map((method, index) => ({ jsonrpc: "2.0", id: index + 1, method }));
    const body = await this.http.json(endpoint, this.http.url.href, { json: JSON.stringify(calls) }, signal);
    // A server that rejects the batch as a whole answers with one error object instead of an array.
    const whole = jsonRpcResponseSchema.safeParse(body);
    if (whole.success && whole.data.error !== undefined) throw rpcError(methods.join(", "), whole.data.error);
    const responses = validated(z.array(z.unknown()).min(1), body, "a JSON-RPC batch").map((response) =>
      validated(jsonRpcResponseSchema, response, "a JSON-RPC response"),
    );
    return calls.map(({ id, method }) => {
      const response = responses.find((candidate) => String(candidate.id) === String(id));
      if (response === undefined) throw new PollError("schema", `the JSON-RPC batch has no response to ${method}`);
      return response;
    }) as { readonly [K in keyof M]: JsonRpcResponse };
  }
}

function resultOf(method: string, response: JsonRpcResponse): unknown {
  if (response.error !== undefined) throw rpcError(method, response.error);
  return response.result;
}

function validResult<S extends z.ZodType>(schema: S, method: string, response: JsonRpcResponse): z.output<S> {
  return validated(schema, resultOf(method, response), `Stellar RPC's ${method}`);
}

function rpcError(method: string, error: NonNullable<JsonRpcResponse["error"]>): PollError {
  return new PollError("rpc_error", `${method} answered JSON-RPC error ${error.code}: ${excerpt(error.message)}`);
}
