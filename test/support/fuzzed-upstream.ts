import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import type { Rng } from "../../src/simulator/rng.js";
import type { JsonRecord } from "./fake-horizon.js";
import { fixtureText } from "./fixtures.js";
import { LoopbackServer } from "./loopback-server.js";

/**
 * A loopback server in front of a healthy fake (FakeHorizon or FakeRpc): each answer is the
 * fake's, and with probability `rate` one mutation of a class drawn from a seeded stream replaces
 * or changes it. The classes are those of issue 31's fuzzer.
 */

type Json = unknown;
type Path = readonly (string | number)[];

export type UpstreamKind = "horizon" | "rpc";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Request {
  readonly url: URL;
  readonly method: string;
}

type Mutation = (answer: Answer, request: Request, rng: Rng) => Answer;

/** Placeholders replaced in the serialised text by what JSON.stringify cannot write. */
const RAW_PLACEHOLDER = "\u0001raw\u0001";

const GZIP_BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, " "));
const PROBLEMS = [
  "error-bad_request-horizon-src.json",
  "error-not_found-horizon-src.json",
  "error-rate_limit_exceeded-horizon-src.json",
  "error-server_error-horizon-src.json",
  "error-stale_history-horizon-src.json",
  "error-timeout-horizon-src.json",
  "error-service_unavailable-horizon-src.json",
].map((name) => fixtureText(name));

function parse(answer: Answer): Json | undefined {
  try {
    return JSON.parse(answer.body.toString("utf8")) as Json;
  } catch {
    return undefined;
  }
}

function withJson(answer: Answer, json: Json, raw?: string): Answer {
  let text = JSON.stringify(json);
  if (raw !== undefined) text = text.replace(JSON.stringify(RAW_PLACEHOLDER), raw);
  return { ...answer, body: Buffer.from(text) };
}

/** Every path to a leaf (string, number, boolean, null) of a JSON value. */
function leaves(json: Json, path: Path = [], into: Path[] = []): Path[] {
  if (Array.isArray(json)) json.forEach((item, index) => leaves(item, [...path, index], into));
  else if (json !== null && typeof json === "object")
    for (const [key, value] of Object.entries(json)) leaves(value, [...path, key], into);
  else into.push(path);
  return into;
}

/** Every object inside a JSON value, with its path. */
function objects(json: Json, path: Path = [], into: [Path, JsonRecord][] = []): [Path, JsonRecord][] {
  if (Array.isArray(json)) json.forEach((item, index) => objects(item, [...path, index], into));
  else if (json !== null && typeof json === "object") {
    into.push([path, json as JsonRecord]);
    for (const [key, value] of Object.entries(json)) objects(value, [...path, key], into);
  }
  return into;
}

function get(json: Json, path: Path): Json {
  return path.reduce<Json>((at, key) => (at as Record<string | number, Json>)[key], json);
}

function set(json: Json, path: Path, value: Json): void {
  const parent = get(json, path.slice(0, -1)) as Record<string | number, Json>;
  parent[path.at(-1)!] = value;
}

/** Changes one leaf of the JSON body, picked at random; the answer unchanged when it has none. */
function leafMutation(change: (leaf: Json, rng: Rng) => { value: Json; raw?: string }): Mutation {
  return (answer, _request, rng) => {
    const json = parse(answer);
    if (json === undefined) return answer;
    const paths = leaves(json);
    if (paths.length === 0) return answer;
    const path = rng.pick(paths);
    const { value, raw } = change(get(json, path), rng);
    set(json, path, value);
    return withJson(answer, json, raw);
  };
}

/** The records of a HAL page, when the body is one. */
function pageRecords(json: Json): JsonRecord[] | undefined {
  const records = (json as { _embedded?: { records?: unknown } } | undefined)?._embedded?.records;
  return Array.isArray(records) ? (records as JsonRecord[]) : undefined;
}

const replyWith = (status: number, body: string | Buffer, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { "Content-Type": "application/problem+json", ...headers },
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
});

