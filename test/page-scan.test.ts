import { describe, expect, it, vi } from "vitest";
import { PollError } from "../src/client/errors.js";
import { RecordFields, ScanMemo, scanPage, type ScannedRecord } from "../src/client/page-scan.js";
import { LIQUIDITY_POOL_FIELDS, type LiquidityPoolField } from "../src/client/schemas.js";
import { makePool } from "./support/fake-horizon.js";
import { fixtureNames, fixtureText } from "./support/fixtures.js";

type JsonObject = Record<string, unknown>;

const pages = fixtureNames()
  .map((name) => ({ name, text: fixtureText(name) }))
  .filter(({ text }) => {
    const parsed = JSON.parse(text) as { _embedded?: { records?: unknown } };
    return Array.isArray(parsed._embedded?.records);
  });

/** Every top-level key any record of the page has, so the scan must locate all of them. */
function allKeys(records: readonly unknown[]): RecordFields {
  const keys = new Set<string>();
  for (const record of records)
    if (typeof record === "object" && record !== null) for (const key of Object.keys(record)) keys.add(key);
  return new RecordFields([...keys, "no_such_field"]);
}

function failure(body: string | Buffer): PollError {
  try {
    scanPage(Buffer.isBuffer(body) ? body : Buffer.from(body), LIQUIDITY_POOL_FIELDS);
  } catch (error) {
    if (error instanceof PollError) return error;
    throw error;
  }
  throw new Error(`scanned without error: ${String(body).slice(0, 80)}`);
}

