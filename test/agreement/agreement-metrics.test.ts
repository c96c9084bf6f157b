import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { NetworkAgreement } from "../../src/agreement/agreement.js";
import { OwnRegistry } from "../../src/exposition/self-metrics.js";
import { parseExposition, valueOf } from "../support/exposition.js";
import { requireBinary } from "../alerts/tools.js";

const PUBNET = "Public Global Stellar Network ; September 2015";
const STANDALONE = "Standalone Network ; February 2017";

async function exposition(registry: OwnRegistry): Promise<string> {
  return registry.registry.metrics();
}

describe("the agreement series", () => {
  it("give each network's targets, each target's comparisons, disagreements and protocol lag, and pass promtool", async () => {
    const registry = new OwnRegistry();
    const agreement = new NetworkAgreement(registry);
    const sdf = { kind: "horizon", target: "sdf" } as const;
    const own = { kind: "rpc", target: "own" } as const;
    const forked = { kind: "horizon", target: "forked" } as const;
    const lab = { kind: "rpc", target: "lab" } as const;
    for (const id of [sdf, own, forked]) agreement.passphrase(id, PUBNET);
    agreement.passphrase(lab, STANDALONE);
    agreement.protocol(sdf, 23);
    agreement.protocol(own, 23);
    agreement.protocol(forked, 22);
    agreement.ledgers(sdf, [
      { sequence: 10, hash: "aa" },
      { sequence: 11, hash: "bb" },
    ]);
    agreement.ledgers(forked, [
      { sequence: 10, hash: "aa" },
      { sequence: 11, hash: "ff" },
    ]);
    agreement.ledgers(own, [{ sequence: 11, hash: "bb" }]);
    agreement.ledgers(lab, [{ sequence: 11, hash: "cc" }]);

    const text = await exposition(registry);
    const series = parseExposition(text);
    const labels = (network: string, id: { kind: string; target: string }) => ({ network, ...id });
    expect(valueOf(series, "stellar_network_targets", { network: "pubnet" })).toBe(3);
    expect(valueOf(series, "stellar_network_targets", { network: "baefd734" })).toBe(1);
    expect(valueOf(series, "stellar_network_ledger_hash_comparisons_total", labels("pubnet", sdf))).toBe(2);
    expect(valueOf(series, "stellar_network_ledger_hash_comparisons_total", labels("pubnet", own))).toBe(1);
    expect(valueOf(series, "stellar_network_ledger_hash_comparisons_total", labels("pubnet", forked))).toBe(2);
    expect(valueOf(series, "stellar_network_ledger_hash_disagreements_total", labels("pubnet", sdf))).toBe(0);
    expect(valueOf(series, "stellar_network_ledger_hash_disagreements_total", labels("pubnet", own))).toBe(0);
    expect(valueOf(series, "stellar_network_ledger_hash_disagreements_total", labels("pubnet", forked))).toBe(1);
    expect(valueOf(series, "stellar_network_ledger_hash_comparisons_total", labels("baefd734", lab))).toBe(0);
    expect(valueOf(series, "stellar_network_target_protocol_behind", labels("pubnet", forked))).toBe(1);
    expect(valueOf(series, "stellar_network_target_protocol_behind", labels("pubnet", sdf))).toBe(0);
    expect(valueOf(series, "stellar_network_target_protocol_behind", labels("baefd734", lab))).toBeUndefined();
    expect(agreement.standing(forked)).toMatchObject({ disagreements: 1, lastDisagreement: 11 });
    expect(
      execFileSync(requireBinary("promtool"), ["check", "metrics"], { input: text, encoding: "utf8" }).trim(),
    ).toBe("");
  });

  it("only rise while the process runs, when the engine starts a target's counts again", async () => {
    const registry = new OwnRegistry();
    const agreement = new NetworkAgreement(registry);
    const sdf = { kind: "horizon", target: "sdf" } as const;
    const own = { kind: "rpc", target: "own" } as const;
    const labels = { network: "pubnet", ...own };
    const comparisons = async () =>
      valueOf(parseExposition(await exposition(registry)), "stellar_network_ledger_hash_comparisons_total", labels);
    for (const id of [sdf, own]) agreement.passphrase(id, PUBNET);
    agreement.ledgers(
      sdf,
      [10, 11, 12].map((sequence) => ({ sequence, hash: `h${sequence}` })),
    );
    agreement.ledgers(
      own,
      [10, 11].map((sequence) => ({ sequence, hash: `h${sequence}` })),
    );
    expect(await comparisons()).toBe(2);
    // A fuzzed answer names another network for a moment: the engine moves the target and starts again.
    agreement.passphrase(own, STANDALONE);
    agreement.passphrase(own, PUBNET);
    agreement.ledgers(own, [{ sequence: 12, hash: "h12" }]);
    expect(await comparisons()).toBe(3);
  });

  it("drop a removed target's series, and a network left without targets", async () => {
    const registry = new OwnRegistry();
    const agreement = new NetworkAgreement(registry);
    const lab = { kind: "rpc", target: "lab" } as const;
    agreement.passphrase(lab, STANDALONE);
    agreement.protocol(lab, 22);
    agreement.remove(lab);
    expect(await exposition(registry)).not.toMatch(/^stellar_network/m);
  });
});
