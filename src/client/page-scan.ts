import { excerpt, PollError } from "./errors.js";
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  escapeLength,
  FALSE,
  hashBytes,
  keyIs,
  LINE_FEED,
  MAX_DEPTH,
  NULL,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
  TAB,
  TRUE,
} from "./json-bytes.js";

/**
 * Reads a HAL page's records without parsing them: a single pass over the bytes checks the JSON
 * structure, finds each record of `_embedded.records`, and notes where the values of the fields a
 * collector uses lie. Parsing a page of 200 liquidity pools builds thousands of objects (HAL
 * `_links` above all) that are garbage a moment later; scanned, a record unchanged since the last
 * poll costs a hash of its used fields' bytes, and only the used fields of a changed one are ever
 * parsed.
 */

/** Digits, signs, the decimal point and exponent marks. */
function isNumberByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || byte === 0x2b || byte === 0x2d || byte === 0x2e || byte === 0x45 || byte === 0x65
  );
}

function invalid(what: string, at: number): PollError {
  return new PollError("invalid_json", `body is not JSON: ${what} at byte ${at}`);
}

/** The fields a collector reads from each record, matched against the record's top-level keys. */
export class RecordFields<Name extends string = string> {
  readonly names: readonly Name[];
  private readonly keys: readonly Buffer[];

  constructor(names: readonly Name[]) {
    this.names = names;
    this.keys = names.map((name) => Buffer.from(name));
  }

  /** The index of the key in bytes[start, end), or -1 when it is not one of the fields. */
  indexOf(bytes: Buffer, start: number, end: number): number {
    for (let index = 0; index < this.keys.length; index += 1)
      if (keyIs(bytes, start, end, this.keys[index]!)) return index;
    return -1;
  }
}

/**
 * One record of a page as Horizon sent it. Each used field is available as its raw JSON bytes (to
 * recognise an unchanged record) or parsed; the rest of the record is never parsed.
 */
export class ScannedRecord<Name extends string = string> {
  constructor(
    private readonly bytes: Buffer,
    /** Where the record starts in `bytes`: its ranges count from here. */
    private readonly base: number,
    /**
     * From `offset` on, the start and end of each field's value, in the order of `fields.names`;
     * -1 when absent. One array serves many records: an array per record was a fifth of a poll's
     * garbage.
     */
    private readonly ranges: Int32Array,
    private readonly offset: number,
    private readonly fields: RecordFields<Name>,
    /** False when the record is not a JSON object: it has no fields and is counted invalid. */
    readonly isObject: boolean,
    private readonly hash: number,
  ) {}

  /** The field's value exactly as sent, or undefined when the record lacks it. */
  raw(name: Name): Buffer | undefined {
    const at = this.offset + 2 * this.fields.names.indexOf(name);
    const start = this.ranges[at]!;
    return start < 0 ? undefined : this.bytes.subarray(this.base + start, this.base + this.ranges[at + 1]!);
  }

  /** The field's value parsed, or undefined when absent or not valid JSON. */
  value(name: Name): unknown {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw.toString("utf8")) as unknown;
    } catch {
      return undefined;
    }
  }

  /** The field when it is a non-empty string (paging tokens, ids), else undefined. */
  string(name: Name): string | undefined {
    const value = this.value(name);
    return typeof value === "string" && value !== "" ? value : undefined;
  }

  /**
   * A 53-bit hash of the bytes from the first used field's key to the last used field's value.
   * Records whose spans are byte for byte equal have every used field equal (each used key and
   * value lies inside its span), and so the same fingerprint; a field Horizon sends between them
   * (last_modified_time) only makes a change look bigger than it is. A number, not a copy of the
   * span: ten thousand pools' copies held 9 MiB off the heap and as many buffers for the garbage
   * collector to track. Two different spans share a fingerprint with a chance of about 2^-53 per
   * changed record (one in 9·10^15); Prometheus identifies series by 64-bit hashes on the same bet.
   */
  fingerprint(): number {
    return this.hash;
  }

  /** The used fields parsed into one object, for schema validation; a field not valid JSON is left out. */
  toObject(): Record<Name, unknown> {
    const object = {} as Record<Name, unknown>;
    for (const name of this.fields.names) {
      const value = this.value(name);
      if (value !== undefined) object[name] = value;
    }
    return object;
  }
}

