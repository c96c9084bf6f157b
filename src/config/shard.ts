/** Sharding a large watch list across replicas, as kube-state-metrics does; network-level series come from shard 0. */

export type Shard = { readonly index: number; readonly total: number };

export const WHOLE: Shard = { index: 0, total: 1 };

/** 32-bit FNV-1a of the UTF-8 bytes of `text`: stable across versions, platforms and replicas. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Whether this replica watches the account or contract with this StrKey (G… or C…). */
export function inShard(shard: Shard, strKey: string): boolean {
  return fnv1a32(strKey) % shard.total === shard.index;
}

/** `INDEX/TOTAL` as --shard and SHARD take it, or why it is not one. */
export function parseShard(text: string): Shard | string {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  const index = Number(match?.[1]);
  const total = Number(match?.[2]);
  if (!match || total < 1 || index >= total)
    return `"${text}" is not INDEX/TOTAL with 0 <= INDEX < TOTAL (e.g. 0/1, 1/3)`;
  return { index, total };
}
