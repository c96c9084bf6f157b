import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { plannedRequestsPerHour } from "../src/scheduler/request-plan.js";
import { problems, runConfig as config, writeConfig } from "./support/config-files.js";

const TREASURY = "GA2224DCGO3WHC4EALA2PR2BZEMAYZPBPTHS243ZYYWQMBWRPJSZH5A6";
const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const POOL = "pool:59fa1dc57433dcfbd2db7319d26cb3da1f28f2d8095a3ec36ad4ef9cadb0013e";
/** TREASURY with its last character changed: right shape, wrong checksum. */
const BAD_CHECKSUM = `${TREASURY.slice(0, -1)}7`;
const MUXED = StrKey.encodeMed25519PublicKey(
  Buffer.concat([StrKey.decodeEd25519PublicKey(TREASURY), Buffer.alloc(8, 7)]),
);

/** A config file with one target, `pubnet`, watching the given `accounts:` entries (YAML, indented six). */
function pubnetWatching(accounts: string, rest = ""): string {
  return writeConfig(
    `targets:\n  - name: pubnet\n    url: https://horizon.stellar.org\n    accounts:\n${accounts}\n${rest}`,
  );
}

describe("accounts in the config file", () => {
  it("reads the issue's example", async () => {
    const file = pubnetWatching(
      `      - name: treasury
        id: ${TREASURY}
        low_balance:
          native: 5000
          "${USDC}": 100
        offers: true
        claimable_balances: true
      - id: ${Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey()}
        cold: true`,
      "schedules:\n  accounts: 30s\n",
    );
    const loaded = await config([`--config.file=${file}`]);
    const [target] = loaded.targets;
    expect(target!.schedules.accounts.periodMs).toBe(30_000);
    expect(target!.accounts[0]).toEqual({
      name: "treasury",
      id: TREASURY,
      lowBalance: { native: 5000, [USDC]: 100 },
      offers: true,
      claimableBalances: true,
      cold: false,
    });
    const cold = target!.accounts[1]!;
    expect(cold.name).toBe(cold.id);
    expect(cold).toMatchObject({ offers: false, claimableBalances: false, cold: true, lowBalance: {} });
    // Root, fee_stats, ledgers and two pool pages every 15 s; every 30 s the two accounts, and up to six pages each
    // of the treasury's offers and claimable balances.
    expect(plannedRequestsPerHour(target!, loaded)).toBe(5 * 240 + (2 + 6 + 6) * 120);
  });

  it("the request plan counts the transaction probe's account read and submission per run", async () => {
    const file = writeConfig(
      `targets:\n  - url: http://127.0.0.1:2\n    tx_probe:\n      secret_env: PROBE_SEED\n      interval: 30s\n`,
    );
    const loaded = await config([`--config.file=${file}`], {
      PROBE_SEED: Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).secret(),
    });
    const [target] = loaded.targets;
    // Root, fee_stats, ledgers and two pool pages every 15 s; the probe's account every 15 s as a
    // watched account; and two probe requests every 30 s.
    expect(plannedRequestsPerHour(target!, loaded)).toBe(5 * 240 + 240 + 2 * 120);
  });

  it("one line per problem: bad checksum, muxed id, duplicate name, unknown asset syntax", async () => {
    const file = pubnetWatching(`      - { name: a, id: ${BAD_CHECKSUM} }
      - { name: b, id: ${MUXED} }
      - { name: a, id: ${TREASURY}, low_balance: { "USDC-GA5Z": 1, "${POOL}": 2, native: 3 } }`);
    expect(await problems([`--config.file=${file}`])).toEqual([
      `target "pubnet": account "a": "${BAD_CHECKSUM}" is not a Stellar account id (G followed by 55 base32 characters, with a valid checksum)`,
      `target "pubnet": account "b": ${MUXED} is a muxed (M...) account; Horizon's accounts endpoint takes the G... account it belongs to: ${TREASURY}`,
      `target "pubnet": account name "a" is used twice; names must be unique per target`,
      `target "pubnet": account "a": low_balance: "USDC-GA5Z" is not native, CODE:ISSUER (a 1-12 character code and a G... issuer) or pool:<64-hex liquidity pool id>`,
    ]);
  });

  it("refuses unknown keys and negative marks", async () => {
    const file = writeConfig(`
targets:
  - url: https://horizon.stellar.org
    accounts:
      - { id: ${TREASURY}, colde: true, low_balance: { native: -1 } }
`);
    const found = await problems([`--config.file=${file}`]);
    expect(found).toEqual([
      `${file}:5: targets[0].accounts[0].low_balance.native: expected at least 0, got -1`,
      `${file}:5: targets[0].accounts[0].colde: unknown key (did you mean cold?)`,
    ]);
  });

  it("a problem under a map key holding a seed names the key without quoting it", async () => {
    const seed = Keypair.random().secret();
    const file = pubnetWatching(`      - id: ${TREASURY}\n        low_balance: { "USDC:${seed}": "5" }`);
    expect(await problems([`--config.file=${file}`])).toEqual([
      `${file}:6: targets[0].accounts[0].low_balance.(a key holding a secret seed, not shown): expected a number, got text`,
    ]);
  });

  it("never quotes a secret seed given as a low_balance or max_outflow_per_hour asset, or as its code", async () => {
    const seed = Keypair.random().secret();
    const holdsSeed = "an asset holds a secret seed (S...): CODE:ISSUER (a 1-12 character code and a G... issuer)";
    const file = pubnetWatching(`      - name: a
        id: ${TREASURY}
        low_balance: { "${seed}": 1, "${seed}:${TREASURY}": 2 }
        max_outflow_per_hour: { "${seed}": 3, "pool:${seed}": 4 }`);
    expect(await problems([`--config.file=${file}`])).toEqual([
      `${file}: targets[0].accounts[0].low_balance: ${holdsSeed}`,
      `${file}: targets[0].accounts[0].low_balance: ${holdsSeed}`,
      `target "pubnet": account "a": max_outflow_per_hour: ${holdsSeed}`,
      `target "pubnet": account "a": max_outflow_per_hour: the issuer: that is a secret seed, not an account id: give its public key (G...)`,
    ]);
  });
});

