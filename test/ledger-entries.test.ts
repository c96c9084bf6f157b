import { xdr } from "@stellar/stellar-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import {
  codeKeysPerCall,
  ledgerEntriesCalls,
  ledgerEntriesOf,
  MAX_KEYS_PER_CALL,
  readLedgerEntries,
  type KeepEntry,
} from "../src/client/ledger-entries.js";
import { RpcClient } from "../src/client/rpc-client.js";
import { ledgerEntriesSchema } from "../src/client/rpc-schemas.js";
import { FakeRpc } from "./support/fake-rpc.js";
import { rpcFixtureJson } from "./support/fixtures.js";

let rpc: FakeRpc;
let client: RpcClient;

beforeEach(async () => {
  rpc = new FakeRpc();
  client = new RpcClient({ url: await rpc.start(), timeoutMs: 2_000, retries: 0, maxBodyBytes: 1 << 22 });
});

afterEach(async () => {
  await rpc.stop();
});

type Served = {
  result: {
    entries: { key: string; xdr: string; lastModifiedLedgerSeq: number; liveUntilLedgerSeq?: number }[];
    latestLedger: number;
  };
};

/** Serves a capture's entries, and returns them with its latestLedger. */
function serve(name: string): Served["result"] {
  const { result } = rpcFixtureJson<Served>(name);
  for (const { key, ...entry } of result.entries) rpc.ledgerEntries.set(key, entry);
  rpc.ledgerEntriesLatestLedger = result.latestLedger;
  return result;
}

/** Keeps each entry whole, with its response's latestLedger. */
const whole: KeepEntry<object> = (entry, latestLedger) => ({
  key: entry.key,
  xdr: entry.xdr,
  lastModifiedLedgerSeq: entry.lastModifiedLedgerSeq,
  ...(entry.liveUntilLedgerSeq === undefined ? {} : { liveUntilLedgerSeq: entry.liveUntilLedgerSeq }),
  latestLedger,
});

/** A distinct, valid contract-code key per index. */
function codeKey(index: number): string {
  const hash = Buffer.alloc(32);
  hash.writeUInt32BE(index);
  return xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash })).toXDR("base64");
}

describe("getLedgerEntries captures parse with exact values", () => {
  it.each([
    ["getLedgerEntries-contract-instance-dotnet-sdk.json", 458285, 2531884, 458386],
    ["getLedgerEntries-contract-code-dotnet-sdk.json", 274826, 2348425, 454092],
    ["getLedgerEntries-contract-data-persistent-java-sdk.json", 1090887, 3163876, 1104160],
    ["getLedgerEntries-account-dotnet-sdk.json", 91769, undefined, 910556],
    ["getLedgerEntries-trustline-dotnet-sdk.json", 139305, undefined, 457171],
  ])("%s", async (name, lastModified, liveUntil, latestLedger) => {
    const served = serve(name);
    const key = served.entries[0]!.key;
    const read = await readLedgerEntries(client, "status", [key], undefined, whole);
    expect(read.calls).toBe(1);
    expect(read.latestLedger).toBe(latestLedger);
    expect(read.entries.get(key)).toEqual({
      key,
      xdr: served.entries[0]!.xdr,
      lastModifiedLedgerSeq: lastModified,
      ...(liveUntil === undefined ? {} : { liveUntilLedgerSeq: liveUntil }),
      latestLedger,
    });
    // The entry decodes with the SDK as what its key names.
    expect(xdr.LedgerEntryData.fromXDR(served.entries[0]!.xdr, "base64").switch().name).toBe(
      xdr.LedgerKey.fromXDR(key, "base64").switch().name,
    );
  });

  it("the 17 config settings, and an empty answer", () => {
    const settings = ledgerEntriesSchema.parse(
      rpcFixtureJson<Served>("getLedgerEntries-config-settings-dotnet-sdk.json").result,
    );
    expect(settings.entries).toHaveLength(17);
    expect(settings.latestLedger).toBe(1172233);
    expect(ledgerEntriesSchema.parse(rpcFixtureJson<Served>("getLedgerEntries-empty-dotnet-sdk.json").result)).toEqual({
      entries: [],
      latestLedger: 458234,
    });
  });
});

