import { Keypair, xdr } from "@stellar/stellar-base";
import { describe, expect, it } from "vitest";
import { expectExit, runCli } from "./support/cli-process.js";
import { problems, runConfig, writeConfig } from "./support/config-files.js";

const COUNTER = "CDSUR2JFKSUORJLUA2FISW7P6ALDTS2PDK6AYQZ7G4CSY5WZS5QVSM47";
const XLM = "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC";
const KEY = xdr.ScVal.scvSymbol("Counter").toXDR("base64");
const RPC = "--rpc.url=rpc=http://rpc.example:8000";
const SEED = Keypair.random().secret();
const SEED_NOT_CONTRACT = "that is a secret seed (S...), not a contract id (C...): never put a seed here";

function file(contracts: string, top = ""): string {
  return writeConfig(`${top}rpc_targets:
  - name: rpc
    url: http://rpc.example:8000
    contracts:
${contracts}`);
}

describe("contracts configuration", () => {
  it("rpc_targets' contracts: names default to the id, keys to persistent; schedules.contracts defaults to 1m", async () => {
    const config = await runConfig([
      `--config.file=${file(`      - name: counter
        id: ${COUNTER}
        keys:
          - { name: count, key: "${KEY}" }
          - { name: nonce, key: "${KEY}", durability: temporary }
      - id: ${XLM}
`)}`,
    ]);
    const [target] = config.rpcTargets;
    expect(target!.contracts).toEqual([
      {
        name: "counter",
        id: COUNTER,
        keys: [
          { name: "count", key: KEY, durability: "persistent" },
          { name: "nonce", key: KEY, durability: "temporary" },
        ],
      },
      { name: XLM, id: XLM, keys: [] },
    ]);
    expect(target!.schedules.contracts.text).toBe("1m");
  });

  it("schedules.contracts sets the contracts poll; --poll.interval beats it", async () => {
    const path = file(`      - id: ${COUNTER}\n`, "schedules:\n  contracts: 5m\n");
    expect((await runConfig([`--config.file=${path}`])).rpcTargets[0]!.schedules.contracts.text).toBe("5m");
    expect(
      (await runConfig([`--config.file=${path}`, "--poll.interval=30s"])).rpcTargets[0]!.schedules.contracts.text,
    ).toBe("30s");
  });

  it("--contract (repeatable) and CONTRACTS watch instance and code on every --rpc.url target", async () => {
    const fromFlags = await runConfig([
      RPC,
      "--rpc.url=b=http://b.example",
      `--contract=counter=${COUNTER}`,
      `--contract=${XLM}`,
    ]);
    for (const target of fromFlags.rpcTargets) {
      expect(target.contracts).toEqual([
        { name: "counter", id: COUNTER, keys: [] },
        { name: XLM, id: XLM, keys: [] },
      ]);
    }
    const fromEnv = await runConfig([RPC], { CONTRACTS: `counter=${COUNTER}, xlm=${XLM}` });
    expect(fromEnv.rpcTargets[0]!.contracts.map(({ name }) => name)).toEqual(["counter", "xlm"]);
  });

  it.each([
    [
      [RPC, "--contract=GDAT5HWTGIU4TSSZ4752OUC4SABDLTLZFRPZUJ3D6LKBNEPA7V2CIG54"],
      '--contract: contract "GDAT5HWTGIU4TSSZ4752OUC4SABDLTLZFRPZUJ3D6LKBNEPA7V2CIG54": "GDAT5HWTGIU4TSSZ4752OUC4SABDLTLZFRPZUJ3D6LKBNEPA7V2CIG54" is not a contract id (C followed by 55 base32 characters, with a valid checksum)',
    ],
    [
      [RPC, `--contract=a=${COUNTER}`, `--contract=a=${XLM}`],
      '--contract: contract name "a" is used twice; names must be unique per target',
    ],
    [
      [`--contract=${COUNTER}`, "--horizon.url=http://h.example"],
      "--contract: applies to targets given with --rpc.url; with --config.file, list contracts under each target's `contracts:`",
    ],
  ])("%j is one problem line", async (argv, line) => {
    expect(await problems(argv)).toEqual([line]);
  });

  it.each([
    ["key: not-base64!", 'Stellar RPC target "rpc": contract "c": key "k": "not-base64!" is not a base64 XDR SCVal'],
    [`key: "${KEY}AAAA"`, `Stellar RPC target "rpc": contract "c": key "k": "${KEY}AAAA" is not a base64 XDR SCVal`],
  ])("an undecodable key (%s) fails the configuration, not a poll", async (key, line) => {
    const path = file(
      `      - name: c\n        id: ${COUNTER}\n        keys:\n          - name: k\n            ${key}\n`,
    );
    expect(await problems([`--config.file=${path}`])).toEqual([line]);
  });

  it("key names are unique per contract and may not be instance or code", async () => {
    const path = file(`      - name: c
        id: ${COUNTER}
        keys:
          - { name: code, key: "${KEY}" }
          - { name: k, key: "${KEY}" }
          - { name: k, key: "${KEY}" }
`);
    const found = await problems([`--config.file=${path}`]);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(
      /^Stellar RPC target "rpc": contract "c": key name "code" is used twice or is reserved \(instance, code\)/,
    );
    expect(found[1]).toMatch(/key name "k" is used twice/);
  });

  it("events and expect_events_within on a contract; schedules.events defaults to 30s", async () => {
    const path = file(`      - name: pool
        id: ${COUNTER}
        events: true
        expect_events_within: 1h
      - name: xlm
        id: ${XLM}
`);
    const [target] = (await runConfig([`--config.file=${path}`])).rpcTargets;
    expect(target!.contracts).toEqual([
      { name: "pool", id: COUNTER, keys: [], events: true, expectEventsWithinSeconds: 3600 },
      { name: "xlm", id: XLM, keys: [] },
    ]);
    expect(target!.schedules.events.text).toBe("30s");
    const scheduled = file(`      - id: ${COUNTER}\n        events: true\n`, "schedules:\n  events: 2m\n");
    expect((await runConfig([`--config.file=${scheduled}`])).rpcTargets[0]!.schedules.events.text).toBe("2m");
    const badWithin = file(`      - id: ${COUNTER}\n        expect_events_within: soon\n`);
    expect((await problems([`--config.file=${badWithin}`]))[0]).toMatch(/expect_events_within.*expected a duration/);
  });

  it("--contract.events and CONTRACT_EVENTS=true turn events on for every --contract", async () => {
    const argv = [RPC, `--contract=counter=${COUNTER}`, `--contract=${XLM}`];
    expect((await runConfig(argv)).rpcTargets[0]!.contracts.map((contract) => contract.events)).toEqual([
      undefined,
      undefined,
    ]);
    for (const config of [
      await runConfig([...argv, "--contract.events"]),
      await runConfig(argv, { CONTRACT_EVENTS: "true" }),
    ]) {
      expect(config.rpcTargets[0]!.contracts.map((contract) => contract.events)).toEqual([true, true]);
    }
    expect(await problems(argv, { CONTRACT_EVENTS: "yes" })).toEqual([
      'CONTRACT_EVENTS: expected true or false, got "yes"',
    ]);
  });

  // Quoted, the seed would show twice: as the bad id and as the name it defaults to.
  it.each([
    ["--contract=SEED", [RPC, `--contract=${SEED}`], {}, `--contract: a contract: ${SEED_NOT_CONTRACT}`],
    [
      "CONTRACTS=vault=SEED",
      [RPC],
      { CONTRACTS: `vault=${SEED}` },
      `CONTRACTS: contract "vault": ${SEED_NOT_CONTRACT}`,
    ],
  ])("a seed given as a contract id (%s) is refused without quoting it", async (_, argv, env, line) => {
    expect(await problems(argv, env)).toEqual([line]);
  });

  it("a seed as a file's contract id is refused at its line without quoting it", async () => {
    const path = file(`      - id: ${SEED}\n`);
    expect(await problems([`--config.file=${path}`])).toEqual([
      `${path}:5: rpc_targets[0].contracts[0].id: ${SEED_NOT_CONTRACT}`,
    ]);
  });

  it("the CLI exits 2 with one line for a bad contract id", () => {
    const result = runCli([RPC, "--contract=Cnope"]);
    expectExit(result, 2);
    expect(result.stderr.trim().split("\n")[0]).toBe(
      'stellar-horizon-exporter: --contract: contract "Cnope": "Cnope" is not a contract id (C followed by 55 base32 characters, with a valid checksum)',
    );
  });
});