const COMMON: Record<string, Mutation> = {
  type_swap: leafMutation((leaf, rng) => ({
    value: rng.pick([typeof leaf === "string" ? Number(leaf) || 7 : String(leaf), null, {}, [], true, [leaf]]),
  })),
  dropped_field: (answer, _request, rng) => {
    const json = parse(answer);
    const withKeys = objects(json).filter(([, object]) => Object.keys(object).length > 0);
    if (withKeys.length === 0) return answer;
    const [, object] = rng.pick(withKeys);
    delete object[rng.pick(Object.keys(object))];
    return withJson(answer, json);
  },
  unknown_field: (answer, _request, rng) => {
    const json = parse(answer);
    const all = objects(json);
    if (all.length === 0) return answer;
    rng.pick(all)[1][`unknown_${rng.int(0, 9)}`] = rng.pick(["x", 1, null, { nested: [1, 2] }]);
    return withJson(answer, json);
  },
  extreme_number: leafMutation((_leaf, rng) => {
    const choice = rng.int(0, 11);
    if (choice === 0) return { value: RAW_PLACEHOLDER, raw: "1e999" };
    if (choice === 1) return { value: RAW_PLACEHOLDER, raw: "-1e999" };
    return {
      value: rng.pick([
        "9".repeat(400),
        `-${"9".repeat(400)}`,
        `${"9".repeat(400)}.5`,
        "1e400",
        "NaN",
        "Infinity",
        1e308,
        -1,
        2 ** 53 + 2,
        "922337203685.4775808",
        "18446744073709551616",
      ]),
    };
  }),
  label_injection: leafMutation((leaf, rng) => ({
    value: `${String(leaf)}${rng.pick(['"} evil{x="1', "\\", "\n# HELP fake fake\nfake 1", '",injected="1'])}`,
  })),
  long_string: leafMutation((_leaf, rng) => ({ value: "A".repeat(rng.pick([1_000, 100_000, 1_000_000])) })),
  control_characters: leafMutation((leaf) => ({ value: `${String(leaf)}\u0000\u001b[31m\u2028\u202e\u2066` })),
  deep_nesting: leafMutation((_leaf, rng) => {
    const depth = rng.pick([100, 5_000, 50_000]);
    return { value: RAW_PLACEHOLDER, raw: `${"[".repeat(depth)}${"]".repeat(depth)}` };
  }),
  truncation: (answer, _request, rng) => ({
    ...answer,
    body: answer.body.subarray(0, rng.int(0, Math.max(0, answer.body.length - 1))),
  }),
  bad_encoding: (answer, _request, rng) => {
    if (rng.chance(0.5)) return { ...answer, headers: { ...answer.headers, "Content-Encoding": "gzip" } };
    const at = rng.int(0, answer.body.length);
    return {
      ...answer,
      body: Buffer.concat([answer.body.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), answer.body.subarray(at)]),
    };
  },
  gzip_bomb: (answer) => ({
    status: 200,
    headers: { "Content-Type": answer.headers["Content-Type"] ?? "application/json", "Content-Encoding": "gzip" },
    body: GZIP_BOMB,
  }),
  status_code: (_answer, _request, rng) =>
    replyWith(rng.pick([400, 403, 404, 410, 500, 502, 503, 504]), rng.pick(PROBLEMS)),
  redirect_loop: (_answer, request) => ({
    status: 302,
    headers: { Location: request.url.pathname + request.url.search },
    body: Buffer.alloc(0),
  }),
  // Holds a real server could ask for: a few seconds, as seconds, a Unix epoch or an HTTP date.
  // Absurd holds are capped at an hour, which would end the fuzz for that target: the hostile
  // response tests drive those on an injected clock.
  rate_limit: (answer, _request, rng) => {
    const seconds = rng.int(1, 2);
    const choice = rng.int(0, 2);
    if (choice === 0) return replyWith(429, PROBLEMS[2]!, { "Retry-After": String(seconds) });
    if (choice === 1)
      return replyWith(503, PROBLEMS[6]!, { "Retry-After": new Date(Date.now() + seconds * 1000).toUTCString() });
    return {
      ...answer,
      headers: {
        ...answer.headers,
        "X-Ratelimit-Remaining": "0",
        "X-Ratelimit-Reset": String(Math.ceil(Date.now() / 1000) + seconds),
      },
    };
  },
};

