import { Keypair } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { fnv1a32, inShard, parseShard } from "../src/config/shard.js";
import { problems, runConfig as config, writeConfig } from "./support/config-files.js";

const TREASURY = "GA2224DCGO3WHC4EALA2PR2BZEMAYZPBPTHS243ZYYWQMBWRPJSZH5A6";
const USDC = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const EURC = "EURC:GDBDEI3NV72XSORX7DNYMGRRNXAXF62RPTGGVEXM2RLXIUIUU5DNZWWH";
const COLD = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();

describe("accounts on Stellar RPC targets", () => {
  it("reads `accounts:` with `assets:`, the target's `account_assets:` for accounts that set none, and schedules.accounts", async () => {
    const file = writeConfig(`rpc_targets:
  - name: rpc
    url: http://127.0.0.1:8000/rpc
    account_assets: ["${USDC}"]
    accounts:
      - name: treasury
        id: ${TREASURY}
        low_balance: { native: 5000, "${USDC}": 100 }
        assets: ["${EURC}", "${USDC}", "${EURC}"]
      - id: ${COLD}
        cold: true
schedules:
  accounts: 30s
`);
    const [target] = (await config([`--config.file=${file}`])).rpcTargets;
    expect(target!.schedules.accounts.periodMs).toBe(30_000);
    expect(target!.accounts).toEqual([
      { name: "treasury", id: TREASURY, lowBalance: { native: 5000, [USDC]: 100 }, cold: false, assets: [EURC, USDC] },
      { name: COLD, id: COLD, lowBalance: {}, cold: true, assets: [USDC] },
    ]);
  });

  it("refuses Horizon-only keys and assets that are not a trustline's, one line each", async () => {
    const file = writeConfig(`rpc_targets:
  - url: http://127.0.0.1:8000/rpc
    accounts:
      - id: ${TREASURY}
        offers: true
        assets: ["native"]
`);
    const found = await problems([`--config.file=${file}`]);
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.join("\n")).toMatch(/offers/);
    expect(found.join("\n")).toMatch(/CODE:ISSUER/);
  });

  it("refuses a low_balance mark on a trustline the account does not read, or on pool shares, one line each", async () => {
    const pool = "pool:59fa1dc57433dcfbd2db7319d26cb3da1f28f2d8095a3ec36ad4ef9cadb0013e";
    const file = writeConfig(`rpc_targets:
  - name: rpc
    url: http://127.0.0.1:8000/rpc
    account_assets: ["${EURC}"]
    accounts:
      - { name: a, id: ${TREASURY}, low_balance: { native: 1, "${USDC}": 100, "${EURC}": 5 } }
      - { name: b, id: ${COLD}, assets: ["${USDC}"], low_balance: { "${USDC}": 100, "${pool}": 1 } }
`);
    expect(await problems([`--config.file=${file}`])).toEqual([
      `Stellar RPC target "rpc": account "a": low_balance: "${USDC}" is not a trustline it reads: add it to its assets (or the target's account_assets)`,
      `Stellar RPC target "rpc": account "b": low_balance: "${pool}" is a pool share, which a Stellar RPC target does not read`,
    ]);
  });

  it("watches --account on every --horizon.url and --rpc.url target, reading --account.asset's trustlines on the RPCs", async () => {
    const loaded = await config([
      "--horizon.url=h=https://horizon.stellar.org",
      "--rpc.url=r=http://127.0.0.1:8000/rpc",
      `--account=treasury=${TREASURY}`,
      `--account.asset=${USDC}`,
      `--account.asset=${EURC}`,
    ]);
    expect(loaded.targets[0]!.accounts.map((account) => account.id)).toEqual([TREASURY]);
    expect(loaded.rpcTargets[0]!.accounts).toEqual([
      { name: "treasury", id: TREASURY, lowBalance: {}, cold: false, assets: [USDC, EURC] },
    ]);
    const fromEnv = await config([], {
      RPC_URL: "http://127.0.0.1:8000/rpc",
      ACCOUNTS: `${TREASURY},cold=${COLD}`,
      ACCOUNT_ASSETS: USDC,
    });
    expect(fromEnv.rpcTargets[0]!.accounts.map((account) => [account.name, account.assets])).toEqual([
      [TREASURY, [USDC]],
      ["cold", [USDC]],
    ]);
    expect(
      await problems(["--rpc.url=http://127.0.0.1:8000/rpc", `--account=${TREASURY}`, "--account.asset=native"]),
    ).toEqual([
      '--account.asset: "native" is not a trustline asset: expected CODE:ISSUER (a 1-12 character code and a G... issuer)',
    ]);
  });

  it("refuses --account.asset and ACCOUNT_ASSETS without --rpc.url, and checks their assets all the same", async () => {
    const horizon = "--horizon.url=https://horizon.stellar.org";
    expect(await problems([horizon, `--account=${TREASURY}`, `--account.asset=${USDC}`])).toEqual([
      "--account.asset: applies to targets given with --rpc.url; with --config.file, list account assets under each " +
        "target's `account_assets:`",
    ]);
    const path = writeConfig("rpc_targets:\n  - url: http://127.0.0.1:8000/rpc\n");
    expect(await problems([`--config.file=${path}`], { ACCOUNT_ASSETS: "nonsense" })).toEqual([
      "ACCOUNT_ASSETS: applies to targets given with --rpc.url; with --config.file, list account assets under each " +
        "target's `account_assets:`",
      'ACCOUNT_ASSETS: "nonsense" is not a trustline asset: expected CODE:ISSUER (a 1-12 character code and a G... issuer)',
    ]);
  });

  it("never quotes a secret seed given as a trustline asset, whole or as its code", async () => {
    const seed = Keypair.random().secret();
    for (const asset of [seed, `${seed}:${TREASURY}`]) {
      const found = await problems([
        "--rpc.url=http://127.0.0.1:8000/rpc",
        `--account=${TREASURY}`,
        `--account.asset=${asset}`,
      ]);
      expect(found).toEqual([
        "--account.asset: an asset holds a secret seed (S...): CODE:ISSUER (a 1-12 character code and a G... issuer)",
      ]);
    }
  });
});

