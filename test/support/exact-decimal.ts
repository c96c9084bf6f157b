/**
 * Exact arithmetic on float64 values, to prove a parsed amount is the float nearest to its decimal
 * text (not merely close to it).
 */

const SCALE_BITS = 1075n;

/** The exact value of a finite non-negative float, times 2^1075. */
function scaledFloat(value: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const exponent = (bits >> 52n) & 0x7ffn;
  const fraction = bits & ((1n << 52n) - 1n);
  // value = fraction × 2^-1074 for subnormals, (2^52 + fraction) × 2^(exponent - 1075) otherwise.
  return exponent === 0n ? fraction << 1n : (fraction | (1n << 52n)) << exponent;
}

function neighbour(value: number, step: 1n | -1n): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) + step);
  return view.getFloat64(0);
}

/** The exact value of a non-negative decimal string, times 2^1075 × 10^digits. */
function scaledDecimal(text: string, digits: number): bigint {
  const [units = "0", fraction = ""] = text.split(".");
  return BigInt(units + fraction.padEnd(digits, "0")) << SCALE_BITS;
}

/**
 * True when `value` is the float64 nearest to the decimal `text` (at most `digits` decimals):
 * the decimal lies within half a step of the value on either side.
 */
export function isNearestFloat(value: number, text: string, digits = 7): boolean {
  if (!(value >= 0) || !Number.isFinite(value)) return false;
  const power = 10n ** BigInt(digits);
  const exact = scaledDecimal(text, digits);
  const here = scaledFloat(value) * power;
  const below = value === 0 ? here : scaledFloat(neighbour(value, -1n)) * power;
  const above = scaledFloat(neighbour(value, 1n)) * power;
  // 2 × exact within [here + below, here + above] means exact is within the half-way points.
  return 2n * exact >= here + below && 2n * exact <= here + above;
}
