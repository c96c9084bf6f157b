/**
 * Reads a getLedgerEntries response straight from its bytes. Parsed, a response of 200 entries is
 * 200 objects and 400 strings, copied again by zod, that are garbage a moment later, most of a
 * large watch's poll (docs/performance.md). Scanned, an entry is a few numbers until what keeps
 * it asks for its `xdr`, and an `xdr` the same as the last poll's is compared, not copied.
 *
 * The scanner reads only the plain shape stellar-rpc sends: a JSON-RPC 2.0 response with a
 * `result` of `entries` (each with a non-empty `key` and `xdr` in printable ASCII without escapes,
 * and integer ledger numbers written as plain digits) and `latestLedger`. Anything else, however
 * slight (an `error`, a repeated field, an escape in a name, a number written `1e3`, invalid JSON),
 * it declines, and the response is parsed and validated with zod as any other: a scan never gives a
 * result, or an error, that JSON.parse and the schemas would not. Every entry is read: an entry is
 * never taken for the last poll's by a hash of its bytes, which a changed entry may share.
 */
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  escapeLength,
  FALSE,
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
import { PreparedCall } from "./rpc-client.js";

/** What a scan throws inside itself when it declines a body; caught where the scan starts, never further. */
const DECLINED = new Error("not the plain getLedgerEntries shape");

/** Integers of up to 15 digits are exact in a double and within zod's safe-integer check; longer ones are declined. */
const MAX_DIGITS = 15;
/** The bytes of JSON's numbers. */
const ZERO = 0x30,
  NINE = 0x39,
  MINUS = 0x2d,
  PLUS = 0x2b,
  DOT = 0x2e,
  LOWER_E = 0x65,
  UPPER_E = 0x45;

const JSONRPC = Buffer.from("jsonrpc");
const VERSION = Buffer.from("2.0");
const ID = Buffer.from("id");
const RESULT = Buffer.from("result");
const ERROR = Buffer.from("error");
const ENTRIES = Buffer.from("entries");
const LATEST_LEDGER = Buffer.from("latestLedger");
const KEY = Buffer.from("key");
const XDR = Buffer.from("xdr");
const LAST_MODIFIED = Buffer.from("lastModifiedLedgerSeq");
const LIVE_UNTIL = Buffer.from("liveUntilLedgerSeq");

/** True when bytes[start, end) are the characters of `text` (printable ASCII, as keys and xdr are). */
function bytesAre(bytes: Buffer, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let index = 0; index < text.length; index += 1)
    if (bytes[start + index] !== text.charCodeAt(index)) return false;
  return true;
}

/**
 * The distinct keys of a read, with the calls that ask for them and what the last scan of each
 * call's response saw. A key in a response is found by its place after the last key found
 * (stellar-rpc answers in the order asked), compared byte for byte, else by its text.
 */
export class RequestedKeys {
  /** The keys in the order first asked for, duplicates left out. */
  readonly keys: readonly string[];
  /** The getLedgerEntries calls that ask for them, MAX_KEYS_PER_CALL keys apiece, made once. */
  readonly calls: readonly PreparedCall[];
  /** What the last scan of each call's response saw, by call. */
  readonly memos: readonly CallMemo[];
  /** Where each key stands first in the list read. */
  readonly positions: readonly number[];
  private readonly byText: ReadonlyMap<string, number>;

  constructor(keys: readonly string[], keysPerCall: number) {
    const byText = new Map<string, number>();
    const positions: number[] = [];
    for (const [position, key] of keys.entries()) {
      if (byText.has(key)) continue;
      byText.set(key, byText.size);
      positions.push(position);
    }
    this.byText = byText;
    this.positions = positions;
    this.keys = [...byText.keys()];
    const calls: PreparedCall[] = [];
    const memos: CallMemo[] = [];
    for (let start = 0; start < this.keys.length; start += keysPerCall) {
      const chunk = this.keys.slice(start, start + keysPerCall);
      calls.push(new PreparedCall("getLedgerEntries", { keys: chunk }));
      memos.push(new CallMemo(chunk.length));
    }
    this.calls = calls;
    this.memos = memos;
  }

