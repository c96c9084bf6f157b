import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@stellar/stellar-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.js";
import { secretFileWarning, TX_PROBE_ACCOUNT_NAME } from "../src/config/tx-probe.js";

/** A seed pasted where its file or variable is named belongs in no problem. */
const PASTED = Keypair.random().secret();

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "tx-probe-config-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function load(probe: string, env: NodeJS.ProcessEnv = {}, url = "http://127.0.0.1:8000") {
  const configFile = join(directory, "config.yml");
  await writeFile(
    configFile,
    `targets:\n  - name: t\n    url: ${url}\n    tx_probe:\n${probe.replace(/^/gm, "      ")}\n`,
  );
  return loadConfig([`--config.file=${configFile}`], env);
}

describe("tx_probe configuration", () => {
  it("reads the seed from an environment variable, applies the defaults and watches the probe's account", async () => {
    const signer = Keypair.random();
    const command = await load("secret_env: PROBE_SEED", { PROBE_SEED: signer.secret() });
    if (command.kind !== "run") throw new Error(JSON.stringify(command));
    const { txProbe, accounts } = command.config.targets[0]!;
    expect(txProbe).toMatchObject({
      maxFee: 1000,
      allowPubnet: false,
      accountId: signer.publicKey(),
      schedule: { text: "1m", periodMs: 60_000 },
    });
    expect(txProbe!.signer.reveal().secret()).toBe(signer.secret());
    expect(accounts).toEqual([expect.objectContaining({ name: TX_PROBE_ACCOUNT_NAME, id: signer.publicKey() })]);
    // Nothing serialised from the configuration (as reload keys are) holds the seed.
    expect(JSON.stringify(command.config)).not.toContain(signer.secret());
  });

  it("takes a croner pattern, max_fee and allow_pubnet", async () => {
    const command = await load(
      `secret_env: S\ninterval: "*/30 * * * * *"\nmax_fee: 5000\nallow_pubnet: true`,
      { S: Keypair.random().secret() },
      "https://horizon.stellar.org",
    );
    if (command.kind !== "run") throw new Error(JSON.stringify(command));
    expect(command.config.targets[0]!.txProbe).toMatchObject({
      maxFee: 5000,
      allowPubnet: true,
      schedule: { periodMs: 30_000 },
    });
  });

  it.each([
    ["both sources", "secret_env: A\nsecret_file: /x", /give exactly one of secret_file or secret_env/],
    ["no source", "max_fee: 1000", /give exactly one of secret_file or secret_env/],
    ["a fee below the base fee", "secret_env: A\nmax_fee: 50", /max_fee: expected at least the network's base fee/],
    ["a bad interval", "secret_env: A\ninterval: soon", /interval: "soon" is neither/],
    ["an unset variable", "secret_env: MISSING", /tx_probe.secret_env MISSING: the environment variable is not set$/],
    ["an empty variable", "secret_env: EMPTY", /tx_probe.secret_env EMPTY: the environment variable is empty$/],
    [
      "a variable without a seed",
      "secret_env: NOT_A_SEED",
      /tx_probe.secret_env NOT_A_SEED: does not hold a valid Stellar secret seed \(S...\)$/,
    ],
    [
      "a missing file",
      "secret_file: /nonexistent/probe.secret",
      /tx_probe.secret_file \/nonexistent\/probe.secret: cannot be read \(ENOENT\)/,
    ],
    [
      "the seed itself as secret_env",
      `secret_env: ${PASTED}`,
      /tx_probe.secret_env: that is the seed itself: put it in an environment variable and give its name$/,
    ],
    [
      "the seed itself as secret_file",
      `secret_file: ${PASTED}`,
      /tx_probe.secret_file: that is the seed itself: put it in a file readable by the exporter alone and give its path$/,
    ],
  ])("refuses %s with one line", async (_, probe, message) => {
    const command = await load(probe, { A: Keypair.random().secret(), EMPTY: "", NOT_A_SEED: "hunter2" });
    expect(command.kind).toBe("invalid");
    if (command.kind !== "invalid") return;
    expect(command.problems).toEqual([expect.stringMatching(message)]);
    expect(command.problems.join("\n")).not.toContain(PASTED);
  });

  it.each(["https://horizon.stellar.org", "https://horizon.stellar.org./"])(
    "refuses %s, pubnet's Horizon, without allow_pubnet",
    async (url) => {
      const command = await load("secret_env: S", { S: Keypair.random().secret() }, url);
      expect(command.kind).toBe("invalid");
      if (command.kind !== "invalid") return;
      expect(command.problems).toEqual([expect.stringMatching(/serves pubnet, where every probe spends real lumens/)]);
    },
  );

  it("warns about a seed file readable by group or others, not about a private one", async () => {
    const file = join(directory, "probe.secret");
    await writeFile(file, Keypair.random().secret());
    await chmod(file, 0o640);
    expect(await secretFileWarning(file)).toBe(
      `tx_probe secret file ${file} is readable by group or others (mode 640); chmod 600 it`,
    );
    await chmod(file, 0o600);
    expect(await secretFileWarning(file)).toBeUndefined();
  });
});
