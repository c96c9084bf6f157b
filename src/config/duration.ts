import { z } from "zod";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^((\d+)(ms|s|m|h|d))+$/;
const PART = /(\d+)(ms|s|m|h|d)/g;

/** Parses Prometheus-style durations: `500ms`, `15s`, `1m30s`, `2h`. Undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) total += Number(amount) * (UNIT_MS[unit ?? ""] ?? 0);
  return total;
}

/** A duration in a config file of at least `minMs`, read in units of `unitMs`; `error(text)` when it is not one. */
export const durationText = (minMs: number, unitMs: number, error: (text: string) => string, text = z.string()) =>
  text.transform((value, ctx) => {
    const ms = parseDuration(value) ?? 0;
    if (ms >= minMs) return ms / unitMs;
    ctx.issues.push({ code: "custom", message: error(value), input: value });
    return z.NEVER;
  });
export const secondsText = (error: string) => durationText(1_000, 1_000, () => error);

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 2 ** 20, gib: 2 ** 30 };

/** Parses byte sizes: `8MiB`, `512kB`, `1048576`. Undefined when malformed. */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = SIZE_UNITS[(match?.[2] || "b").toLowerCase()];
  if (!match || unit === undefined) return undefined;
  return Number(match[1]) * unit;
}