  /** The index of the key whose text is `key`, or -1 when it was not asked for. */
  indexOfText(key: string): number {
    return this.byText.get(key) ?? -1;
  }

  /**
   * The index of the key written in bytes[start, end) (printable ASCII, as a scan reads a key), or
   * -1 when it was not asked for; `guess` is tried first, without making a string.
   */
  indexOfBytes(bytes: Buffer, start: number, end: number, guess: number): number {
    if (guess < this.keys.length && bytesAre(bytes, start, end, this.keys[guess]!)) return guess;
    return this.indexOfText(bytes.toString("latin1", start, end));
  }
}

/** Per entry in a CallMemo's layout: its key's index, and its xdr's start and end in the body. */
const LAYOUT = 3;

/**
 * The entries of one call's response as its last scan noted them, in the order sent: room made
 * once per call and used again by each scan, not made per response.
 */
class CallMemo {
  count = 0;
  layout: Int32Array;
  /** Per entry, lastModifiedLedgerSeq and liveUntilLedgerSeq (-1 when absent); beyond 32 bits, so doubles. */
  ledgers: Float64Array;
  /** Scans begun so far: a scan's entries are read before the next scan of the call overwrites them. */
  scans = 0;

  constructor(
    /**
     * Keys the call asks for: the most entries of asked-for keys a response holds. One with more
     * (an entry repeated) is not scanned but parsed, so a response cannot grow the room held
     * between polls beyond the keys.
     */
    readonly keys: number,
  ) {
    const capacity = Math.min(keys, 256);
    this.layout = new Int32Array(capacity * LAYOUT);
    this.ledgers = new Float64Array(capacity * 2);
  }

  /** Empties the room for a new scan. */
  begin(): void {
    this.count = 0;
    this.scans += 1;
  }

  /** The index of a new entry at the end, the room doubled when full. */
  add(): number {
    if (this.count * LAYOUT === this.layout.length) {
      const capacity = Math.max(64, 2 * this.count);
      const layout = new Int32Array(capacity * LAYOUT);
      const ledgers = new Float64Array(capacity * 2);
      layout.set(this.layout);
      ledgers.set(this.ledgers);
      [this.layout, this.ledgers] = [layout, ledgers];
    }
    return this.count++;
  }
}

/**
 * A scanned response's entries under keys asked for, in the order sent (the others were checked
 * as strictly and left out). Read at once: the next scan of the same call replaces them.
 */
export class ScannedLedgerEntries {
  readonly count: number;
  private readonly scan: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly keys: RequestedKeys,
    private readonly memo: CallMemo,
    readonly latestLedger: number,
  ) {
    this.count = memo.count;
    this.scan = memo.scans;
  }

  /** The index of entry `entry`'s key (from 0, below `count`), shown by `view`. */
  show(entry: number, view: ScannedEntryView): number {
    if (this.memo.scans !== this.scan)
      throw new Error("a scanned response was read after the next scan of the same call");
    const { layout, ledgers } = this.memo;
    const index = layout[entry * LAYOUT]!;
    const liveUntil = ledgers[2 * entry + 1]!;
    view.key = this.keys.keys[index]!;
    view.lastModifiedLedgerSeq = ledgers[2 * entry]!;
    view.liveUntilLedgerSeq = liveUntil < 0 ? undefined : liveUntil;
    view.bytes = this.bytes;
    view.start = layout[entry * LAYOUT + 1]!;
    view.end = layout[entry * LAYOUT + 2]!;
    return index;
  }
}

const EMPTY = Buffer.alloc(0);

/** One scanned entry as a read's `keep` sees it; one view serves every entry of a response in turn. */
export class ScannedEntryView {
  lastModifiedLedgerSeq = 0;
  liveUntilLedgerSeq: number | undefined = undefined;
  key = "";
  bytes: Buffer = EMPTY;
  start = 0;
  end = 0;

