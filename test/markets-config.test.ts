import { describe, expect, it } from "vitest";
import { plannedRequestsPerHour, requestsPerPoll } from "../src/scheduler/request-plan.js";
import { problems, runConfig, writeConfig } from "./support/config-files.js";

const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const EURC = "EURC:GDHU6WRG4IEQXM5NZ4BMPKOXHW76MZM4Y2IEMFDVXBSDP6SJY4ITNPP2";
const MAKER = "GBJPWEIFX6KO4H52BF3QJDYRCLXB2P3Z3QTKWUGFOOFH5MSRZV4WLRZ7";

const file = (markets: string, extra = "") =>
  writeConfig(`targets:\n  - url: https://horizon.stellar.org\n    markets:\n${markets}${extra}`);

describe("markets: configuration", () => {
  it("reads a target's markets with their defaults; schedules.markets defaults to 1m", async () => {
    const path = file(
      `      - name: xlm-usdc\n        base: native\n        counter: "${USDC}"\n        resolution: 5m\n` +
        `        reference_price: 0.1\n        makers: [${MAKER}]\n      - base: "${USDC}"\n        counter: "${EURC}"\n`,
    );
    const config = await runConfig([`--config.file=${path}`]);
    const [target] = config.targets;
    expect(target!.markets).toEqual([
      { name: "xlm-usdc", base: "native", counter: USDC, resolutionMs: 300_000, referencePrice: 0.1, makers: [MAKER] },
      { name: "USDC/EURC", base: USDC, counter: EURC, resolutionMs: 60_000, makers: [] },
    ]);
    expect(target!.schedules.markets.periodMs).toBe(60_000);
    // Two markets: a bucket and a page of trades each, and the maker's offers on two sides, up to 5 pages each.
    expect(requestsPerPoll("markets", target!, config)).toBe(2 + 2 + 2 * 5);
    expect(plannedRequestsPerHour(target!, config) - plannedRequestsPerHour({ ...target!, markets: [] }, config)).toBe(
      14 * 60,
    );
  });

  it("schedules.markets sets the markets poll's schedule", async () => {
    const path = writeConfig(
      `schedules:\n  markets: 5m\ntargets:\n  - url: https://horizon.stellar.org\n    markets:\n      - base: native\n        counter: "${USDC}"\n`,
    );
    const config = await runConfig([`--config.file=${path}`]);
    expect(config.targets[0]!.schedules.markets.periodMs).toBe(300_000);
  });

  it.each([
    [
      "a resolution Horizon does not have",
      `      - base: native\n        counter: "${USDC}"\n        resolution: 2m\n`,
      /resolution.*expected one of 1m, 5m, 15m, 1h, 1d, 1w/,
    ],
    [
      "an asset that is neither native nor CODE:ISSUER",
      `      - base: native\n        counter: USDC\n`,
      /market "XLM\/USDC": counter: "USDC" is not native or CODE:ISSUER/,
    ],
    [
      "a maker that is no account",
      `      - base: native\n        counter: "${USDC}"\n        makers: [GABC]\n`,
      /makers: "GABC" is not a Stellar account id/,
    ],
    [
      "two markets with the same default name",
      `      - base: native\n        counter: "${USDC}"\n      - base: native\n        counter: "${USDC}"\n`,
      /market name "XLM\/USDC" is used twice/,
    ],
    [
      "a reference price of zero",
      `      - base: native\n        counter: "${USDC}"\n        reference_price: 0\n`,
      /reference_price.*above 0/,
    ],
  ])("refuses %s with one line", async (_what, markets, message) => {
    const found = await problems([`--config.file=${file(markets)}`]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
    expect(found[0]).not.toContain("\n");
  });

  it("--market and MARKETS watch a market on every --horizon.url target", async () => {
    const flags = await runConfig([
      "--horizon.url=https://horizon.stellar.org",
      "--horizon.url=b=https://horizon.example.com",
      `--market=xlm-usdc=native/${USDC}`,
      `--market=${USDC}/native`,
    ]);
    for (const target of flags.targets) {
      expect(target.markets.map(({ name, base, counter }) => ({ name, base, counter }))).toEqual([
        { name: "xlm-usdc", base: "native", counter: USDC },
        { name: "USDC/XLM", base: USDC, counter: "native" },
      ]);
    }
    const env = await runConfig([], {
      HORIZON_URL: "https://horizon.stellar.org",
      MARKETS: `native/${USDC}, ${USDC}/${EURC}`,
    });
    expect(env.targets[0]!.markets.map(({ name }) => name)).toEqual(["XLM/USDC", "USDC/EURC"]);
  });

  it("refuses a malformed --market, and --market without --horizon.url", async () => {
    expect(await problems(["--horizon.url=https://horizon.stellar.org", "--market=native"])).toEqual([
      '--market: "native" is not [NAME=]BASE/COUNTER (e.g. XLM-USDC=native/USDC:G...)',
    ]);
    const path = writeConfig("targets:\n  - url: https://horizon.stellar.org\n");
    expect(await problems([`--config.file=${path}`, `--market=native/${USDC}`])).toEqual([
      "--market: applies to targets given with --horizon.url; with --config.file, list markets under each target's `markets:`",
    ]);
  });
});
