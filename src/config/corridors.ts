/** Payment corridors (`corridors:`), checked: each is a path-finding request a run (/paths/strict-send or -receive). */
import { z } from "zod";
import { CODE_ISSUER, isNativeOrCredit } from "./accounts.js";
import { parseSchedule, shortestGapMs, type Schedule } from "./schedule.js";

/** Path finding is Horizon's most expensive endpoint: corridors run every 15 s at most, --poll.interval included. */
export const FASTEST_CORRIDORS = parseSchedule("15s") as Schedule;
/** Any two runs closer than 15 s, not only the next two: a cron pattern's verdict must not depend on the clock. */
export const tooFastForCorridors = (schedule: Schedule) => shortestGapMs(schedule) < FASTEST_CORRIDORS.periodMs;

const AMOUNT_PROBLEM = 'expected a positive amount with at most 7 decimals, such as 100 or "0.5"';
const AMOUNT_NOT_EXACT =
  'a YAML number this large is not read exactly: write the amount as a quoted string, e.g. "0.0000001"';

/** A YAML number's decimal text, as Horizon is sent it: String() writes one stroop as 1e-7, and a float64 keeps about
 * 16 digits. Below 1e8 it tells 7-decimal amounts apart, so toFixed(7) gives back the one written; an integer is exact
 * to 2^53; any other number is refused. */
function numberAmount(value: number, ctx: z.RefinementCtx): string {
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) return String(value);
  if (Number.isInteger(value) || Math.abs(value) >= 1e8) {
    ctx.issues.push({ code: "custom", message: AMOUNT_NOT_EXACT, input: value, continue: false });
    return z.NEVER;
  }
  const text = value.toFixed(7).replace(/0+$/, "").replace(/\.$/, "");
  // More than 7 decimals: String() keeps them (or writes an exponent) for the pattern below to refuse.
  return Number(text) === value ? text : String(value);
}

const ASSET_PROBLEM = `expected \`native\` or ${CODE_ISSUER}`;
const assetOf = z.string({ error: ASSET_PROBLEM }).refine(isNativeOrCredit, { error: ASSET_PROBLEM });

/** `name` is the `corridor` label; `amount`, Horizon's decimal text, is the source's (strict_send) or destination's. */
export const corridorEntrySchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, "expected a name of 1-64 letters, digits, `_`, `.`, `:` or `-`"),
    mode: z.enum(["strict_send", "strict_receive"], { error: "expected strict_send or strict_receive" }),
    source: assetOf,
    destination: assetOf,
    amount: z
      .union([z.number(), z.string()], { error: AMOUNT_PROBLEM })
      .transform((value, ctx) => (typeof value === "number" ? numberAmount(value, ctx) : value))
      .refine((text) => /^\d{1,12}(\.\d{1,7})?$/.test(text) && Number(text) > 0, { error: AMOUNT_PROBLEM }),
    min_rate: z.number({ error: "expected a number" }).positive("expected a rate above 0").optional(),
  })
  .refine((entry) => entry.source !== entry.destination, { error: "source and destination are the same asset" });
type CorridorEntry = z.output<typeof corridorEntrySchema>;

/** `minRate`: destination per source below which the corridor is degraded. */
export type CorridorConfig = Omit<CorridorEntry, "min_rate"> & { readonly minRate?: number };

/** A target's corridors, checked: names unique within the target. */
export function corridorsOf(entries: readonly CorridorEntry[], where: string, problems: string[]): CorridorConfig[] {
  return entries.flatMap(({ min_rate: minRate, ...entry }, index) => {
    if (entries.findIndex((other) => other.name === entry.name) === index) return [{ ...entry, minRate }];
    problems.push(`${where}: corridor name "${entry.name}" is used twice (each is a \`corridor\` label)`);
    return [];
  });
}

/** `schedules.corridors`, in the file's schedules or a target's: a schedule no shorter than 15 s. */
export const corridorsScheduleText = z
  .string({ error: "expected a duration such as 1m or a cron pattern" })
  .check((ctx) => {
    const schedule = parseSchedule(ctx.value);
    let message = typeof schedule === "string" ? schedule : undefined;
    if (typeof schedule === "object" && tooFastForCorridors(schedule))
      message = `"${ctx.value}" runs corridors more often than every 15s; path finding is expensive for the Horizon`;
    if (message !== undefined) ctx.issues.push({ code: "custom", message, input: ctx.value });
  });
