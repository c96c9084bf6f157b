import { describe, expect, it } from "vitest";
import type { TargetAgreement } from "../../src/agreement/engine.js";
import { landingPage } from "../../src/server/landing.js";
import { createStatusBoard, statusReport, type TargetView } from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";

const NOW_MS = Date.parse("2026-01-01T00:00:30Z");

function standing(target: string, overrides: Partial<TargetAgreement>): TargetAgreement {
  return {
    kind: "horizon",
    target,
    network: "testnet",
    comparisons: 40,
    disagreements: 0,
    lastDisagreement: undefined,
    disagreeing: false,
    protocolBehind: 0,
    ...overrides,
  };
}

function view(name: string, agreement?: TargetAgreement): TargetView {
  return {
    label: "horizon",
    name,
    title: name,
    url: `https://${name}.example/`,
    endpoints: [],
    ...(agreement ? { agreement } : {}),
  };
}

describe("the landing page and /status.json", () => {
  const report = statusReport(
    "1.2.3",
    [
      view("honest", standing("honest", {})),
      view(
        "forked",
        standing("forked", { disagreements: 12, lastDisagreement: 59_000_140, disagreeing: true, protocolBehind: 1 }),
      ),
      view("healed", standing("healed", { disagreements: 3, lastDisagreement: 58_000_000, disagreeing: false })),
      view("alone", standing("alone", { network: "baefd734", comparisons: 0 })),
      view("starting"),
    ],
    createStatusBoard(() => NOW_MS),
    NOW_MS,
  );
  const page = String(landingPage(report));
  const cardOf = (name: string) =>
    page.split('<section class="card').find((card) => card.includes(`</span> ${name}</h2>`)) ?? "";

  it("report each target's agreement with its network", () => {
    const [honest, forked, , , starting] = report.targets;
    expect(honest?.agreement).toEqual({
      network: "testnet",
      comparisons: 40,
      disagreements: 0,
      disagreeing: false,
      protocolBehind: 0,
    });
    expect(forked?.agreement).toEqual({
      network: "testnet",
      comparisons: 40,
      disagreements: 12,
      disagreeing: true,
      lastDisagreementLedger: 59_000_140,
      protocolBehind: 1,
    });
    expect(starting?.agreement).toBeUndefined();
  });

  it("mark a target that disagrees, and only while its disagreement is recent", () => {
    expect(wellFormedProblems(page)).toEqual([]);
    expect(cardOf("forked")).toContain('<span class="badge disagrees"');
    expect(cardOf("forked")).toContain("12 of 40 ledgers disagreed");
    expect(cardOf("forked")).toContain("last at ledger 59000140");
    expect(cardOf("honest")).not.toContain("badge disagrees");
    expect(cardOf("honest")).toContain("agrees");
    expect(cardOf("healed")).not.toContain("badge disagrees");
    expect(cardOf("alone")).toContain("no other target of baefd734 compared yet");
    expect(cardOf("starting")).not.toContain("Agreement");
    expect(page.match(/badge disagrees/g)).toHaveLength(1);
  });
});