  /** The entry's base64 XDR: `previous` itself when the entry's is the same text, else the entry's own string. */
  xdr(previous?: string): string {
    if (previous !== undefined && bytesAre(this.bytes, this.start, this.end, previous)) return previous;
    // Printable ASCII only (the scan declines anything else), so latin1 reads it as UTF-8 would.
    return this.bytes.toString("latin1", this.start, this.end);
  }
}

/**
 * The entries of a getLedgerEntries response body under `keys`, or undefined when the body is not
 * the plain shape this scanner reads (then JSON.parse and the schemas decide what it is).
 */
export function scanLedgerEntries(body: Buffer, keys: RequestedKeys, call: number): ScannedLedgerEntries | undefined {
  const memo = keys.memos[call];
  if (memo === undefined) return undefined;
  try {
    return new LedgerEntriesScan(body, keys, memo).response();
  } catch (error) {
    if (error === DECLINED) return undefined;
    throw error;
  }
}

/** One scan of one body: a reader of JSON from bytes, declining at the first thing outside the plain shape. */
class LedgerEntriesScan {
  private position = 0;
  /** The key index after the last key found: the next entry's key, when the RPC answers in the order asked. */
  private guess = 0;
  /** Where the contents of the last plain string read start. */
  private stringStart = 0;
  /** The last member name read: bytes[nameStart, nameEnd). */
  private nameStart = 0;
  private nameEnd = 0;
  private readonly kinds = new Uint8Array(MAX_DEPTH);

  constructor(
    private readonly bytes: Buffer,
    private readonly keys: RequestedKeys,
    private readonly memo: CallMemo,
  ) {
    memo.begin();
  }

  response(): ScannedLedgerEntries {
    let seen = 0,
      latestLedger = -1;
    this.open(OPEN_BRACE);
    for (let first = true; this.member(first); first = false) {
      if (this.nameIs(JSONRPC)) {
        seen = once(seen, 1);
        const end = this.plainString();
        if (!keyIs(this.bytes, this.stringStart, end, VERSION)) throw DECLINED;
      } else if (this.nameIs(ID)) {
        seen = once(seen, 2);
        const byte = this.next();
        if (byte === QUOTE) this.string(false);
        else if (byte === NULL[0]) this.literal(NULL);
        else this.integer();
      } else if (this.nameIs(RESULT)) {
        seen = once(seen, 4);
        latestLedger = this.result();
      } else if (this.nameIs(ERROR)) {
        throw DECLINED;
      } else {
        this.skipValue();
      }
    }
    if (seen !== 7) throw DECLINED;
    this.end();
    return new ScannedLedgerEntries(this.bytes, this.keys, this.memo, latestLedger);
  }

  /** getLedgerEntries' result; its latestLedger. */
  private result(): number {
    let seen = 0,
      latestLedger = -1;
    this.open(OPEN_BRACE);
    for (let first = true; this.member(first); first = false) {
      if (this.nameIs(ENTRIES)) {
        seen = once(seen, 1);
        this.entries();
      } else if (this.nameIs(LATEST_LEDGER)) {
        seen = once(seen, 2);
        latestLedger = this.integer();
      } else {
        this.skipValue();
      }
    }
    if (seen !== 3) throw DECLINED;
    return latestLedger;
  }

  private entries(): void {
    this.open(OPEN_BRACKET);
    if (this.next() === CLOSE_BRACKET) {
      this.position += 1;
      return;
    }
    for (;;) {
      if (this.next() !== OPEN_BRACE) throw DECLINED;
      this.entry();
      const byte = this.next();
      this.position += 1;
      if (byte === CLOSE_BRACKET) return;
      if (byte !== COMMA) throw DECLINED;
    }
  }

