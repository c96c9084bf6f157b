/** The agreement series stay bounded under a target whose passphrase keeps changing. */
import { expect, it } from "vitest";
import { NetworkAgreement } from "../../src/agreement/agreement.js";
import { OwnRegistry } from "../../src/exposition/self-metrics.js";
import { parseExposition } from "../support/exposition.js";

it("a target whose root names a new passphrase at every poll does not grow the agreement series without bound", async () => {
  const registry = new OwnRegistry();
  const agreement = new NetworkAgreement(registry);
  const flaky = { kind: "horizon", target: "flaky" } as const;
  // A hostile or broken Horizon (or a proxy in front of many) answers each root poll with another passphrase.
  for (let poll = 0; poll < 200; poll += 1) agreement.passphrase(flaky, `Private network ${poll}`);
  const text = await registry.registry.metrics();
  const series = [...parseExposition(text).keys()].filter((key) =>
    key.startsWith("stellar_network_ledger_hash_comparisons_total{"),
  );
  // One target: its series on the network it serves now (at most one more, the one it left last).
  expect(series.length).toBeLessThanOrEqual(2);
});

it("a target flapping between two networks keeps both networks' series", async () => {
  const registry = new OwnRegistry();
  const agreement = new NetworkAgreement(registry);
  const flapping = { kind: "horizon", target: "flapping" } as const;
  for (let poll = 0; poll < 10; poll += 1)
    agreement.passphrase(flapping, poll % 2 === 0 ? "Test SDF Network ; September 2015" : "Private network");
  const series = [...parseExposition(await registry.registry.metrics()).keys()].filter((key) =>
    key.startsWith("stellar_network_ledger_hash_comparisons_total{"),
  );
  expect(series).toHaveLength(2);
});
