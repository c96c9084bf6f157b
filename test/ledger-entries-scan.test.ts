import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PollError } from "../src/client/errors.js";
import { MAX_KEYS_PER_CALL, readLedgerEntries, type KeepEntry } from "../src/client/ledger-entries.js";
import { RequestedKeys, scanLedgerEntries } from "../src/client/ledger-entries-scan.js";
import { RpcClient, type PreparedCall } from "../src/client/rpc-client.js";
import type { RpcEndpoint } from "../src/catalog/metrics.js";
import { createRng } from "../src/simulator/rng.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { RPC_FIXTURES_DIR } from "./support/fixtures.js";

/**
 * The getLedgerEntries scanner against the reference it stands in for: the same RpcClient with
 * the scan declining every body, so each response is JSON.parsed and validated with zod. For every
 * body, real or hostile, both must keep the same entries with the same values, or fail with the
 * same reason and message.
 */

// Every span of bytes hashes alike here: were an entry ever taken for the last poll's by the hash of
// its bytes, a changed entry would read as unchanged, and the tests below would see it.
vi.mock("../src/client/json-bytes.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../src/client/json-bytes.js")>()),
  hashBytes: () => 0,
}));

let rpc: FakeRpc;
let client: RpcClient;
/** The same client, with every body parsed and validated as if no scanner existed. */
let reference: Pick<RpcClient, "scannedCall">;

beforeAll(async () => {
  rpc = new FakeRpc();
  client = new RpcClient({ url: await rpc.start(), timeoutMs: 2_000, retries: 0, maxBodyBytes: 1 << 22 });
  reference = {
    scannedCall: <Scanned>(endpoint: RpcEndpoint, prepared: PreparedCall, signal: AbortSignal | undefined) =>
      client.scannedCall<Scanned>(endpoint, prepared, signal, () => undefined),
  };
});

afterAll(async () => {
  await rpc.stop();
});

const CAPTURES = [
  "getLedgerEntries-account-dotnet-sdk.json",
  "getLedgerEntries-trustline-dotnet-sdk.json",
  "getLedgerEntries-contract-instance-dotnet-sdk.json",
  "getLedgerEntries-contract-code-dotnet-sdk.json",
  "getLedgerEntries-contract-data-persistent-java-sdk.json",
  "getLedgerEntries-config-settings-dotnet-sdk.json",
  "getLedgerEntries-empty-dotnet-sdk.json",
];

function captureText(name: string): string {
  return readFileSync(resolve(RPC_FIXTURES_DIR, name), "utf8");
}

type Served = { result: { entries: { key: string }[] } };

/** Every key of the captures, plus one no capture has: what the reads ask for. */
const KEYS = [
  ...new Set(
    CAPTURES.flatMap((name) => (JSON.parse(captureText(name)) as Served).result.entries.map(({ key }) => key)),
  ),
  "AAAABgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
];

/** Keeps each entry whole, its xdr made anew, with the response's latestLedger. */
const whole: KeepEntry<object> = (entry, latestLedger) => ({
  key: entry.key,
  xdr: entry.xdr(),
  lastModifiedLedgerSeq: entry.lastModifiedLedgerSeq,
  liveUntilLedgerSeq: entry.liveUntilLedgerSeq,
  latestLedger,
});

/** What a read of `body` ends in: its entries in order, or its error. */
async function outcome(reader: Pick<RpcClient, "scannedCall">, body: string, keys = KEYS) {
  rpc.fault = { status: 200, body, headers: { "content-type": "application/json" } };
  try {
    const read = await readLedgerEntries(reader, "status", keys, undefined, whole);
    return { entries: [...read.entries], latestLedger: read.latestLedger };
  } catch (error) {
    expect(error).toBeInstanceOf(PollError);
    return { reason: (error as PollError).reason, message: (error as PollError).message };
  }
}

/** Whether the scanner reads the body itself (else the reference path does). */
function scans(body: string): boolean {
  return scanLedgerEntries(Buffer.from(body), new RequestedKeys(KEYS, MAX_KEYS_PER_CALL), 0) !== undefined;
}

/** A response of stellar-rpc's compact wire format holding every capture's entries. */
const COMPACT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: {
    entries: CAPTURES.flatMap((name) => (JSON.parse(captureText(name)) as Served).result.entries),
    latestLedger: 1172233,
  },
});