describe("readLedgerEntries", () => {
  it("sends ceil(n / 200) calls of at most 200 keys, each key once, and leaves out keys not found", async () => {
    const keys = Array.from({ length: 450 }, (_, index) => codeKey(index));
    for (const [index, key] of keys.entries()) {
      if (index % 3 === 0)
        rpc.ledgerEntries.set(key, {
          xdr: "AAAABw==",
          lastModifiedLedgerSeq: 100 + index,
          liveUntilLedgerSeq: 5_000 + index,
        });
    }
    rpc.ledgerEntriesLatestLedger = 4_000;
    const read = await readLedgerEntries(client, "status", [...keys, keys[7]!, keys[0]!], undefined, whole);
    const calls = rpc.ledgerEntriesCalls();
    expect(read.calls).toBe(3);
    expect(ledgerEntriesCalls(450)).toBe(3);
    expect(calls.map((call) => call.length)).toEqual([200, 200, 50]);
    expect(calls.flat().sort()).toEqual([...keys].sort());
    expect(read.entries.size).toBe(150);
    expect(read.entries.get(keys[3]!)).toMatchObject({
      lastModifiedLedgerSeq: 103,
      liveUntilLedgerSeq: 5_003,
      latestLedger: 4_000,
    });
    expect(read.entries.has(keys[4]!)).toBe(false);
    expect(read.latestLedger).toBe(4_000);
  });

  it("keeps what `keep` makes of each entry, under its key, and ignores entries under keys not asked for", async () => {
    const keys = [codeKey(0), codeKey(1)];
    const entries = [...keys, codeKey(9)].map((key, index) => ({
      key,
      xdr: `AAAAB${index}==`,
      lastModifiedLedgerSeq: 10 + index,
    }));
    rpc.answers.set("getLedgerEntries", { result: { entries, latestLedger: 77 } });
    const seen: [string, number, string][] = [];
    const read = await readLedgerEntries(client, "status", keys, undefined, (entry, latestLedger) => {
      seen.push([entry.xdr, latestLedger, entry.key]);
      return `${entry.lastModifiedLedgerSeq}@${latestLedger}`;
    });
    expect([...read.entries]).toEqual([
      [keys[0], "10@77"],
      [keys[1], "11@77"],
    ]);
    expect(seen).toEqual([
      ["AAAAB0==", 77, keys[0]],
      ["AAAAB1==", 77, keys[1]],
    ]);
  });

  it("calls `answered` once per answer, one without entries too", async () => {
    const keys = Array.from({ length: 250 }, (_, index) => codeKey(index));
    rpc.ledgerEntries.set(keys[0]!, { xdr: "AAAABw==", lastModifiedLedgerSeq: 100, liveUntilLedgerSeq: 5_000 });
    let answers = 0;
    const read = await readLedgerEntries(client, "status", keys, undefined, whole, () => (answers += 1));
    expect(read.entries.size).toBe(1);
    expect(answers).toBe(2);
  });

  it("large keys go at most `perCall` a call, spread over as few calls as planned, the others filling them", async () => {
    const keys = Array.from({ length: 450 }, (_, index) => codeKey(index));
    const large = new Set(keys.filter((_, index) => index % 5 === 0));
    const read = await readLedgerEntries(client, "status", keys, undefined, whole, undefined, {
      keys: large,
      perCall: 20,
    });
    const calls = rpc.ledgerEntriesCalls();
    expect([read.calls, ledgerEntriesCalls(450, 90, 20)]).toEqual([5, 5]);
    // Calls run four at a time: by size, not in the order they arrived.
    const sizes = calls.map((call) => `${call.length}:${call.filter((key) => large.has(key)).length}`);
    expect(sizes.sort()).toEqual(["18:18", "18:18", "18:18", "196:18", "200:18"]);
    expect(calls.flat().sort()).toEqual([...keys].sort());
    // 8 MiB holds 46 entries of the largest code, 10 MiB 58; a cap below one entry still asks for one a call.
    expect([8 * 1024 ** 2, 10 * 1024 ** 2, 1_000].map(codeKeysPerCall)).toEqual([46, 58, 1]);
  });

  it("10 000 keys are 50 calls", () => {
    expect(ledgerEntriesCalls(10_000)).toBe(50);
    expect(ledgerEntriesCalls(10_001)).toBe(51);
    expect(ledgerEntriesCalls(0)).toBe(0);
    expect(MAX_KEYS_PER_CALL).toBe(200);
  });

  it("no keys, no call", async () => {
    expect(await readLedgerEntries(client, "status", [], undefined, whole)).toEqual({
      entries: new Map(),
      latestLedger: undefined,
      calls: 0,
    });
    expect(rpc.requests).toHaveLength(0);
  });

  it.each([
    ["getLedgerEntries-error-too-many-keys-stellar-rpc-src.json", "key count (201) exceeds maximum supported (200)"],
    ["getLedgerEntries-error-malformed-key-stellar-rpc-src.json", "cannot unmarshal key value <>@@#$ at index 0"],
    ["getLedgerEntries-error-ttl-key-stellar-rpc-src.json", "ledger ttl entries cannot be queried directly"],
  ])("a JSON-RPC error (%s) fails the read as rpc_error", async (name, message) => {
    rpc.answers.set("getLedgerEntries", {
      error: rpcFixtureJson<{ error: { code: number; message: string } }>(name).error,
    });
    const error = await readLedgerEntries(client, "status", [codeKey(1)], undefined, whole).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PollError);
    expect((error as PollError).reason).toBe("rpc_error");
    expect((error as PollError).message).toBe(`getLedgerEntries answered JSON-RPC error -32602: ${message}`);
  });

  it("a result that breaks the schema fails the read as schema, whichever call it is", async () => {
    const keys = Array.from({ length: 201 }, (_, index) => codeKey(index));
    rpc.answers.set("getLedgerEntries", { result: { entries: null, latestLedger: 5 } });
    const error = await readLedgerEntries(client, "status", keys, undefined, whole).catch((caught: unknown) => caught);
    expect((error as PollError).reason).toBe("schema");
  });
});