describe("--account and ACCOUNTS", () => {
  it("apply to every --horizon.url target", async () => {
    const loaded = await config([
      "--horizon.url=a=http://127.0.0.1:2",
      "--horizon.url=b=http://127.0.0.1:2",
      `--account=treasury=${TREASURY}`,
      `--account=${Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).publicKey()}`,
    ]);
    for (const target of loaded.targets) {
      expect(target.accounts.map((account) => account.name)).toEqual([
        "treasury",
        Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)).publicKey(),
      ]);
    }
  });

  it("ACCOUNTS is a comma-separated list; flags win over it", async () => {
    const env = {
      HORIZON_URL: "http://127.0.0.1:2",
      ACCOUNTS: `hot=${TREASURY}, cold=${Keypair.fromRawEd25519Seed(Buffer.alloc(32, 3)).publicKey()}`,
    };
    expect((await config([], env)).targets[0]!.accounts.map((account) => account.name)).toEqual(["hot", "cold"]);
    expect(
      (await config([`--account=x=${TREASURY}`], env)).targets[0]!.accounts.map((account) => account.name),
    ).toEqual(["x"]);
  });

  it("bad ids and duplicates exit with one line each", async () => {
    expect(
      await problems([
        "--horizon.url=http://127.0.0.1:2",
        `--account=${MUXED}`,
        `--account=t=${TREASURY}`,
        `--account=t=${TREASURY}`,
      ]),
    ).toEqual([
      `--account: account "${MUXED}": ${MUXED} is a muxed (M...) account; Horizon's accounts endpoint takes the G... account it belongs to: ${TREASURY}`,
      `--account: account name "t" is used twice; names must be unique per target`,
    ]);
  });

  it("is refused with file targets rather than silently ignored", async () => {
    const file = writeConfig("targets:\n  - url: https://horizon.stellar.org\n");
    expect(await problems([`--config.file=${file}`, `--account=${TREASURY}`])).toEqual([
      "--account: applies to targets given with --horizon.url or --rpc.url; with --config.file, list accounts under each target's `accounts:`",
    ]);
  });
});

