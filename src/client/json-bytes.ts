/**
 * What the scanners that read JSON responses straight from their bytes share (Horizon's pages in
 * page-scan.ts, Stellar RPC's getLedgerEntries in ledger-entries-scan.ts): JSON's structural bytes,
 * what may follow a backslash, and a hash of a span of bytes.
 */

/** JSON's whitespace. */
export const SPACE = 0x20,
  TAB = 0x09,
  LINE_FEED = 0x0a,
  CARRIAGE_RETURN = 0x0d;
/** JSON's structure, and the escape of a code unit. */
export const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a,
  LOWER_U = 0x75;
export const OPEN_BRACE = 0x7b,
  CLOSE_BRACE = 0x7d,
  OPEN_BRACKET = 0x5b,
  CLOSE_BRACKET = 0x5d;

export const TRUE = Buffer.from("true");
export const FALSE = Buffer.from("false");
export const NULL = Buffer.from("null");

/** Bytes allowed after a backslash in a string. */
const ESCAPABLE = new Uint8Array(256);
for (const character of '"\\/bfnrtu') ESCAPABLE[character.charCodeAt(0)] = 1;
const HEX_DIGITS = /^[0-9a-fA-F]{4}$/;

/** Nesting deeper than this in what a scanner skips is not followed (Horizon's records and RPC's responses nest a few levels). */
export const MAX_DEPTH = 64;

/** The length of the escape whose backslash is at `at` (2, or 6 for `\uXXXX`), or 0 when it is not a valid one. */
export function escapeLength(bytes: Buffer, at: number): number {
  const escaped = at + 1 < bytes.length ? bytes[at + 1]! : 0;
  if (ESCAPABLE[escaped] !== 1) return 0;
  if (escaped !== LOWER_U) return 2;
  return at + 6 <= bytes.length && HEX_DIGITS.test(bytes.toString("latin1", at + 2, at + 6)) ? 6 : 0;
}

/**
 * cyrb53 (bryc, public domain), fed four bytes a step: two 32-bit multiply-xor lanes, each taking
 * every little-endian word, mixed into 53 bits, the integers a double holds exactly. Both lanes
 * take every word, as cyrb53 does: a lane of its own per other word let two changed words in one
 * lane collide with a chance of 2^-32 instead of about 2^-53. Words are read at any offset (a
 * DataView reads unaligned words in one load), so a record hashes the same wherever it sits in
 * its page. In JavaScript, because a native hash costs more in its call than a few hundred bytes
 * cost here.
 */
export function hashBytes(view: DataView, start: number, end: number): number {
  let first = 0xdeadbeef ^ (end - start);
  let second = 0x41c6ce57 ^ (end - start);
  let position = start;
  for (const lastWord = end - 3; position < lastWord; position += 4) {
    const word = view.getInt32(position, true);
    first = Math.imul(first ^ word, 2654435761);
    second = Math.imul(second ^ word, 1597334677);
  }
  for (; position < end; position += 1) {
    const byte = view.getUint8(position);
    first = Math.imul(first ^ byte, 2654435761);
    second = Math.imul(second ^ byte, 1597334677);
  }
  first = Math.imul(first ^ (first >>> 16), 2246822507);
  first ^= Math.imul(second ^ (second >>> 13), 3266489909);
  second = Math.imul(second ^ (second >>> 16), 2246822507);
  second ^= Math.imul(first ^ (first >>> 13), 3266489909);
  return 4294967296 * (2097151 & second) + (first >>> 0);
}

/** Compared in JavaScript: keys are a few bytes, shorter than the cost of a call into native compare. */
export function keyIs(bytes: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false;
  for (let offset = 0; offset < name.length; offset += 1) if (bytes[start + offset] !== name[offset]) return false;
  return true;
}