const HORIZON_ONLY: Record<string, Mutation> = {
  paging_chaos: (answer, request, rng) => {
    const json = parse(answer);
    const records = pageRecords(json);
    if (records === undefined) return answer;
    const choice = rng.int(0, 5);
    if (choice === 0 && request.url.searchParams.has("cursor") && request.url.pathname === "/ledgers") {
      return replyWith(400, fixtureText("error-bad_request-cursor_invalid-horizon-src.json"));
    }
    if (records.length === 0) return answer;
    if (choice === 1) records.reverse();
    else if (choice === 2) records.push(structuredClone(records[0]!));
    else if (choice === 3) records.splice(rng.int(0, records.length - 1), 1);
    else
      rng.pick(records).paging_token = rng.pick([
        "abc",
        "%7F",
        "..%2F..%2F",
        "-1",
        "",
        "18446744073709551616",
        "1e5",
        7,
      ]);
    return withJson(answer, json);
  },
  duplicates: (answer, _request, rng) => {
    const json = parse(answer) as JsonRecord | undefined;
    if (json === undefined) return answer;
    const records = pageRecords(json);
    if (records !== undefined && records.length > 0) {
      const record = rng.pick(records);
      const reserves = record.reserves as JsonRecord[] | undefined;
      if (reserves && reserves.length > 1) reserves[1]!.asset = reserves[0]!.asset;
      else records.push(structuredClone(record));
    } else if (Array.isArray(json.balances) && Array.isArray(json.signers)) {
      const list = rng.pick([json.balances, json.signers]) as JsonRecord[];
      if (list.length > 0) list.push({ ...structuredClone(rng.pick(list)), weight: 3 });
    }
    return withJson(answer, json);
  },
  absurd_values: (answer, _request, rng) => {
    const json = parse(answer);
    const all = objects(json);
    const absurd: [string, Json][] = [
      ["sequence", 2 ** 53 - 1],
      ["sequence", 1],
      ["closed_at", "9999-12-31T23:59:59Z"],
      ["protocol_version", 1_000_000_000],
      ["fee_bp", 1_000_000],
      ["ledger_capacity_usage", "999999"],
      ["core_latest_ledger", 0],
      ["ingest_latest_ledger", 2 ** 53 - 1],
      ["history_latest_ledger_closed_at", "0001-01-01T00:00:00Z"],
      ["subentry_count", 2 ** 31],
    ];
    const [key, value] = rng.pick(absurd);
    const holders = all.filter(([, object]) => key in object);
    if (holders.length === 0) return answer;
    rng.pick(holders)[1][key] = value;
    return withJson(answer, json);
  },
};

const RPC_ONLY: Record<string, Mutation> = {
  jsonrpc_breakage: (answer, _request, rng) => {
    const json = parse(answer);
    if (!Array.isArray(json) || json.length === 0) return answer;
    const responses = json as JsonRecord[];
    const choice = rng.int(0, 6);
    if (choice === 0) return withJson(answer, responses[0]);
    if (choice === 1) responses.pop();
    else if (choice === 2) responses.forEach((response) => (response.id = 99));
    else if (choice === 3) rng.pick(responses).jsonrpc = "1.0";
    else if (choice === 4)
      rng.pick(responses).error = { code: rng.pick([-32600, -32601, -32603, 1]), message: "broken" };
    else if (choice === 5) delete rng.pick(responses).result;
    else rng.pick(responses).result = null;
    return withJson(answer, json);
  },
};

export class FuzzedUpstream {
  /** The chance that an answer is mutated; 0 answers as the fake does. */
  rate = 0;
  /** How many answers each class mutated. */
  readonly applied = new Map<string, number>();
  private readonly classes: [string, Mutation][];
  private readonly server = new LoopbackServer((request, response) => void this.answer(request, response));

  constructor(
    private readonly fake: { readonly app: { fetch(request: globalThis.Request): Response | Promise<Response> } },
    private readonly rng: Rng,
    kind: UpstreamKind,
  ) {
    this.classes = Object.entries({ ...COMMON, ...(kind === "horizon" ? HORIZON_ONLY : RPC_ONLY) });
  }

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.on("error", () => undefined);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? "/", "http://upstream");
    const method = request.method ?? "GET";
    const healthy = await this.fake.app.fetch(
      new globalThis.Request(url, {
        method,
        headers: { "Content-Type": "application/json" },
        ...(method === "POST" ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    let answer: Answer = {
      status: healthy.status,
      headers: { "Content-Type": healthy.headers.get("content-type") ?? "application/json" },
      body: Buffer.from(await healthy.arrayBuffer()),
    };
    if (this.rate > 0 && this.rng.chance(this.rate)) {
      const [name, mutate] = this.rng.pick(this.classes);
      this.applied.set(name, (this.applied.get(name) ?? 0) + 1);
      answer = mutate(answer, { url, method }, this.rng);
    }
    response.writeHead(answer.status, { ...answer.headers, "Content-Length": String(answer.body.length) });
    response.end(answer.body);
  }
}
