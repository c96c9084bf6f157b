import { describe, expect, it } from "vitest";
import { plannedRequestsPerHour, requestsPerPoll } from "../src/scheduler/request-plan.js";
import { expectExit, runCli } from "./support/cli-process.js";
import { problems, runConfig, writeConfig } from "./support/config-files.js";

const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const CNY = "CNY:GAASPHILC6DCBPP2P4T66QNSYF6C6OGN6DK36NY4G5SBR7AWH75TJG7N";
const SEED = "SBZVMB74Z76QZ3ZOY7UTDFYKMEGKW5XFJEB6PFKBF4UYSSWHG4EDH7PY";

function file(assets: string, top = ""): string {
  return writeConfig(`${top}targets:
  - name: pubnet
    url: https://horizon.example.com
${assets}`);
}

describe("assets configuration", () => {
  it("reads a target's assets:, polled every minute by default, one request per asset", async () => {
    const config = await runConfig([`--config.file=${file(`    assets: ["${USDC}", "${CNY}"]\n`)}`]);
    const [target] = config.targets;
    expect(target!.assets).toEqual([
      { name: USDC, code: "USDC", issuer: USDC.slice(5) },
      { name: CNY, code: "CNY", issuer: CNY.slice(4) },
    ]);
    expect(target!.schedules.assets.periodMs).toBe(60_000);
    expect(target!.schedules.ledgers.periodMs).toBe(15_000);
    expect(requestsPerPoll("assets", target!, config)).toBe(2);
    const withoutAssets = { ...target!, assets: [] };
    expect(plannedRequestsPerHour(target!, config) - plannedRequestsPerHour(withoutAssets, config)).toBe(120);
  });

  it("takes schedules.assets from the file and the target, and --poll.interval over both", async () => {
    const path = file(`    assets: ["${USDC}"]\n    schedules: { assets: 5m }\n`, "schedules: { assets: 2m }\n");
    expect((await runConfig([`--config.file=${path}`])).targets[0]!.schedules.assets.periodMs).toBe(300_000);
    const global = file(`    assets: ["${USDC}"]\n`, "schedules: { assets: 2m }\npoll_interval: 30s\n");
    expect((await runConfig([`--config.file=${global}`])).targets[0]!.schedules.assets.periodMs).toBe(120_000);
    const forced = await runConfig([`--config.file=${path}`, "--poll.interval=10s"]);
    expect(forced.targets[0]!.schedules.assets.periodMs).toBe(10_000);
  });

  it("watches --asset and ASSETS on every --horizon.url target", async () => {
    const flags = await runConfig(["--horizon.url=a=http://a:1", "--horizon.url=b=http://b:1", `--asset=${USDC}`]);
    expect(flags.targets.map((target) => target.assets.map((asset) => asset.name))).toEqual([[USDC], [USDC]]);
    const env = await runConfig(["--horizon.url=http://a:1"], { ASSETS: `${USDC}, ${CNY}` });
    expect(env.targets[0]!.assets.map((asset) => asset.name)).toEqual([USDC, CNY]);
  });

  it("refuses a bad or repeated entry with one line quoting it", async () => {
    const url = "--horizon.url=http://a:1";
    expect(await problems([url, "--asset=native"])).toEqual([
      '--asset: asset "native": native is not watched here: lumens are in /ledgers (total_coins)',
    ]);
    expect(
      await problems([url, "--asset=USDCUSDCUSDCX:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN"]),
    ).toEqual([
      '--asset: asset "USDCUSDCUSDCX:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN": the code must be 1-12 letters and digits',
    ]);
    // A checksum typo: the last character changed.
    expect(await problems([url], { ASSETS: `${USDC.slice(0, -1)}M` })).toEqual([
      `ASSETS: asset "${USDC.slice(0, -1)}M": the issuer is not a Stellar account id (G followed by 55 base32 characters, with a valid checksum)`,
    ]);
    expect(await problems([url, "--asset=USDC"])).toEqual(['--asset: asset "USDC": expected CODE:ISSUER']);
    expect(await problems([url, `--asset=${USDC}`, `--asset=${CNY}`, `--asset=${USDC}`])).toEqual([
      `--asset: asset "${USDC}" is listed twice`,
    ]);
    const path = file(`    assets: ["${CNY}", "${CNY}"]\n`);
    expect(await problems([`--config.file=${path}`])).toEqual([
      `${path}: targets[0].assets: asset "${CNY}" is listed twice`,
    ]);
    expect(await problems([`--asset=${USDC}`, `--config.file=${file("")}`])).toEqual([
      "--asset: applies to targets given with --horizon.url; with --config.file, list assets under each target's `assets:`",
    ]);
  });

  it("never repeats a secret seed given as the issuer", async () => {
    const found = await problems(["--horizon.url=http://a:1", `--asset=USDC:${SEED}`]);
    expect(found).toEqual([
      "--asset: an asset's issuer: that is a secret seed, not an account id: give its public key (G...)",
    ]);
  });

  it("never repeats a secret seed given as a whole entry or as the code, and says what is wrong", async () => {
    const url = "--horizon.url=http://a:1";
    const holdsSeed = "an asset holds a secret seed (S...): give CODE:ISSUER, with the issuer's public key (G...)";
    for (const entry of [SEED, ` ${SEED}`, `${SEED}:${USDC.slice(5)}`, `USDC:${USDC.slice(5)}:${SEED}`])
      expect(await problems([url, `--asset=${entry}`]), entry).toEqual([`--asset: ${holdsSeed}`]);
    expect(await problems([url], { ASSETS: `${USDC}, ${SEED}` })).toEqual([`ASSETS: ${holdsSeed}`]);
    const path = file(`    assets: ["${SEED}"]\n`);
    expect(await problems([`--config.file=${path}`])).toEqual([`${path}: targets[0].assets: ${holdsSeed}`]);
  });

  it("exits 2 with exactly one stderr line quoting the entry", () => {
    const result = runCli(["--horizon.url=http://a:1", `--asset=${CNY}`, `--asset=${CNY}`]);
    expectExit(result, 2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`stellar-horizon-exporter: --asset: asset "${CNY}" is listed twice\n`);
  });
});