describe("scanning a HAL page", () => {
  it("finds pages among the captures", () => {
    expect(pages.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["liquidity_pools-java-sdk.json", "ledgers-desc-java-sdk.json"]),
    );
  });

  it.each(pages)("reads every record of $name exactly as JSON.parse does", ({ text }) => {
    const records = (JSON.parse(text) as { _embedded: { records: JsonObject[] } })._embedded.records;
    const fields = allKeys(records);
    const scanned = scanPage(Buffer.from(text), fields);
    expect(scanned).toHaveLength(records.length);
    scanned.forEach((record, index) => {
      expect(record.isObject).toBe(true);
      expect(record.toObject()).toEqual(records[index]);
      expect(record.raw("no_such_field")).toBeUndefined();
    });
  });

  it("keeps each used field's bytes as sent, escapes and non-ASCII included", () => {
    const body =
      '{"_embedded":{"records":[ {"id" : "a\\"b\\\\", "type":"é☃","fee_bp":30,"reserves":[{"asset":"native"}],"_links":{"x":"}"}} ]}}';
    const [record] = scanPage(Buffer.from(body), LIQUIDITY_POOL_FIELDS);
    expect(record!.raw("id")!.toString()).toBe('"a\\"b\\\\"');
    expect(record!.string("id")).toBe('a"b\\');
    expect(record!.value("type")).toBe("é☃");
    expect(record!.value("fee_bp")).toBe(30);
    expect(record!.value("reserves")).toEqual([{ asset: "native" }]);
    expect(record!.raw("total_shares")).toBeUndefined();
  });

  it("marks records that are not objects, so they are counted invalid", () => {
    const records = scanPage(
      Buffer.from('{"_embedded":{"records":[1,null,"x",[],{"id":"p"},true]}}'),
      LIQUIDITY_POOL_FIELDS,
    );
    expect(records.map((record) => record.isObject)).toEqual([false, false, false, false, true, false]);
    expect(records[4]!.string("id")).toBe("p");
  });

  it("takes the last of repeated keys, as JSON.parse does", () => {
    const [record] = scanPage(
      Buffer.from('{"_embedded":{"records":[{"id":"first","id":"last"}]}}'),
      LIQUIDITY_POOL_FIELDS,
    );
    expect(record!.string("id")).toBe("last");
  });

  it("changes a record's fingerprint when a used field changes, not when its links do", () => {
    const fingerprint = (pool: JsonObject) =>
      scanPage(
        Buffer.from(JSON.stringify({ _embedded: { records: [pool] } })),
        LIQUIDITY_POOL_FIELDS,
      )[0]!.fingerprint();
    const pool = makePool(1);
    expect(fingerprint({ ...pool, _links: { self: { href: "https://elsewhere/" } } })).toBe(fingerprint(pool));
    // Links one to three bytes longer move the record's bytes off their four-byte words.
    for (const href of ["https://elsewhere/a", "https://elsewhere/ab", "https://elsewhere/abc"]) {
      expect(fingerprint({ ...pool, _links: { self: { href } } }), href).toBe(fingerprint(pool));
    }
    expect(fingerprint({ ...pool, last_modified_ledger: 1 })).not.toBe(fingerprint(pool));
    expect(fingerprint({ ...pool, total_shares: "1.0000001" })).not.toBe(fingerprint(pool));
    // A field moving into another's place is a change too.
    expect(fingerprint({ ...pool, total_shares: undefined, total_trustlines: pool.total_shares })).not.toBe(
      fingerprint(pool),
    );
  });

  it("gives ten thousand pools, and each with one amount a stroop higher, distinct fingerprints", () => {
    const pools = Array.from({ length: 10_000 }, (_, index) => makePool(index));
    const nudged = pools.map((pool) => ({
      ...pool,
      total_shares: (BigInt(String(pool.total_shares).replace(".", "")) + 1n).toString().replace(/(\d{7})$/, ".$1"),
    }));
    const records = scanPage(
      Buffer.from(JSON.stringify({ _embedded: { records: [...pools, ...nudged] } })),
      LIQUIDITY_POOL_FIELDS,
    );
    expect(new Set(records.map((record) => record.fingerprint())).size).toBe(20_000);
  });

  it("refuses JSON that is no page as a schema failure, which is not retried", () => {
    const bodies = [
      '{"_embedded":{}}',
      '{"_embedded":{"records":{}}}',
      '{"records":[]}',
      '{"_embedded":[{"records":[]}]}',
      // The last of repeated keys wins, as with JSON.parse.
      '{"_embedded":{"records":[{"id":"a"}],"records":null}}',
      '{"_embedded":{"records":[{"id":"a"}]},"_embedded":{}}',
      '[{"_embedded":{"records":[]}}]',
      '"page"',
      "null",
      `{"_embedded":{"records":[${"[".repeat(100)}${"]".repeat(100)}]}}`,
    ];
    for (const body of bodies) expect(failure(body).reason, body.slice(0, 60)).toBe("schema");
  });

  it("reads keys written with escapes as JSON.parse does", () => {
    const [record] = scanPage(
      Buffer.from('{"_embedde\\u0064":{"records":[{"\\u0069d":"x","type":"a","typ\\u0065":"b"}]}}'),
      LIQUIDITY_POOL_FIELDS,
    );
    expect(record!.toObject()).toEqual({ id: "x", type: "b" });
  });

  it.each([
    ["an HTML page", "<html><title>502 Bad Gateway</title></html>", /502 Bad Gateway/],
    ["an empty body", "", /unexpected end/],
    ["trailing bytes", '{"_embedded":{"records":[]}} {}', /trailing bytes/],
    ["an unterminated string", '{"_embedded":{"records":[{"id":"abc}]}}', /unterminated string/],
    ["a raw newline in a string", '{"_embedded":{"records":[{"id":"a\nb"}]}}', /control character/],
    ["an invalid escape", '{"_embedded":{"records":[{"id":"a\\qb"}]}}', /invalid escape/],
    ["a \\u escape without four hex digits", '{"_embedded":{"records":[{"id":"\\u12"}]}}', /invalid escape/],
    ["a missing colon", '{"_embedded" {"records":[]}}', /expected a colon/],
    ["a missing comma", '{"_embedded":{"records":[{"id":"a" "type":"b"}]}}', /expected a comma/],
    ["a trailing comma", '{"_embedded":{"records":[{"id":"a",}]}}', /expected a key/],
    ["a comma after [", '{"_embedded":{"records":[,]}}', /unexpected byte/],
    ["a mismatched close", '{"_embedded":{"records":[{"id":"a"]]}}', /mismatched close/],
    ["a bare word", '{"_embedded":{"records":[nope]}}', /unexpected byte/],
    ["a truncated literal", '{"_embedded":{"records":[tru]}}', /unexpected byte/],
    ["a non-string key", '{"_embedded":{"records":[{id:1}]}}', /expected a key/],
  ])("refuses %s as invalid JSON, saying where", (_, body, message) => {
    const error = failure(body);
    expect(error.reason).toBe("invalid_json");
    expect(error.message).toMatch(message);
  });

  it("refuses every truncation of a real page", () => {
    const body = Buffer.from(fixtureText("liquidity_pools-java-sdk.json").trimEnd());
    for (let length = 0; length < body.length; length += 7)
      expect(failure(body.subarray(0, length)).reason).toBe("invalid_json");
  });

  it("agrees with JSON.parse on generated documents", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const value = (depth: number): unknown => {
      const kind = Math.floor(random() * (depth > 3 ? 4 : 6));
      if (kind === 0) return Math.floor(random() * 1e6) / (random() < 0.5 ? 1 : 1000) - 500;
      if (kind === 1) return [true, false, null][Math.floor(random() * 3)];
      if (kind === 2) return ["plain", 'q"uote', "back\\slash", "tab\t", "ü€𝄞", "}]", ""][Math.floor(random() * 7)];
      if (kind === 3) return 1e21 * random();
      if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, (_, index) => [`k${index}`, value(depth + 1)]),
      );
    };
    for (let round = 0; round < 200; round += 1) {
      const records = Array.from({ length: 3 }, () => ({
        id: value(2),
        type: value(2),
        reserves: value(2),
        _links: value(2),
      }));
      const document = { _links: value(1), _embedded: { records, extra: value(2) } };
      const body = JSON.stringify(document, null, round % 2 === 0 ? undefined : 2);
      const scanned = scanPage(Buffer.from(body), LIQUIDITY_POOL_FIELDS);
      expect(scanned.map((record) => record.toObject())).toEqual(
        records.map(({ id, type, reserves }) => JSON.parse(JSON.stringify({ id, type, reserves })) as JsonObject),
      );
    }
  });
});