describe("a watched account's flow (activity)", () => {
  it("reads the issue's example: activity, operations, expect_payment_within and max_outflow_per_hour", async () => {
    const file = pubnetWatching(
      `      - name: deposits
        id: ${TREASURY}
        activity: true
        operations: true
        expect_payment_within: 2h
        max_outflow_per_hour:
          native: 50000
          "${USDC}": 100000`,
    );
    const loaded = await config([`--config.file=${file}`]);
    const [target] = loaded.targets;
    expect(target!.accounts[0]).toMatchObject({
      activity: true,
      operations: true,
      expectPaymentWithinSeconds: 7200,
      maxOutflowPerHour: { native: 50000, [USDC]: 100000 },
    });
    expect(target!.schedules.activity.periodMs).toBe(30_000);
    // Five network polls every 15 s, one account read every 15 s, three streams every 30 s.
    expect(plannedRequestsPerHour(target!, loaded)).toBe(5 * 240 + 240 + 3 * 120);
  });

  it("schedules.activity sets its schedule; --poll.interval overrides it", async () => {
    const file = pubnetWatching(`      - id: ${TREASURY}\n        activity: true`, "schedules:\n  activity: 1m\n");
    expect((await config([`--config.file=${file}`])).targets[0]!.schedules.activity.periodMs).toBe(60_000);
    const forced = await config([`--config.file=${file}`, "--poll.interval=20s"]);
    expect(forced.targets[0]!.schedules.activity.periodMs).toBe(20_000);
  });

  it("refuses a malformed duration and a pool or unknown asset as an outflow limit", async () => {
    const bad = pubnetWatching(`      - id: ${TREASURY}\n        expect_payment_within: soon`);
    expect((await problems([`--config.file=${bad}`])).join("\n")).toMatch(/expect_payment_within/);
    const pool = pubnetWatching(`      - id: ${TREASURY}\n        max_outflow_per_hour:\n          "${POOL}": 1`);
    expect(await problems([`--config.file=${pool}`])).toEqual([
      `target "pubnet": account "${TREASURY}": max_outflow_per_hour: "${POOL}" is a pool share, which is never paid`,
    ]);
  });

  it("--account.activity and ACCOUNT_ACTIVITY=true turn activity on for every --account, operations off", async () => {
    const flags = ["--horizon.url=https://horizon.stellar.org", `--account=${TREASURY}`];
    const on = await config([...flags, "--account.activity"]);
    expect(on.targets[0]!.accounts[0]).toMatchObject({ activity: true });
    expect(on.targets[0]!.accounts[0]!.operations).toBeUndefined();
    const env = await config(flags, { ACCOUNT_ACTIVITY: "true" });
    expect(env.targets[0]!.accounts[0]).toMatchObject({ activity: true });
    expect((await config(flags)).targets[0]!.accounts[0]!.activity).toBeUndefined();
    expect(await problems(flags, { ACCOUNT_ACTIVITY: "yes" })).toEqual([
      'ACCOUNT_ACTIVITY: expected true or false, got "yes"',
    ]);
    // Read as CONTRACT_EVENTS is: case and surrounding spaces do not matter.
    expect((await config(flags, { ACCOUNT_ACTIVITY: " TRUE " })).targets[0]!.accounts[0]).toMatchObject({
      activity: true,
    });
    expect((await config(flags, { ACCOUNT_ACTIVITY: "False" })).targets[0]!.accounts[0]!.activity).toBeUndefined();
  });

  it("under --shard, only the shard watching the account reads its flow", async () => {
    const { HORIZON_JOBS } = await import("../src/runtime/horizon.js");
    const { jobsOf } = await import("../src/runtime/runtime.js");
    const flags = ["--horizon.url=https://horizon.stellar.org", `--account=${TREASURY}`, "--account.activity"];
    const sources: boolean[] = [];
    for (const index of [0, 1, 2]) {
      const loaded = await config([...flags, `--shard=${index}/3`]);
      const target = loaded.targets[0]!;
      const plans = jobsOf(HORIZON_JOBS, target, loaded).map(({ entry }) => entry.source);
      sources.push(plans.includes("activity"));
    }
    expect(sources.filter(Boolean)).toHaveLength(1);
  });
});