describe("the guard of getLedgerEntries' result accepts what zod accepts, and fails as zod does", () => {
  const HOSTILE: unknown[] = [
    undefined,
    null,
    "",
    "AAAA",
    0,
    -1,
    -0,
    1.5,
    2 ** 53,
    2 ** 53 - 1,
    1e300,
    "5",
    [],
    {},
    true,
  ];
  const entry = { key: codeKey(1), xdr: "AAAABw==", lastModifiedLedgerSeq: 10, liveUntilLedgerSeq: 20 };
  const results: unknown[] = [
    null,
    [],
    "entries",
    { entries: [entry], latestLedger: 30 },
    { entries: [], latestLedger: 30 },
    { entries: [entry, { ...entry, extXdr: "AAAA" }], latestLedger: 30 },
    ...HOSTILE.map((value) => ({ entries: value, latestLedger: 30 })),
    ...HOSTILE.map((value) => ({ entries: [entry], latestLedger: value })),
    ...HOSTILE.map((value) => ({ entries: [entry, value], latestLedger: 30 })),
    ...(["key", "xdr", "lastModifiedLedgerSeq", "liveUntilLedgerSeq"] as const).flatMap((field) =>
      HOSTILE.map((value) => ({ entries: [entry, { ...entry, [field]: value }], latestLedger: 30 })),
    ),
  ];
  const kept = (read: { entries: readonly object[]; latestLedger: number }) => ({
    latestLedger: read.latestLedger,
    entries: read.entries.map((each) => {
      const { key, xdr, lastModifiedLedgerSeq, liveUntilLedgerSeq } = each as typeof entry;
      return { key, xdr, lastModifiedLedgerSeq, liveUntilLedgerSeq };
    }),
  });

  it.each(results.map((result) => [JSON.stringify(result) ?? "undefined", result]))("%s", (_name, result) => {
    const zod = ledgerEntriesSchema.safeParse(result);
    let guarded: ReturnType<typeof ledgerEntriesOf> | PollError;
    try {
      guarded = ledgerEntriesOf(result);
    } catch (error) {
      guarded = error as PollError;
    }
    if (zod.success) expect(kept(guarded as ReturnType<typeof ledgerEntriesOf>)).toEqual(kept(zod.data));
    else {
      expect(guarded).toBeInstanceOf(PollError);
      expect((guarded as PollError).reason).toBe("schema");
      expect((guarded as PollError).message).toMatch(/^response does not match Stellar RPC's getLedgerEntries schema/);
    }
  });
});
