/**
 * Byte-level details of Horizon's wire format (Go's encoders), so simulator
 * output is indistinguishable from a real Horizon response.
 */

const GO_HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * Go's `json.MarshalIndent(v, "", "  ")`: two-space indent, HTML characters escaped
 * (Horizon's templated links contain `&`, sent as `\u0026`), no trailing newline.
 * These characters never occur outside strings in JSON, so a textual replace is exact.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[<>&\u2028\u2029]/g, (char) => GO_HTML_ESCAPES[char] ?? char);
}

const STROOPS_PER_UNIT = 10_000_000n;

/** Stellar amount string with exactly seven decimals, e.g. `"4761068.4157944"`. */
export function formatAmount(stroops: bigint | number): string {
  const value = BigInt(stroops);
  const sign = value < 0n ? "-" : "";
  const magnitude = value < 0n ? -value : value;
  const units = magnitude / STROOPS_PER_UNIT;
  const fraction = (magnitude % STROOPS_PER_UNIT).toString().padStart(7, "0");
  return `${sign}${units}.${fraction}`;
}

/** RFC 3339 in UTC at second precision, as Go renders Horizon's timestamps: `2024-07-05T00:33:24Z`. */
export function formatTimestamp(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Go's `url.QueryEscape`: only `A-Z a-z 0-9 - _ . ~` stay literal and a space becomes `+`. */
function goQueryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** Go's `url.Values.Encode`: keys sorted, every value escaped, repeated keys kept in order. */
export function goEncodeQuery(params: ReadonlyMap<string, readonly string[]>): string {
  return [...params.keys()]
    .sort()
    .flatMap((key) => (params.get(key) ?? []).map((value) => `${goQueryEscape(key)}=${goQueryEscape(value)}`))
    .join("&");
}

/** `native` or `CODE:ISSUER` as Horizon's asset fields, their names after `prefix` (a trade's `base_`). */
export function assetFields(asset: string, prefix = ""): Record<string, string> {
  if (asset === "native") return { [`${prefix}asset_type`]: "native" };
  const [code = "", issuer = ""] = asset.split(":");
  return {
    [`${prefix}asset_type`]: code.length <= 4 ? "credit_alphanum4" : "credit_alphanum12",
    [`${prefix}asset_code`]: code,
    [`${prefix}asset_issuer`]: issuer,
  };
}
