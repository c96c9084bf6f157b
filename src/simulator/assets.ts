/**
 * Stellar assets as Horizon names them (`native`, `CODE:ISSUER`), with the
 * StrKey account encoding and the XDR needed to derive real liquidity pool ids.
 */

export type Asset =
  | { readonly kind: "native" }
  | { readonly kind: "credit"; readonly code: string; readonly issuer: Uint8Array };

export const NATIVE: Asset = { kind: "native" };

const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ACCOUNT_ID_VERSION_BYTE = 6 << 3; // encodes as a leading "G"
const ACCOUNT_ID_LENGTH = 56;
const VALID_ASSET_CODE = /^[a-zA-Z0-9]{1,12}$/;
const UTF8 = new TextEncoder();

function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

function base32Encode(bytes: Uint8Array): string {
  let output = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      output += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) output += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return output;
}

function base32Decode(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(bytes);
}

/** `G...` StrKey of an ed25519 public key. */
function encodeAccountId(publicKey: Uint8Array): string {
  const payload = new Uint8Array(35);
  payload[0] = ACCOUNT_ID_VERSION_BYTE;
  payload.set(publicKey, 1);
  const checksum = crc16Xmodem(payload.subarray(0, 33));
  payload[33] = checksum & 0xff;
  payload[34] = checksum >>> 8;
  return base32Encode(payload);
}

/** The public key behind a `G...` StrKey, or undefined when it is not a valid account id. */
function decodeAccountId(accountId: string): Uint8Array | undefined {
  if (accountId.length !== ACCOUNT_ID_LENGTH) return undefined;
  const payload = base32Decode(accountId);
  if (payload?.length !== 35 || payload[0] !== ACCOUNT_ID_VERSION_BYTE) return undefined;
  const checksum = crc16Xmodem(payload.subarray(0, 33));
  if (payload[33] !== (checksum & 0xff) || payload[34] !== checksum >>> 8) return undefined;
  return payload.slice(1, 33);
}

/** Horizon's canonical asset string: `native` or `CODE:G...`. */
export function canonicalAsset(asset: Asset): string {
  return asset.kind === "native" ? "native" : `${asset.code}:${encodeAccountId(asset.issuer)}`;
}

/** Parses a canonical asset string the way Horizon's `?reserves=` validation does. */
export function parseCanonicalAsset(text: string): Asset | undefined {
  if (text === "native") return NATIVE;
  const parts = text.split(":");
  if (parts.length !== 2) return undefined;
  const [code = "", issuerId = ""] = parts;
  const issuer = decodeAccountId(issuerId);
  if (!VALID_ASSET_CODE.test(code) || issuer === undefined) return undefined;
  return { kind: "credit", code, issuer };
}

function assetTypeRank(asset: Asset): number {
  if (asset.kind === "native") return 0;
  return asset.code.length <= 4 ? 1 : 2;
}

function compareBytes(left: Uint8Array, right: Uint8Array): number {
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

function paddedCode(asset: Asset): Uint8Array {
  if (asset.kind === "native") return new Uint8Array(0);
  const padded = new Uint8Array(asset.code.length <= 4 ? 4 : 12);
  padded.set(UTF8.encode(asset.code));
  return padded;
}

/** The protocol's asset order (type, then code, then issuer): a pool's asset A sorts before asset B. */
export function compareAssets(left: Asset, right: Asset): number {
  const byType = assetTypeRank(left) - assetTypeRank(right);
  if (byType !== 0 || left.kind === "native" || right.kind === "native") return byType;
  return compareBytes(paddedCode(left), paddedCode(right)) || compareBytes(left.issuer, right.issuer);
}

/** XDR `Asset` union. */
export function assetXdr(asset: Asset): Uint8Array {
  if (asset.kind === "native") return new Uint8Array(4);
  const code = paddedCode(asset);
  const xdr = new Uint8Array(4 + code.length + 4 + 32);
  const view = new DataView(xdr.buffer);
  view.setUint32(0, assetTypeRank(asset));
  xdr.set(code, 4);
  // AccountID is a PublicKey union whose ed25519 arm is 0, already zero-filled.
  xdr.set(asset.issuer, 4 + code.length + 4);
  return xdr;
}
