/** A non-negative rational number `numerator / denominator`, in exact integers. */
interface Rational {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** The exact value of a decimal string such as "105443902087.3472865". */
function decimalValue(text: string): Rational {
  const [whole, fraction = ""] = text.split(".");
  return { numerator: BigInt(`${whole}${fraction}`), denominator: 10n ** BigInt(fraction.length) };
}

/** The exact binary value of a finite positive double, and the spacing (ulp) of doubles around it. */
function doubleValue(value: number): { exact: Rational; ulp: Rational } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const mantissa = (bits & ((1n << 52n) - 1n)) | (exponentBits === 0 ? 0n : 1n << 52n);
  const exponent = BigInt(Math.max(exponentBits, 1) - 1075);
  const scale = (power: bigint): Rational =>
    power >= 0n ? { numerator: 1n << power, denominator: 1n } : { numerator: 1n, denominator: 1n << -power };
  const unit = scale(exponent);
  return { exact: { numerator: mantissa * unit.numerator, denominator: unit.denominator }, ulp: unit };
}

/**
 * True when `value` is the double nearest to the decimal string's exact value: within half an ulp,
 * compared in exact integer arithmetic, so a value that lost digits anywhere on the way fails.
 */
export function isNearestDouble(value: number, decimal: string): boolean {
  if (!(value > 0) || !Number.isFinite(value)) return false;
  const { exact, ulp } = doubleValue(value);
  const target = decimalValue(decimal);
  // |exact - target| * 2 <= ulp, all over the common denominator.
  const difference = exact.numerator * target.denominator - target.numerator * exact.denominator;
  const absolute = difference < 0n ? -difference : difference;
  return absolute * 2n * ulp.denominator <= ulp.numerator * exact.denominator * target.denominator;
}