/**
 * The records of a HAL page body, each with its used fields located. Throws a PollError:
 * `invalid_json` when the body is not JSON, `schema` when it is JSON but no page (not an object,
 * no `_embedded.records` array, or nested deeper than the scan follows).
 */
export function scanPage<Name extends string>(
  body: Buffer,
  fields: RecordFields<Name>,
  memo?: ScanMemo<Name>,
): ScannedRecord<Name>[] {
  const mark = memo?.mark();
  try {
    return scanRecords(body, fields, memo);
  } catch (error) {
    // What the failed scan noted is taken back: the page may be asked for again.
    if (mark !== undefined) memo!.rollback(mark);
    if (!(error instanceof PollError) || error.reason !== "invalid_json") throw error;
    // A proxy's HTML page or a truncated body: say where it broke and what it looks like.
    throw new PollError("invalid_json", `${error.message}: ${excerpt(body.toString("utf8", 0, 4096))}`);
  }
}

/** What the scan expects next, besides whitespace. */
enum Expect {
  Value,
  ValueOrClose,
  Key,
  KeyOrClose,
  Colon,
  CommaOrClose,
  Nothing,
}

/** Where a container sits in the page, as far as the scan cares. */
enum Role {
  Other,
  Page,
  Embedded,
  Records,
  Record,
}

const EMBEDDED = Buffer.from("_embedded");
const RECORDS = Buffer.from("records");
const OBJECT = 1;
const ARRAY = 2;

/**
 * One pass over the bytes: a state machine over JSON's grammar with a stack of containers, kept
 * in local variables so it runs at a few nanoseconds a byte. Strings are checked for termination,
 * control characters and escapes, scalars loosely (a used field is parsed, and so fully checked,
 * when it is read).
 */
