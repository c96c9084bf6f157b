// A seed given where a market's asset belongs is refused and never quoted, as accounts and assets refuse it.
import { describe, expect, it } from "vitest";
import { problems, writeConfig } from "./support/config-files.js";

/** The seed test/assets-config.test.ts uses. */
const SEED = "SBZVMB74Z76QZ3ZOY7UTDFYKMEGKW5XFJEB6PFKBF4UYSSWHG4EDH7PY";

describe("a seed given for a market's asset", () => {
  it("is never repeated in a --market problem", async () => {
    const found = await problems(["--horizon.url=https://horizon.stellar.org", `--market=native/USDC:${SEED}`]);
    expect(found).toHaveLength(1);
    expect(found.join("\n")).not.toContain(SEED);
  });

  it("is never repeated when it is the whole base, which would name the market", async () => {
    const found = await problems(["--horizon.url=https://horizon.stellar.org", `--market=${SEED}/native`]);
    expect(found).toHaveLength(1);
    expect(found.join("\n")).not.toContain(SEED);
  });

  it("is never repeated when the market's '/' is left out, as the whole value would be quoted", async () => {
    expect(await problems(["--horizon.url=https://horizon.stellar.org", `--market=USDC:${SEED}`])).toEqual([
      "--market: the value holds a secret seed (S...), not shown: expected [NAME=]BASE/COUNTER " +
        "(e.g. XLM-USDC=native/USDC:G...); an issuer is a public key (G...)",
    ]);
  });

  it("is never repeated in a markets: problem of a configuration file", async () => {
    const path = writeConfig(
      `targets:\n  - url: https://horizon.stellar.org\n    markets:\n      - base: "USDC:${SEED}"\n        counter: native\n`,
    );
    const found = await problems([`--config.file=${path}`]);
    expect(found).toHaveLength(1);
    expect(found.join("\n")).not.toContain(SEED);
  });
});