  /** An entry read in full, and noted when its key was asked for (the others are only checked). */
  private entry(): void {
    let seen = 0;
    let keyStart = 0,
      keyEnd = 0,
      xdrStart = 0,
      xdrEnd = 0;
    let lastModified = 0,
      liveUntil = -1;
    this.open(OPEN_BRACE);
    for (let first = true; this.member(first); first = false) {
      if (this.nameIs(KEY)) {
        seen = once(seen, 1);
        keyEnd = this.plainString();
        keyStart = this.stringStart;
      } else if (this.nameIs(XDR)) {
        seen = once(seen, 2);
        xdrEnd = this.plainString();
        xdrStart = this.stringStart;
      } else if (this.nameIs(LAST_MODIFIED)) {
        seen = once(seen, 4);
        lastModified = this.integer();
      } else if (this.nameIs(LIVE_UNTIL)) {
        seen = once(seen, 8);
        liveUntil = this.integer();
      } else {
        this.skipValue();
      }
    }
    // key, xdr and lastModifiedLedgerSeq are required, and the strings are not empty.
    if ((seen & 7) !== 7 || keyEnd === keyStart || xdrEnd === xdrStart) throw DECLINED;
    const index = this.keys.indexOfBytes(this.bytes, keyStart, keyEnd, this.guess);
    if (index < 0) return;
    this.guess = index + 1;
    const { memo } = this;
    // Declined beyond the call's keys.
    if (memo.count === memo.keys) throw DECLINED;
    const entry = memo.add();
    memo.layout.set([index, xdrStart, xdrEnd], entry * LAYOUT);
    memo.ledgers[2 * entry] = lastModified;
    memo.ledgers[2 * entry + 1] = liveUntil;
  }

  /** The next byte that is not whitespace, without passing it; declined at the end of the body. */
  private next(): number {
    const { bytes } = this;
    let position = this.position;
    while (position < bytes.length) {
      const byte = bytes[position]!;
      if (byte !== SPACE && byte !== LINE_FEED && byte !== CARRIAGE_RETURN && byte !== TAB) {
        this.position = position;
        return byte;
      }
      position += 1;
    }
    throw DECLINED;
  }

  /** Passes the `{` or `[` that must come next. */
  private open(byte: number): void {
    if (this.next() !== byte) throw DECLINED;
    this.position += 1;
  }

  /**
   * Inside an object, after its `{` (`first`) or after a member's value: true with the next
   * member's name read and its colon passed, false with the `}` passed. A name with an escape is
   * declined: JSON.parse would read it as another name than its bytes.
   */
  private member(first: boolean): boolean {
    let byte = this.next();
    if (byte === CLOSE_BRACE) {
      this.position += 1;
      return false;
    }
    if (!first) {
      if (byte !== COMMA) throw DECLINED;
      this.position += 1;
      byte = this.next();
    }
    if (byte !== QUOTE) throw DECLINED;
    this.nameStart = this.position + 1;
    this.nameEnd = this.string(true);
    if (this.next() !== COLON) throw DECLINED;
    this.position += 1;
    return true;
  }

  private nameIs(name: Buffer): boolean {
    return keyIs(this.bytes, this.nameStart, this.nameEnd, name);
  }

  /**
   * The string whose `"` is at the position: where its contents end (its closing quote), the
   * position passed it. `plain` strings (names, key, xdr, the version) must be printable ASCII
   * without escapes; others are checked as JSON strings (escapes, no control characters).
   */
  private string(plain: boolean): number {
    const { bytes } = this;
    const length = bytes.length;
    let position = this.position + 1;
    for (;;) {
      let byte = 0;
      while (
        position < length &&
        (byte = bytes[position]!) >= SPACE &&
        byte < 0x80 &&
        byte !== QUOTE &&
        byte !== BACKSLASH
      )
        position += 1;
      if (position >= length) throw DECLINED;
      if (byte === QUOTE) {
        this.position = position + 1;
        return position;
      }
      if (plain || byte < SPACE) throw DECLINED;
      if (byte === BACKSLASH) {
        const step = escapeLength(bytes, position);
        if (step === 0) throw DECLINED;
        position += step;
      } else {
        // UTF-8 beyond ASCII: JSON.parse reads the body decoded, and no such byte ends a string.
        position += 1;
      }
    }
  }

