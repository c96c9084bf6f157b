/** Watched DEX markets: what a target's `markets:` key, `--market` and MARKETS describe, checked. */
import { z } from "zod";
import { accountIdProblem, CODE_ISSUER, holdsSeed, isNativeOrCredit, SEED_NOT_ACCOUNT } from "./accounts.js";

/** Horizon's trade aggregation resolutions in minutes, by the name the configuration uses. */
const MARKET_RESOLUTION_MINUTES = { "1m": 1, "5m": 5, "15m": 15, "1h": 60, "1d": 1440, "1w": 10_080 };
const RESOLUTION_NAMES = Object.keys(MARKET_RESOLUTION_MINUTES) as (keyof typeof MARKET_RESOLUTION_MINUTES)[];

export interface WatchedMarket {
  /** The `market` label. */
  readonly name: string;
  /** `native` or `CODE:ISSUER`. */
  readonly base: string;
  readonly counter: string;
  /** The trade aggregation bucket. */
  readonly resolutionMs: number;
  /** Counter per base the price should hold (a peg). */
  readonly referencePrice?: number;
  /** Seller accounts whose offers on the pair are read. */
  readonly makers: readonly string[];
}

/** One entry of a target's `markets:` list, before its assets and makers are checked. */
export const marketEntrySchema = z.strictObject({
  name: z.string().min(1).optional(),
  base: z.string(),
  counter: z.string(),
  resolution: z.enum(RESOLUTION_NAMES, { error: `expected one of ${RESOLUTION_NAMES.join(", ")}` }).optional(),
  reference_price: z.number().positive("expected a price above 0").optional(),
  makers: z.array(z.string()).optional(),
});
type MarketEntry = z.output<typeof marketEntrySchema>;

/** `native` as XLM, CODE:ISSUER as its code: as the `market` label of a market without a name shows them. */
export const assetCode = (asset: string) => (asset === "native" ? "XLM" : (asset.split(":")[0] ?? asset));

/** Checks a target's markets; `where` names the target in each problem. A name used twice would collide series. */
export function watchedMarkets(entries: readonly MarketEntry[], where: string, problems: string[]): WatchedMarket[] {
  const names = new Set<string>();
  const markets: WatchedMarket[] = [];
  for (const entry of entries) {
    // A seed where an asset belongs is refused before anything quotes it, the default name included.
    const seeded = (["base", "counter"] as const).filter((key) => holdsSeed(entry[key]));
    for (const key of seeded) problems.push(`${where}: a market's ${key}: ${SEED_NOT_ACCOUNT}`);
    if (seeded.length > 0) continue;
    const name = entry.name ?? `${assetCode(entry.base)}/${assetCode(entry.counter)}`;
    const at = `${where}: market ${JSON.stringify(name)}`;
    const before = problems.length;
    for (const key of ["base", "counter"] as const)
      if (!isNativeOrCredit(entry[key]))
        problems.push(`${at}: ${key}: ${JSON.stringify(entry[key])} is not native or ${CODE_ISSUER}`);
    if (entry.base === entry.counter) problems.push(`${at}: base and counter are the same asset`);
    // The problem never repeats a seed given where a maker belongs.
    for (const problem of (entry.makers ?? []).map(accountIdProblem))
      if (problem !== undefined) problems.push(`${at}: makers: ${problem}`);
    if (names.has(name))
      problems.push(`${where}: market name ${JSON.stringify(name)} is used twice; give each market its own \`name\``);
    names.add(name);
    if (problems.length > before) continue;
    markets.push({
      name,
      base: entry.base,
      counter: entry.counter,
      resolutionMs: MARKET_RESOLUTION_MINUTES[entry.resolution ?? "1m"] * 60_000,
      referencePrice: entry.reference_price,
      makers: [...new Set(entry.makers ?? [])],
    });
  }
  return markets;
}

const MARKET_FLAG = "[NAME=]BASE/COUNTER (e.g. XLM-USDC=native/USDC:G...)";

/** `BASE/COUNTER` or `NAME=BASE/COUNTER`, as --market and MARKETS take them; an entry, or why it is not one. */
export function marketEntryFromFlag(value: string): MarketEntry | string {
  const match = /^(?:([^=/]+)=)?([^=/]+)\/([^=/]+)$/.exec(value.trim());
  // A malformed value is quoted below: one holding a seed anywhere (`USDC:S...`, its `/` left out) is not.
  if (match === null && holdsSeed(value, /[:/=]/))
    return `the value holds a secret seed (S...), not shown: expected ${MARKET_FLAG}; an issuer is a public key (G...)`;
  if (match === null) return `${JSON.stringify(value)} is not ${MARKET_FLAG}`;
  const [, name, base = "", counter = ""] = match;
  return { name: name?.trim(), base: base.trim(), counter: counter.trim() };
}

/** `ask` sells base for counter; `bid` sells counter for base. */
export const MAKER_SIDES = ["ask", "bid"] as const;
export type MakerSide = (typeof MAKER_SIDES)[number];

/** Pages of trades, and of a maker's offers on a side, one poll reads at most; the rest waits for the next poll. */
export const MAX_MARKET_PAGES = 5;

/** Requests one poll of these markets sends in steady state: a bucket, a page of trades, and each maker's offers on
 * each side, read whole at every poll and so counted to their cap, as an account's offers are. */
export function marketRequestsPerPoll(markets: readonly WatchedMarket[]): number {
  const makerSides = (market: WatchedMarket) => MAKER_SIDES.length * market.makers.length;
  return markets.reduce((total, market) => total + 2 + makerSides(market) * MAX_MARKET_PAGES, 0);
}
