/**
 * Deterministic randomness. Every random choice the simulator makes comes from
 * a seeded stream, so a run with the same seed, clock and requests repeats exactly.
 */

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform unsigned 32-bit integer. */
  nextUint32(): number;
  /** Uniform float in [min, max). */
  between(min: number, max: number): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  fill(bytes: Uint8Array): Uint8Array;
}

/** mulberry32: tiny, fast and good enough for simulation (not for cryptography). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const nextUint32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const next = (): number => nextUint32() / 4294967296;
  return {
    next,
    nextUint32,
    between: (min, max) => min + next() * (max - min),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new RangeError("pick() needs at least one item");
      return item;
    },
    fill(bytes) {
      for (let offset = 0; offset < bytes.length; offset += 4) {
        let word = nextUint32();
        for (let i = offset; i < Math.min(offset + 4, bytes.length); i++) {
          bytes[i] = word & 0xff;
          word >>>= 8;
        }
      }
      return bytes;
    },
  };
}

/**
 * Stateless hash of integers to [0, 1). Used where a value must be a pure function
 * of its coordinates (pool walks), so it can be computed lazily in any order.
 */
export function hashToUnit(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    // Numbers above 2^32 (ledger-scale products) would lose their high bits in `>>> 0`.
    h = Math.imul(h ^ Math.floor(part / 4294967296), 0x27d4eb2f);
  }
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

/** Seed for an independent stream, so e.g. HTTP faults never perturb ledger contents. */
export function deriveSeed(seed: number, stream: number): number {
  return Math.floor(hashToUnit(seed, stream, 0x5eed) * 4294967296);
}