function scanRecords<Name extends string>(
  bytes: Buffer,
  fields: RecordFields<Name>,
  memo: ScanMemo<Name> | undefined,
): ScannedRecord<Name>[] {
  const length = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const kinds = new Uint8Array(MAX_DEPTH + 1);
  const roles = new Uint8Array(MAX_DEPTH + 1);
  const width = 2 * fields.names.length;
  const absent = new Int32Array(width).fill(-1);
  const notAnObject = () => new ScannedRecord(bytes, 0, absent, 0, fields, false, 0);
  let depth = 0;
  let expect = Expect.Value;
  let position = 0;
  let records: ScannedRecord<Name>[] | undefined;
  /** The key just read names the container the scan descends into (`_embedded`, then `records`). */
  let keyLeadsIn = false;
  /** Every record's ranges, `width` apiece; doubled when full (records made earlier keep the array they were made with). */
  let ranges = new Int32Array(64 * width);
  let rangesUsed = 0;
  let offset = 0;
  let recordStart = 0;
  let fieldIndex = -1;
  let keyStart = -1;
  let valueStart = -1;
  let spanStart = -1;
  let spanEnd = -1;
  while (position < length) {
    let byte = bytes[position]!;
    // Indentation in a tight loop of its own: a pretty-printed page is about a third whitespace.
    while ((byte === SPACE || byte === LINE_FEED || byte === CARRIAGE_RETURN || byte === TAB) && ++position < length)
      byte = bytes[position]!;
    if (position === length) break;
    if (expect === Expect.Nothing) throw invalid("trailing bytes after the document", position);
    if (expect === Expect.Colon) {
      if (byte !== COLON) throw invalid("expected a colon", position);
      position += 1;
      expect = Expect.Value;
      continue;
    }
    if (expect === Expect.CommaOrClose && byte === COMMA) {
      position += 1;
      expect = kinds[depth] === OBJECT ? Expect.Key : Expect.Value;
      continue;
    }
    if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      // After `{` only `}` can close, after `[` only `]`: the container's kind tells.
      if (expect === Expect.Key || expect === Expect.Value)
        throw invalid(expect === Expect.Key ? "expected a key" : "expected a value", position);
      if (kinds[depth] !== (byte === CLOSE_BRACE ? OBJECT : ARRAY)) throw invalid("mismatched close", position);
      if (roles[depth] === Role.Record) {
        const fingerprint = spanStart < 0 ? 0 : hashBytes(view, spanStart, spanEnd);
        records!.push(new ScannedRecord(bytes, recordStart, ranges, offset, fields, true, fingerprint));
        memo?.note(view, recordStart, position + 1, ranges, offset, fingerprint);
      }
      depth -= 1;
      position += 1;
      if (roles[depth] === Role.Record && fieldIndex >= 0) {
        ranges[offset + 2 * fieldIndex] = valueStart - recordStart;
        ranges[offset + 2 * fieldIndex + 1] = position - recordStart;
        if (spanStart < 0) spanStart = keyStart;
        spanEnd = position;
      }
      expect = depth === 0 ? Expect.Nothing : Expect.CommaOrClose;
      continue;
    }
    if (expect === Expect.CommaOrClose) throw invalid("expected a comma or a close", position);
    const readingKey = expect === Expect.Key || expect === Expect.KeyOrClose;
    const container = roles[depth];
    if (!readingKey && container === Role.Record) valueStart = position;
    if (byte === QUOTE) {
      const start = position + 1;
      let end = start;
      let escapes = false;
      for (;;) {
        // Ordinary bytes in a tight loop of their own: Horizon's strings are long hrefs and ids without escapes.
        let inner = 0;
        while (end < length && (inner = bytes[end]!) >= SPACE && inner !== QUOTE && inner !== BACKSLASH) end += 1;
        if (end >= length) throw invalid("unterminated string", start);
        if (inner === QUOTE) break;
        if (inner === BACKSLASH) {
          const step = escapeLength(bytes, end);
          if (step === 0) throw invalid("invalid escape", end);
          end += step;
          escapes = true;
        } else {
          throw invalid("control character in a string", end);
        }
      }
      position = end + 1;
      if (readingKey) {
        // A key written with escapes is compared as JSON.parse reads it; Horizon writes none.
        const key = escapes ? (JSON.parse(bytes.toString("utf8", start - 1, end + 1)) as string) : undefined;
        if (container === Role.Record) {
          fieldIndex = key === undefined ? fields.indexOf(bytes, start, end) : fields.names.indexOf(key as Name);
          keyStart = start - 1;
        } else if (container === Role.Page || container === Role.Embedded) {
          const name = container === Role.Page ? EMBEDDED : RECORDS;
          keyLeadsIn = key === undefined ? keyIs(bytes, start, end, name) : key === name.toString();
          // The last of repeated keys wins, as with JSON.parse: what an earlier one held is forgotten.
          if (keyLeadsIn) records = undefined;
        }
        expect = Expect.Colon;
        continue;
      }
    } else if (readingKey) {
      throw invalid("expected a key", position);
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (depth === MAX_DEPTH)
        throw new PollError("schema", `page nests deeper than ${MAX_DEPTH} levels at byte ${position}`);
      const kind = byte === OPEN_BRACE ? OBJECT : ARRAY;
      let role = Role.Other;
      if (depth === 0 && kind === OBJECT) role = Role.Page;
      else if (container === Role.Page && keyLeadsIn && kind === OBJECT) role = Role.Embedded;
      else if (container === Role.Embedded && keyLeadsIn && kind === ARRAY) role = Role.Records;
      else if (container === Role.Records && kind === OBJECT) {
        const end = memo === undefined ? -1 : memo.recall(bytes, view, position, records!);
        if (end >= 0) {
          // The record as the last poll saw it, byte for byte: taken from the memo, not scanned.
          position = end;
          expect = Expect.CommaOrClose;
          continue;
        }
        role = Role.Record;
      } else if (container === Role.Records) records!.push(notAnObject());
      if (role === Role.Records) records = [];
      if (role === Role.Record) {
        if (rangesUsed + width > ranges.length) {
          const larger = new Int32Array(2 * ranges.length);
          larger.set(ranges);
          ranges = larger;
        }
        offset = rangesUsed;
        rangesUsed += width;
        recordStart = position;
        ranges.fill(-1, offset, rangesUsed);
        fieldIndex = -1;
        spanStart = -1;
        spanEnd = -1;
      }
      depth += 1;
      kinds[depth] = kind;
      roles[depth] = role;
      keyLeadsIn = false;
      position += 1;
      expect = kind === OBJECT ? Expect.KeyOrClose : Expect.ValueOrClose;
      continue;
    } else {
      const start = position;
      const literal = byte === 0x74 ? TRUE : byte === 0x66 ? FALSE : byte === 0x6e ? NULL : undefined;
      if (literal !== undefined) {
        const end = position + literal.length;
        if (end > length || bytes.compare(literal, 0, literal.length, position, end) !== 0)
          throw invalid("unexpected byte", position);
        position += literal.length;
      } else {
        while (position < length && isNumberByte(bytes[position]!)) position += 1;
        if (position === start) throw invalid("unexpected byte", position);
      }
    }
    // A string or a scalar value just ended.
    if (depth === 0) {
      expect = Expect.Nothing;
      continue;
    }
    if (container === Role.Records) records!.push(notAnObject());
    else if (container === Role.Record && fieldIndex >= 0) {
      ranges[offset + 2 * fieldIndex] = valueStart - recordStart;
      ranges[offset + 2 * fieldIndex + 1] = position - recordStart;
      if (spanStart < 0) spanStart = keyStart;
      spanEnd = position;
    }
    expect = Expect.CommaOrClose;
  }
  return pageRecords(expect, roles[1]!, records, position);
}