describe("--shard=INDEX/TOTAL", () => {
  it("is FNV-1a (32-bit) of the StrKey modulo TOTAL", () => {
    // The FNV-1a test vectors.
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
    expect(inShard({ index: fnv1a32(TREASURY) % 3, total: 3 }, TREASURY)).toBe(true);
    expect(inShard({ index: (fnv1a32(TREASURY) + 1) % 3, total: 3 }, TREASURY)).toBe(false);
    expect(parseShard("1/2")).toEqual({ index: 1, total: 2 });
    expect(parseShard("2/2")).toMatch(/not INDEX\/TOTAL/);
    expect(parseShard("0/0")).toMatch(/not INDEX\/TOTAL/);
  });

  it("splits the watched accounts of every target between the shards, each exactly once", async () => {
    const ids = Array.from({ length: 40 }, (_, index) =>
      Keypair.fromRawEd25519Seed(Buffer.alloc(32, index + 1)).publicKey(),
    );
    const args = [
      "--horizon.url=h=https://horizon.stellar.org",
      "--rpc.url=r=http://127.0.0.1:8000/rpc",
      ...ids.map((id) => `--account=${id}`),
    ];
    expect((await config(args)).shard).toEqual({ index: 0, total: 1 });
    const shards = await Promise.all([0, 1, 2].map((index) => config([...args, `--shard=${index}/3`])));
    for (const kind of ["targets", "rpcTargets"] as const) {
      const watched = shards.flatMap((shard) => shard[kind][0]!.accounts.map((account) => account.id));
      expect(watched.sort()).toEqual([...ids].sort());
      for (const shard of shards) expect(shard[kind][0]!.accounts.length).toBeGreaterThan(0);
    }
    expect((await config([...args.slice(0, 2)], { SHARD: "1/2" })).shard).toEqual({ index: 1, total: 2 });
    expect(await problems([...args, "--shard=3/3"])).toEqual([
      '--shard: "3/3" is not INDEX/TOTAL with 0 <= INDEX < TOTAL (e.g. 0/1, 1/3)',
    ]);
  });
});
