/**
 * A real XDR `LedgerHeader`, so `header_xdr` decodes with any Stellar SDK and the
 * ledger hash is what the network defines it to be: SHA-256 of the header XDR.
 */

import { createHash } from "node:crypto";

export interface LedgerHeaderFields {
  protocolVersion: number;
  previousLedgerHash: Uint8Array;
  txSetHash: Uint8Array;
  closeTimeSeconds: number;
  validatorKey: Uint8Array;
  validatorSignature: Uint8Array;
  txSetResultHash: Uint8Array;
  bucketListHash: Uint8Array;
  sequence: number;
  totalCoins: bigint;
  feePool: bigint;
  inflationSequence: number;
  idPool: bigint;
  baseFee: number;
  baseReserve: number;
  maxTxSetSize: number;
  skipList: readonly [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
}

const HASH_BYTES = 32;
const SIGNATURE_BYTES = 64;
const STELLAR_VALUE_SIGNED = 1;
// Mainnet headers carry a signed StellarValue: 428 bytes, 572 characters of base64.
const HEADER_BYTES =
  4 +
  HASH_BYTES +
  (HASH_BYTES + 8 + 4 + 4 + 4 + HASH_BYTES + 4 + SIGNATURE_BYTES) +
  2 * HASH_BYTES +
  4 +
  8 +
  8 +
  4 +
  8 +
  4 +
  4 +
  4 +
  4 * HASH_BYTES +
  4;

export interface EncodedLedgerHeader {
  xdr: Buffer;
  hash: Buffer;
}

export function encodeLedgerHeader(fields: LedgerHeaderFields): EncodedLedgerHeader {
  const xdr = Buffer.alloc(HEADER_BYTES);
  let offset = 0;
  const uint32 = (value: number): void => {
    offset = xdr.writeUInt32BE(value, offset);
  };
  const uint64 = (value: bigint): void => {
    offset = xdr.writeBigUInt64BE(value, offset);
  };
  const int64 = (value: bigint): void => {
    offset = xdr.writeBigInt64BE(value, offset);
  };
  const bytes = (value: Uint8Array): void => {
    xdr.set(value, offset);
    offset += value.length;
  };

  uint32(fields.protocolVersion);
  bytes(fields.previousLedgerHash);
  // StellarValue
  bytes(fields.txSetHash);
  uint64(BigInt(fields.closeTimeSeconds));
  uint32(0); // no upgrades
  uint32(STELLAR_VALUE_SIGNED);
  uint32(0); // PUBLIC_KEY_TYPE_ED25519
  bytes(fields.validatorKey);
  uint32(SIGNATURE_BYTES);
  bytes(fields.validatorSignature);
  // rest of LedgerHeader
  bytes(fields.txSetResultHash);
  bytes(fields.bucketListHash);
  uint32(fields.sequence);
  int64(fields.totalCoins);
  int64(fields.feePool);
  uint32(fields.inflationSequence);
  uint64(fields.idPool);
  uint32(fields.baseFee);
  uint32(fields.baseReserve);
  uint32(fields.maxTxSetSize);
  for (const skip of fields.skipList) bytes(skip);
  uint32(0); // ext v0

  return { xdr, hash: createHash("sha256").update(xdr).digest() };
}