/** The scan's verdict once the bytes ran out; apart from the loop so the loop's optimised code never meets it. */
function pageRecords<Name extends string>(
  expect: Expect,
  outermost: Role,
  records: ScannedRecord<Name>[] | undefined,
  end: number,
): ScannedRecord<Name>[] {
  if (expect !== Expect.Nothing) throw invalid("unexpected end of the document", end);
  if (outermost !== Role.Page) throw new PollError("schema", "page is not a JSON object");
  if (records === undefined) throw new PollError("schema", "page has no _embedded.records array");
  return records;
}

/** Per record in a memo, as doubles: the hash of its bytes, the hash of its key's value, its fingerprint. */
const HASHES = 3;

/**
 * Records as a memo keeps them: their hashes (53-bit, so doubles) apart from their length and
 * field ranges (32-bit integers), which take half the room of doubles: ten thousand pools' entries
 * fit in 1 MB.
 */
class MemoEntries {
  readonly hashes: Float64Array;
  /** Per record: its length, then its ranges (see ScannedRecord). */
  readonly layout: Int32Array;

  constructor(
    readonly capacity: number,
    readonly layoutStride: number,
  ) {
    this.hashes = new Float64Array(capacity * HASHES);
    this.layout = new Int32Array(capacity * layoutStride);
  }

  /** These entries in twice the room. */
  larger(): MemoEntries {
    const larger = new MemoEntries(2 * this.capacity, this.layoutStride);
    larger.hashes.set(this.hashes);
    larger.layout.set(this.layout);
    return larger;
  }
}

/**
 * What the last complete poll's scan saw of each record, in page order, and what the running
 * poll's scan sees. A record sent again byte for byte is recognised by the hash of its bytes, a
 * fraction of the cost of scanning them, and takes its field ranges and fingerprint from here.
 * The record expected next is tried first, then the one after it (its predecessor was removed);
 * after a record that had to be scanned, the next one expected is the one after the last poll's
 * record of the same key (the same pool, changed), so pools added or removed upstream cost a
 * lookup, not the memo's use for the rest of the poll.
 */
export class ScanMemo<Name extends string = string> {
  private readonly layoutStride: number;
  private readonly keyField: number;
  /** What a poll that noted no record leaves behind. */
  private readonly none: MemoEntries;
  private previous: MemoEntries;
  private previousCount = 0;
  /** Made at the running poll's first entry, at the last poll's size: beginning costs nothing. */
  private current: MemoEntries | undefined;
  private count = 0;
  private expected = 0;
  /** Positions in `previous` by key hash, made only when a record is not where it was. */
  private positions: Map<number, number> | undefined;