describe("a scan memo", () => {
  const view = (record: ScannedRecord<(typeof LIQUIDITY_POOL_FIELDS.names)[number]>) => ({
    isObject: record.isObject,
    fields: LIQUIDITY_POOL_FIELDS.names.map((name) => record.raw(name)?.toString()),
    fingerprint: record.fingerprint(),
  });
  const pageOf = (records: readonly unknown[]) => Buffer.from(JSON.stringify({ _embedded: { records } }, null, 2));

  it("gives every record what a fresh scan gives, through changes, additions, removals and moves", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let next = 400;
    let pools: JsonObject[] = Array.from({ length: 400 }, (_, index) => makePool(index));
    const memo = new ScanMemo(LIQUIDITY_POOL_FIELDS, "id");
    for (let round = 0; round < 40; round += 1) {
      if (round > 0) {
        pools = pools.flatMap((pool): JsonObject[] => {
          const roll = random();
          if (roll < 0.03)
            return [{ ...pool, total_shares: `${Math.floor(random() * 1e9)}.0000001`, last_modified_ledger: round }];
          if (roll < 0.04) return [];
          if (roll < 0.05) return [pool, makePool(next++)];
          if (roll < 0.055) return [{ ...pool, _links: { self: { href: `https://elsewhere/${"x".repeat(round)}` } } }];
          return [pool];
        });
        if (round % 7 === 0) pools.reverse();
      }
      memo.begin();
      for (let start = 0; start < pools.length; start += 50) {
        const records = [...pools.slice(start, start + 50), ...(round % 5 === 0 ? [null] : [])];
        const body = pageOf(records);
        expect(scanPage(body, LIQUIDITY_POOL_FIELDS, memo).map(view), `round ${round}`).toEqual(
          scanPage(body, LIQUIDITY_POOL_FIELDS).map(view),
        );
      }
      memo.complete();
    }
  });

  /** Counts the records the memo hands back (recall found them where they were) from here on. */
  function recalls(memo: ScanMemo<LiquidityPoolField>): () => number {
    const spy = vi.spyOn(memo, "recall");
    return () => spy.mock.results.filter((result) => result.type === "return" && result.value !== -1).length;
  }

  it("recognises every pool sent as before, and only those", () => {
    const memo = new ScanMemo(LIQUIDITY_POOL_FIELDS, "id");
    const recalled = recalls(memo);
    const poll = (pools: readonly JsonObject[]) => {
      const before = recalled();
      memo.begin();
      for (let start = 0; start < pools.length; start += 100)
        scanPage(pageOf(pools.slice(start, start + 100)), LIQUIDITY_POOL_FIELDS, memo);
      memo.complete();
      return recalled() - before;
    };
    const pools = Array.from({ length: 300 }, (_, index) => makePool(index));
    expect(poll(pools)).toBe(0);
    expect(poll(pools)).toBe(300);
    // Five changed, three added, four removed, each apart from the others.
    const changed = pools.map((pool, index) => (index % 60 === 5 ? { ...pool, total_trustlines: "0" } : pool));
    const edited = changed.flatMap((pool, index) =>
      index % 70 === 30 ? [] : index % 90 === 40 ? [pool, makePool(1000 + index)] : [pool],
    );
    expect(edited).toHaveLength(300 - 4 + 3);
    expect(poll(edited)).toBe(edited.length - 5 - 3);
    expect(poll(edited)).toBe(edited.length);
  });

  it("takes back what a page that failed to scan noted", () => {
    const memo = new ScanMemo(LIQUIDITY_POOL_FIELDS, "id");
    const pools = Array.from({ length: 20 }, (_, index) => makePool(index));
    memo.begin();
    scanPage(pageOf(pools), LIQUIDITY_POOL_FIELDS, memo);
    memo.complete();
    memo.begin();
    const truncated = pageOf(pools).subarray(0, 9000);
    expect(() => scanPage(truncated, LIQUIDITY_POOL_FIELDS, memo)).toThrow(PollError);
    // The failed page's records were taken back: the whole page is recalled again, every record where it was.
    const recalled = recalls(memo);
    expect(scanPage(pageOf(pools), LIQUIDITY_POOL_FIELDS, memo)).toHaveLength(20);
    expect(recalled()).toBe(20);
    memo.complete();
    memo.begin();
    expect(scanPage(pageOf(pools), LIQUIDITY_POOL_FIELDS, memo)).toHaveLength(20);
    expect(recalled()).toBe(40);
  });
});