  /** A string that must be plain (see `string`): where its contents end; they start at `stringStart`. */
  private plainString(): number {
    if (this.next() !== QUOTE) throw DECLINED;
    this.stringStart = this.position + 1;
    return this.string(true);
  }

  /** A non-negative integer written as plain digits (no sign, fraction or exponent), at most 15 of them. */
  private integer(): number {
    const { bytes } = this;
    this.next();
    const start = this.position;
    let position = start;
    let value = 0;
    let byte = 0;
    while (position < bytes.length && (byte = bytes[position]!) >= ZERO && byte <= NINE) {
      value = 10 * value + (byte - ZERO);
      position += 1;
    }
    const digits = position - start;
    if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && bytes[start] === ZERO)) throw DECLINED;
    if (position < bytes.length && (byte === DOT || byte === LOWER_E || byte === UPPER_E)) throw DECLINED;
    this.position = position;
    return value;
  }

  /** A JSON number, checked against JSON's grammar and passed. */
  private number(): void {
    const { bytes } = this;
    let position = this.position;
    const digits = () => {
      const start = position;
      while (position < bytes.length && bytes[position]! >= ZERO && bytes[position]! <= NINE) position += 1;
      if (position === start) throw DECLINED;
    };
    if (bytes[position] === MINUS) position += 1;
    if (bytes[position] === ZERO) position += 1;
    else digits();
    if (bytes[position] === DOT) {
      position += 1;
      digits();
    }
    if (bytes[position] === LOWER_E || bytes[position] === UPPER_E) {
      position += 1;
      if (bytes[position] === PLUS || bytes[position] === MINUS) position += 1;
      digits();
    }
    this.position = position;
  }

  private literal(word: Buffer): void {
    const end = this.position + word.length;
    if (end > this.bytes.length || this.bytes.compare(word, 0, word.length, this.position, end) !== 0) throw DECLINED;
    this.position = end;
  }

  /** Passes a value the scan does not use, checking it is JSON; its member names are not compared, so escapes in them are fine. */
  private skipValue(): void {
    const { kinds } = this;
    let depth = 0;
    for (;;) {
      // A value starts here.
      const byte = this.next();
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (depth === MAX_DEPTH) throw DECLINED;
        kinds[depth] = byte;
        depth += 1;
        this.position += 1;
        const close = byte === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        if (this.next() === close) {
          this.position += 1;
          depth -= 1;
        } else {
          if (byte === OPEN_BRACE) this.skipName();
          continue;
        }
      } else if (byte === QUOTE) {
        this.string(false);
      } else if (byte === TRUE[0]) {
        this.literal(TRUE);
      } else if (byte === FALSE[0]) {
        this.literal(FALSE);
      } else if (byte === NULL[0]) {
        this.literal(NULL);
      } else {
        this.number();
      }
      // A value ended: close what it ends, or go on to the next value of its container.
      for (;;) {
        if (depth === 0) return;
        const container = kinds[depth - 1]!;
        const after = this.next();
        this.position += 1;
        if (after === COMMA) {
          if (container === OPEN_BRACE) this.skipName();
          break;
        }
        if (after !== (container === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) throw DECLINED;
        depth -= 1;
      }
    }
  }

  /** A member name in a skipped object, and its colon. */
  private skipName(): void {
    if (this.next() !== QUOTE) throw DECLINED;
    this.string(false);
    if (this.next() !== COLON) throw DECLINED;
    this.position += 1;
  }

  /** Only whitespace may follow the response. */
  private end(): void {
    const { bytes } = this;
    for (let position = this.position; position < bytes.length; position += 1) {
      const byte = bytes[position]!;
      if (byte !== SPACE && byte !== LINE_FEED && byte !== CARRIAGE_RETURN && byte !== TAB) throw DECLINED;
    }
  }
}

/** `seen` with `flag` added; a field seen before is declined (JSON.parse keeps the last of repeated names). */
function once(seen: number, flag: number): number {
  if ((seen & flag) !== 0) throw DECLINED;
  return seen | flag;
}