describe("the getLedgerEntries scanner", () => {
  it.each(CAPTURES)("reads %s itself, with exactly the values JSON.parse and zod give", async (name) => {
    const body = captureText(name);
    expect(scans(body)).toBe(true);
    const scanned = await outcome(client, body);
    expect(scanned).toEqual(await outcome(reference, body));
    expect(scanned).toHaveProperty("entries");
  });

  it("reads a compact response of every captured kind, liveUntilLedgerSeq absent or present as sent", async () => {
    expect(scans(COMPACT)).toBe(true);
    const scanned = await outcome(client, COMPACT);
    expect(scanned).toEqual(await outcome(reference, COMPACT));
    const entries = (scanned as { entries: [string, { liveUntilLedgerSeq?: number }][] }).entries;
    expect(entries).toHaveLength(KEYS.length - 1);
    expect(entries.filter(([, entry]) => entry.liveUntilLedgerSeq === undefined).length).toBeGreaterThan(0);
    expect(entries.filter(([, entry]) => entry.liveUntilLedgerSeq !== undefined).length).toBeGreaterThan(0);
  });

  it("gives a kept xdr back as the same string when the entry's is equal, and a new one when not", async () => {
    rpc.fault = { status: 200, body: COMPACT, headers: { "content-type": "application/json" } };
    const first = await readLedgerEntries(client, "status", KEYS, undefined, (entry) => entry.xdr());
    const second = await readLedgerEntries(client, "status", KEYS, undefined, (entry) =>
      entry.xdr(first.entries.get(entry.key)),
    );
    for (const [key, xdr] of second.entries) expect(Object.is(xdr, first.entries.get(key))).toBe(true);
    const other = await readLedgerEntries(client, "status", KEYS, undefined, (entry) => entry.xdr("AAAA"));
    expect([...other.entries.values()]).toEqual([...first.entries.values()]);
  });

  it("a response sent again, its entries changed, removed, added, repeated and reordered, reads as parsed each time", async () => {
    type Entry = { key: string; xdr: string; lastModifiedLedgerSeq: number; liveUntilLedgerSeq?: number };
    const entries = (JSON.parse(COMPACT) as { result: { entries: Entry[] } }).result.entries;
    const body = (list: readonly Entry[], latestLedger: number) =>
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: { entries: list, latestLedger } });
    const changed = entries.map((each, index) =>
      index === 2
        ? { ...each, xdr: `${each.xdr.slice(0, -4)}AAA=` }
        : index === 4
          ? { ...each, lastModifiedLedgerSeq: each.lastModifiedLedgerSeq + 1 }
          : each,
    );
    const stranger = { key: "AAAAAAAAAAA=", xdr: "AAAA", lastModifiedLedgerSeq: 5 };
    const polls = [
      entries,
      entries,
      changed,
      changed.slice(1),
      [stranger, ...changed, changed[3]!],
      [...entries].reverse(),
      entries,
    ];
    // Keys of their own, so the scans remember only these polls.
    const keys = [...KEYS];
    for (const [poll, list] of polls.entries()) {
      const text = body(list, 1000 + poll);
      expect(scans(text)).toBe(true);
      const scanned = await outcome(client, text, keys);
      expect(scanned, `poll ${poll}`).toEqual(await outcome(reference, text, keys));
      expect(scanned).toHaveProperty("entries");
    }
  });

  it("reads an entry changed without changing its length, every hash of bytes being the same", async () => {
    // Two base64 characters of the xdr swap: the entry keeps its length and its characters.
    type Entry = { key: string; xdr: string; lastModifiedLedgerSeq: number };
    const entries = (JSON.parse(COMPACT) as { result: { entries: Entry[] } }).result.entries;
    const target = entries.findIndex(({ xdr }) => xdr.length > 40 && xdr[20] !== xdr[28]);
    const swapped = entries.map((each, index) => {
      if (index !== target) return each;
      const characters = [...each.xdr];
      [characters[20], characters[28]] = [characters[28]!, characters[20]!];
      return { ...each, xdr: characters.join("") };
    });
    const keys = [...KEYS];
    rpc.fault = { status: 200, body: COMPACT, headers: { "content-type": "application/json" } };
    const first = await readLedgerEntries(client, "status", keys, undefined, (entry) => entry.xdr());
    expect(first.entries.size).toBeGreaterThan(0);
    rpc.fault = {
      status: 200,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: { entries: swapped, latestLedger: 2000 } }),
      headers: { "content-type": "application/json" },
    };
    const second = await readLedgerEntries(client, "status", keys, undefined, (entry) =>
      entry.xdr(first.entries.get(entry.key)),
    );
    expect(second.entries.get(swapped[target]!.key)).toBe(swapped[target]!.xdr);
    expect(second.entries.get(swapped[target]!.key)).not.toBe(entries[target]!.xdr);
  });

  const ACCOUNT = (JSON.parse(captureText(CAPTURES[0]!)) as { result: { entries: { key: string; xdr: string }[] } })
    .result.entries[0]!;
  const envelope = (result: string, head = '"jsonrpc":"2.0","id":7') => `{${head},"result":${result}}`;
  const entry = (fields: string) => envelope(`{"entries":[{${fields}}],"latestLedger":900}`);
  const plain = `"key":"${ACCOUNT.key}","xdr":"${ACCOUNT.xdr}","lastModifiedLedgerSeq":91769`;

  it.each([
    ["a plain entry", entry(plain), true],
    ["liveUntilLedgerSeq 0 (unknown, kept as 0)", entry(`${plain},"liveUntilLedgerSeq":0`), true],
    [
      "an extXdr and other fields of any JSON",
      entry(`${plain},"extXdr":"AAAA","x":[{"\\u0041":[1.5e-3,-0,true,null],"é":"ü\\n"}]`),
      true,
    ],
    [
      "an id that is a string, or null",
      envelope(`{"entries":[{${plain}}],"latestLedger":900}`, '"jsonrpc":"2.0","id":null'),
      true,
    ],
    [
      "whitespace everywhere",
      ` \n{ "jsonrpc" : "2.0" ,\t"id" : 1 , "result" : { "entries" : [ { ${plain} } ] , "latestLedger" : 900 } }\r\n`,
      true,
    ],
    ["a truncated body", entry(plain).slice(0, -3), false],
    ["trailing bytes", `${entry(plain)}x`, false],
    ["a UTF-8 byte order mark", `\uFEFF${entry(plain)}`, false],
    ["entries null", envelope('{"entries":null,"latestLedger":900}'), false],
    ["entries missing", envelope('{"latestLedger":900}'), false],
    ["latestLedger a string", envelope('{"entries":[],"latestLedger":"900"}'), false],
    ["an entry that is an array", envelope('{"entries":[[]],"latestLedger":900}'), false],
    ["a key that is a number", entry(`"key":5,"xdr":"AAAA","lastModifiedLedgerSeq":1`), false],
    ["an empty xdr", entry(`"key":"${ACCOUNT.key}","xdr":"","lastModifiedLedgerSeq":1`), false],
    ["xdr missing", entry(`"key":"${ACCOUNT.key}","lastModifiedLedgerSeq":1`), false],
    ["lastModifiedLedgerSeq missing", entry(`"key":"${ACCOUNT.key}","xdr":"AAAA"`), false],
    ["a negative ledger", entry(`${plain},"liveUntilLedgerSeq":-1`), false],
    ["a fractional ledger", entry(`${plain},"liveUntilLedgerSeq":1.5`), false],
    ["an integer written with a fraction", entry(`${plain},"liveUntilLedgerSeq":10.0`), false],
    ["an integer written with an exponent", entry(`${plain},"liveUntilLedgerSeq":1e3`), false],
    ["a huge number", entry(`${plain},"liveUntilLedgerSeq":123456789012345678901234567890`), false],
    ["a number beyond doubles", entry(`${plain},"liveUntilLedgerSeq":1e400`), false],
    ["a member name beyond ASCII", entry(`${plain},"é":1`), false],
    ["a number with a leading zero", entry(`${plain},"liveUntilLedgerSeq":0123`), false],
    ["liveUntilLedgerSeq null", entry(`${plain},"liveUntilLedgerSeq":null`), false],
    ["a repeated xdr (the last wins)", entry(`${plain},"xdr":"AAAABw=="`), false],
    [
      "a repeated result (the last wins)",
      `{"jsonrpc":"2.0","id":1,"result":{"entries":[],"latestLedger":1},"result":{"entries":[{${plain}}],"latestLedger":900}}`,
      false,
    ],
    [
      "an entry sent more often than keys were asked for (the last wins)",
      envelope(
        `{"entries":[${Array.from({ length: KEYS.length + 1 }, () => `{${plain}}`).join(",")}],"latestLedger":900}`,
      ),
      false,
    ],
    [
      "an entry sent twice, within the keys asked for (the last wins)",
      envelope(`{"entries":[{${plain}},{${plain.replace("91769", "91770")}}],"latestLedger":900}`),
      true,
    ],
    ["a repeated entries", envelope(`{"entries":[{${plain}}],"latestLedger":900,"entries":[]}`), false],
    [
      "a unicode escape in a member name",
      entry(`"\\u006bey":"${ACCOUNT.key}","xdr":"${ACCOUNT.xdr}","lastModifiedLedgerSeq":91769`),
      false,
    ],
    [
      "an escape in a key",
      entry(`"key":"${ACCOUNT.key.replace("+", "\\u002b")}","xdr":"${ACCOUNT.xdr}","lastModifiedLedgerSeq":91769`),
      false,
    ],
    [
      "an escaped slash in an xdr",
      entry(`"key":"${ACCOUNT.key}","xdr":"${ACCOUNT.xdr.replace("+", "\\/")}","lastModifiedLedgerSeq":91769`),
      false,
    ],
    ["a control character in a string", entry(`${plain},"x":"a\tb"`), false],
    ["an invalid escape", entry(`${plain},"x":"\\x"`), false],
    ["a JSON-RPC error", '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid"}}', false],
    [
      "an error beside a result",
      `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"},"result":{"entries":[{${plain}}],"latestLedger":900}}`,
      false,
    ],
    ["an error that breaks the schema", '{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}', false],
    ["no id", `{"jsonrpc":"2.0","result":{"entries":[],"latestLedger":1}}`, false],
    ["an id that is an object", envelope('{"entries":[],"latestLedger":1}', '"jsonrpc":"2.0","id":{}'), false],
    ["JSON-RPC 1.0", envelope('{"entries":[],"latestLedger":1}', '"jsonrpc":"1.0","id":1'), false],
    ["a result that is an array", envelope("[]"), false],
    ["a batch", `[${entry(plain)}]`, false],
    ["nesting beyond the scan's depth", entry(`${plain},"x":${"[".repeat(100)}${"]".repeat(100)}`), false],
    ["an HTML page", "<html><title>502 Bad Gateway</title></html>", false],
    ["an empty body", "", false],
  ])("%s: the reference's outcome, whether scanned or not", async (_name, body, scanned) => {
    expect(scans(body)).toBe(scanned);
    expect(await outcome(client, body)).toEqual(await outcome(reference, body));
  });

  it("bodies mutated at random end as the reference's do", async () => {
    const rng = createRng(20261126);
    const bytes = [
      0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x30, 0x39, 0x2d, 0x65, 0x2e, 0x20, 0x78, 0x00, 0xff, 0x75,
    ];
    let scannedMutants = 0;
    for (let round = 0; round < 300; round += 1) {
      const body = Buffer.from(COMPACT);
      const at = rng.int(0, body.length - 1);
      let mutant: Buffer;
      switch (rng.int(0, 3)) {
        case 0:
          mutant = body.subarray(0, at);
          break;
        case 1:
          mutant = Buffer.from(body);
          mutant[at] = rng.pick(bytes);
          break;
        case 2:
          mutant = Buffer.concat([body.subarray(0, at), body.subarray(at + 1)]);
          break;
        default: {
          const end = Math.min(body.length, at + rng.int(1, 80));
          mutant = Buffer.concat([body.subarray(0, end), body.subarray(at, end), body.subarray(end)]);
        }
      }
      const text = mutant.toString("latin1");
      if (scans(text)) scannedMutants += 1;
      expect(await outcome(client, text), `mutant ${round}`).toEqual(await outcome(reference, text));
    }
    // Some mutants (a changed digit, a byte within an xdr) are still plain responses the scanner reads.
    expect(scannedMutants).toBeGreaterThan(0);
  });
});