  constructor(
    private readonly fields: RecordFields<Name>,
    key: Name,
  ) {
    this.layoutStride = 1 + 2 * fields.names.length;
    this.keyField = fields.names.indexOf(key);
    this.none = new MemoEntries(0, this.layoutStride);
    this.previous = this.none;
  }

  /** Starts a poll: what it notes replaces the last poll's records only once it completes. */
  begin(): void {
    this.current = undefined;
    this.count = 0;
    this.expected = 0;
  }

  complete(): void {
    this.previous = this.current ?? this.none;
    this.previousCount = this.count;
    this.positions = undefined;
    this.begin();
  }

  mark(): readonly [number, number] {
    return [this.count, this.expected];
  }

  rollback([count, expected]: readonly [number, number]): void {
    this.count = count;
    this.expected = expected;
  }

  /**
   * When the bytes from `start` on are a record the last poll saw, that record (added to `into`)
   * and where it ends; else -1.
   */
  recall(bytes: Buffer, view: DataView, start: number, into: ScannedRecord<Name>[]): number {
    const { hashes, layout } = this.previous;
    const stride = this.layoutStride;
    const last = Math.min(this.expected + 2, this.previousCount);
    for (let candidate = this.expected; candidate < last; candidate += 1) {
      const end = start + layout[candidate * stride]!;
      if (
        end > bytes.length ||
        bytes[end - 1] !== CLOSE_BRACE ||
        hashBytes(view, start, end) !== hashes[candidate * HASHES]
      )
        continue;
      into.push(
        new ScannedRecord(
          bytes,
          start,
          layout,
          candidate * stride + 1,
          this.fields,
          true,
          hashes[candidate * HASHES + 2]!,
        ),
      );
      // Copied by hand, as below: a typed array's subarray per record would be ten thousand objects a poll.
      const to = this.nextEntry();
      const target = this.current!;
      for (let index = 0; index < HASHES; index += 1)
        target.hashes[to * HASHES + index] = hashes[candidate * HASHES + index]!;
      for (let index = 0; index < stride; index += 1)
        target.layout[to * stride + index] = layout[candidate * stride + index]!;
      this.expected = candidate + 1;
      return end;
    }
    return -1;
  }

  /** A record scanned in full, bytes[start, end), with its ranges (relative to `start`) from `offset`. */
  note(view: DataView, start: number, end: number, ranges: Int32Array, offset: number, fingerprint: number): void {
    const keyStart = ranges[offset + 2 * this.keyField]!;
    const key = keyStart < 0 ? -1 : hashBytes(view, start + keyStart, start + ranges[offset + 2 * this.keyField + 1]!);
    const to = this.nextEntry();
    const { hashes, layout } = this.current!;
    const stride = this.layoutStride;
    hashes[to * HASHES] = hashBytes(view, start, end);
    hashes[to * HASHES + 1] = key;
    hashes[to * HASHES + 2] = fingerprint;
    layout[to * stride] = end - start;
    for (let index = 1; index < stride; index += 1) layout[to * stride + index] = ranges[offset + index - 1]!;
    if (this.expected < this.previousCount && this.previous.hashes[this.expected * HASHES + 1] === key) {
      this.expected += 1;
    } else {
      const position = key < 0 ? undefined : this.positionOf(key);
      if (position !== undefined) this.expected = position + 1;
    }
  }

  /** The index of the running poll's next entry. */
  private nextEntry(): number {
    if (this.current === undefined) this.current = new MemoEntries(this.previousCount + 64, this.layoutStride);
    else if (this.count === this.current.capacity) this.current = this.current.larger();
    return this.count++;
  }

  private positionOf(key: number): number | undefined {
    if (this.positions === undefined) {
      this.positions = new Map();
      for (let index = this.previousCount - 1; index >= 0; index -= 1)
        this.positions.set(this.previous.hashes[index * HASHES + 1]!, index);
    }
    return this.positions.get(key);
  }
}
