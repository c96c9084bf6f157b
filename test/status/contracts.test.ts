import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RPC_METRICS } from "../../src/catalog/metrics.js";
import type { Sample } from "../../src/exposition/samples.js";
import { landingPage } from "../../src/server/landing.js";
import {
  contractEntryState,
  createStatusBoard,
  EXPIRING_SECONDS,
  EXPIRING_SOON_SECONDS,
  statusReport,
} from "../../src/status/model.js";
import { wellFormedProblems } from "../support/well-formed.js";
import { polledTarget } from "./target-view.js";

const NOW_MS = Date.parse("2026-03-01T12:00:00Z");
const NOW_SECONDS = NOW_MS / 1000;
const TESTNET = { label: "rpc", name: "testnet" } as const;
const DAY_SECONDS = 86_400;
/** The close interval the collector multiplies each TTL by. */
const CLOSE_INTERVAL_SECONDS = 5;

const VIEW = polledTarget("rpc", "testnet", NOW_MS);

type Entry = { contract: string; entry: string; durability?: string };

/** The series the contracts collector publishes for one entry in each of its states. */
const entrySeries = {
  live(of: Entry, ttlLedgers: number): Sample[] {
    const labels = { durability: "persistent", ...of };
    return [
      { metric: RPC_METRICS.contractEntryExists, labels, value: 1 },
      { metric: RPC_METRICS.contractEntryArchived, labels, value: 0 },
      { metric: RPC_METRICS.contractEntryLiveUntil, labels, value: 1_000_000 + ttlLedgers },
      { metric: RPC_METRICS.contractEntryTtl, labels, value: ttlLedgers },
      {
        metric: RPC_METRICS.contractEntryExpiry,
        labels,
        value: Math.round(NOW_SECONDS + ttlLedgers * CLOSE_INTERVAL_SECONDS),
      },
    ];
  },
  archived: (of: Entry): Sample[] => [
    { metric: RPC_METRICS.contractEntryExists, labels: { durability: "persistent", ...of }, value: 1 },
    { metric: RPC_METRICS.contractEntryArchived, labels: { durability: "persistent", ...of }, value: 1 },
  ],
  notReturned: (of: Entry): Sample[] => [
    { metric: RPC_METRICS.contractEntryExists, labels: { durability: "persistent", ...of }, value: 0 },
  ],
  unknown: (of: Entry): Sample[] => [
    { metric: RPC_METRICS.contractEntryExists, labels: { durability: "persistent", ...of }, value: 1 },
  ],
};

function reportOf(contractSamples: readonly Sample[]) {
  const board = createStatusBoard(() => NOW_MS);
  board.published(TESTNET, "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] }, NOW_MS + 60_000);
  if (contractSamples.length > 0)
    board.published(TESTNET, "contracts", { live: [...contractSamples], persistent: [] }, NOW_MS + 60_000);
  return statusReport("1", [VIEW], board, NOW_MS);
}

/** The threshold, in seconds, an alert of alerts/stellar-contracts.rules.yml fires below. */
function alertThresholdSeconds(alert: string): number {
  const rules = parse(readFileSync(new URL("../../alerts/stellar-contracts.rules.yml", import.meta.url), "utf8")) as {
    groups: Array<{ rules: Array<{ alert?: string; expr: string }> }>;
  };
  const expr = rules.groups.flatMap((group) => group.rules).find((rule) => rule.alert === alert)!.expr;
  const [, days] = /seconds_to_archival < (\d+) \* 86400$/.exec(expr)!;
  return Number(days) * DAY_SECONDS;
}

describe("a contract entry's state", () => {
  it("changes at the alert rules' thresholds exactly: below 14 days expiring soon, below 3 expiring", () => {
    expect(EXPIRING_SOON_SECONDS).toBe(alertThresholdSeconds("StellarContractEntryExpiringSoon"));
    expect(EXPIRING_SECONDS).toBe(alertThresholdSeconds("StellarContractEntryExpiring"));
    // The alerts fire on `seconds_to_archival < threshold`: at the threshold itself they do not.
    expect(contractEntryState("balance", 1, 0, 14 * DAY_SECONDS)).toBe("live");
    expect(contractEntryState("balance", 1, 0, 14 * DAY_SECONDS - 1)).toBe("expiring_soon");
    expect(contractEntryState("balance", 1, 0, 3 * DAY_SECONDS)).toBe("expiring_soon");
    expect(contractEntryState("balance", 1, 0, 3 * DAY_SECONDS - 1)).toBe("expiring");
    expect(contractEntryState("balance", 1, 0, 0)).toBe("expiring");
  });

  it("is archived, missing for an instance or code not returned, absent for a key not returned, unknown without a TTL", () => {
    expect(contractEntryState("instance", 1, 1, undefined)).toBe("archived");
    expect(contractEntryState("instance", 0, undefined, undefined)).toBe("missing");
    expect(contractEntryState("code", 0, undefined, undefined)).toBe("missing");
    expect(contractEntryState("balance", 0, undefined, undefined)).toBe("absent");
    expect(contractEntryState("instance", 1, undefined, undefined)).toBe("unknown");
  });
});

describe("the contracts report", () => {
  const samples = [
    ...entrySeries.live({ contract: "counter", entry: "instance" }, 3_000_000),
    ...entrySeries.notReturned({ contract: "counter", entry: "code" }),
    // 120 960 ledgers at 5 s: exactly 7 days.
    ...entrySeries.live({ contract: "counter", entry: "balance" }, 120_960),
    ...entrySeries.notReturned({ contract: "counter", entry: "nonce", durability: "temporary" }),
    ...entrySeries.archived({ contract: "usdc", entry: "instance" }),
    // 17 280 ledgers at 5 s: exactly 1 day.
    ...entrySeries.live({ contract: "vault", entry: "instance" }, 17_280),
    ...entrySeries.unknown({ contract: "vault", entry: "code" }),
    {
      metric: RPC_METRICS.contractInfo,
      labels: { contract: "counter", contract_id: "CCOUNTER", executable: "wasm", wasm_hash: "ab" },
      value: 1,
    },
  ];
  const report = reportOf(samples);
  const contracts = report.targets[0]!.contracts!;

  it("gives each entry its TTL, days left from its expected archival, expiry time and state", () => {
    expect(contracts.find(({ contract, entry }) => contract === "counter" && entry === "balance")).toEqual({
      contract: "counter",
      contractId: "CCOUNTER",
      entry: "balance",
      durability: "persistent",
      state: "expiring_soon",
      exists: {
        metric: "stellar_rpc_contract_entry_exists",
        labels: { contract: "counter", entry: "balance", durability: "persistent" },
        value: 1,
      },
      archived: {
        metric: "stellar_rpc_contract_entry_archived",
        labels: { contract: "counter", entry: "balance", durability: "persistent" },
        value: 0,
      },
      ttlLedgers: {
        metric: "stellar_rpc_contract_entry_ttl_ledgers",
        labels: { contract: "counter", entry: "balance", durability: "persistent" },
        value: 120_960,
      },
      expiryTimestampSeconds: {
        metric: "stellar_rpc_contract_entry_expiry_timestamp_seconds",
        labels: { contract: "counter", entry: "balance", durability: "persistent" },
        value: NOW_SECONDS + 7 * DAY_SECONDS,
      },
      expiresAt: "2026-03-08T12:00:00.000Z",
      daysLeft: 7,
    });
    expect(contracts.find(({ contract, entry }) => contract === "counter" && entry === "instance")!.daysLeft).toBe(
      (3_000_000 * 5) / DAY_SECONDS,
    );
    expect(contracts.find(({ contract }) => contract === "vault")!.daysLeft).toBe(1);
  });

  it("sorts entries by time to archival: archived and missing first, then the soonest, then those without a time", () => {
    expect(contracts.map(({ contract, entry, state }) => `${contract}/${entry} ${state}`)).toEqual([
      "counter/code missing",
      "usdc/instance archived",
      "vault/instance expiring",
      "counter/balance expiring_soon",
      "counter/instance live",
      "counter/nonce absent",
      "vault/code unknown",
    ]);
  });

  const page = String(landingPage(report));
  const rows = [
    ...page.matchAll(/<tr><td>(?:<span title="[^"]*">)?([^<]+)(?:<\/span>)?<\/td><td>([^<]+)<\/td>.*?<\/tr>/g),
  ];

  it("shows one row per entry in the same order, days left right-aligned, a word in a coloured badge", () => {
    expect(rows.map(([, contract, entry]) => `${contract}/${entry}`)).toEqual([
      "counter/code",
      "usdc/instance",
      "vault/instance",
      "counter/balance",
      "counter/instance",
      "counter/nonce",
      "vault/code",
    ]);
    const rowOf = (contract: string, entry: string) => rows.find(([, c, e]) => c === contract && e === entry)![0];
    expect(rowOf("counter", "balance")).toContain('<td class="num">7.0</td>');
    expect(rowOf("counter", "balance")).toContain('data-value="120960">120960</span>');
    expect(rowOf("counter", "balance")).toContain(
      `data-value="${NOW_SECONDS + 7 * DAY_SECONDS}">2026-03-08 12:00 UTC</span>`,
    );
    expect(rowOf("counter", "instance")).toContain('<td class="num">173.6</td>');
    const badge = (contract: string, entry: string) =>
      /<span class="badge ([^"]+)" title="[^"]+">([^<]+)<\/span>/.exec(rowOf(contract, entry))!.slice(1);
    expect(badge("counter", "instance")).toEqual(["live", "live"]);
    expect(badge("counter", "balance")).toEqual(["expiring-soon", "expiring soon"]);
    expect(badge("vault", "instance")).toEqual(["expiring", "expiring"]);
    expect(badge("usdc", "instance")).toEqual(["archived", "archived"]);
    expect(badge("counter", "code")).toEqual(["missing", "missing"]);
    expect(badge("counter", "nonce")).toEqual(["absent", "absent"]);
    expect(badge("vault", "code")).toEqual(["unknown", "unknown"]);
    // The colours: green, amber, red; absent and unknown keep the grey every badge starts with.
    expect(page).toContain(".badge.live { background: #1a7f37; }");
    expect(page).toContain(".badge.expiring-soon { background: #9a6700; }");
    expect(page).toContain(".badge.expiring, .badge.archived, .badge.missing { background: #cf222e; }");
    expect(page).toMatch(/\.badge \{[^}]*white-space: nowrap;[^}]*background: #57606a;/);
    expect(page).toContain('<span title="CCOUNTER">counter</span>');
    expect(wellFormedProblems(page)).toEqual([]);
  });

  it("has no contracts section when no contract is watched", () => {
    const bare = reportOf([]);
    expect(bare.targets[0]!.contracts).toBeUndefined();
    expect(String(landingPage(bare))).not.toContain("Watched contracts");
  });

  it("shows the first 100 entries and says where the rest are", () => {
    const many = Array.from({ length: 130 }, (_, index) =>
      entrySeries.live({ contract: `c${String(index).padStart(3, "0")}`, entry: "instance" }, 1_000 + index),
    ).flat();
    const manyReport = reportOf(many);
    expect(manyReport.targets[0]!.contracts).toHaveLength(130);
    const manyPage = String(landingPage(manyReport));
    expect(manyPage.match(/<span class="badge expiring"/g)).toHaveLength(100);
    expect(manyPage).toContain("soonest archival first; 30 more in /status.json");
    expect(manyPage).toContain("<td>c099</td>");
    expect(manyPage).not.toContain("<td>c100</td>");
  });
});

describe("an RPC that goes down", () => {
  const DOWN_MS = NOW_MS + 60_000;
  const LATER_MS = NOW_MS + 180_000;
  const balance = { contract: "counter", entry: "balance" };

  /** Contracts polled at NOW_MS; 60 s later the RPC stops answering: both polls fail, up turns 0. */
  function boardGoingDown(contractSamples: readonly Sample[]) {
    const time = { nowMs: NOW_MS };
    const board = createStatusBoard(() => time.nowMs);
    board.published(
      TESTNET,
      "status",
      { live: [], persistent: [{ metric: RPC_METRICS.up, value: 1 }] },
      NOW_MS + 60_000,
    );
    board.published(TESTNET, "contracts", { live: [...contractSamples], persistent: [] }, NOW_MS + 60_000);
    time.nowMs = DOWN_MS;
    board.published(TESTNET, "status", { live: [], persistent: [{ metric: RPC_METRICS.up, value: 0 }] }, 0);
    board.published(TESTNET, "contracts", { live: [], persistent: [] }, 0);
    return board;
  }

  it("keeps its contract entries as last published, with their age, days left counting down to now", () => {
    // 7 days, and 20 ledgers (100 s) at the last poll.
    const board = boardGoingDown([
      ...entrySeries.live(balance, 120_960),
      ...entrySeries.live({ contract: "vault", entry: "instance" }, 20),
    ]);
    const [target] = statusReport("1", [VIEW], board, LATER_MS).targets;
    expect(target!.state).toBe("down");
    expect(target!.contracts).toBeUndefined();
    const kept = target!.lastKnown!.contracts!;
    expect(kept.ageSeconds).toBe(180);
    const labels = { contract: "counter", entry: "balance", durability: "persistent" };
    expect(kept.value.find(({ entry }) => entry === "balance")).toEqual({
      contract: "counter",
      entry: "balance",
      durability: "persistent",
      state: "expiring_soon",
      exists: { metric: "stellar_rpc_contract_entry_exists", labels, value: 1 },
      archived: { metric: "stellar_rpc_contract_entry_archived", labels, value: 0 },
      ttlLedgers: { metric: "stellar_rpc_contract_entry_ttl_ledgers", labels, value: 120_960 },
      expiryTimestampSeconds: {
        metric: "stellar_rpc_contract_entry_expiry_timestamp_seconds",
        labels,
        value: NOW_SECONDS + 7 * DAY_SECONDS,
      },
      expiresAt: "2026-03-08T12:00:00.000Z",
      // Three minutes less than at the last poll: the network archives on time whether the RPC answers or not.
      daysLeft: (7 * DAY_SECONDS - 180) / DAY_SECONDS,
    });
    // The vault's 100 s ran out while the RPC was down: 0 days left, expiring, not live.
    expect(kept.value.find(({ contract }) => contract === "vault")).toMatchObject({ state: "expiring", daysLeft: 0 });

    const page = String(landingPage(statusReport("1", [VIEW], board, LATER_MS)));
    expect(page).toContain(
      '<table class="stale">\n<caption>Watched contracts <span class="note">(as of 3 min ago: no fresh data since; soonest archival first; days left counted to now)</span></caption>',
    );
    // Its values are no longer series of /metrics: shown, greyed, without claiming one.
    expect(page).toContain(
      '<td class="num"><span class="kept" data-value="120960">120960</span></td><td class="num">7.0</td>',
    );
    expect(page).not.toContain("stellar_rpc_contract_entry");
    expect(wellFormedProblems(page)).toEqual([]);
  });

  it("keeps what the last poll said, never a mix with an older one", () => {
    const time = { nowMs: NOW_MS - 60_000 };
    const board = createStatusBoard(() => time.nowMs);
    board.published(TESTNET, "contracts", { live: entrySeries.live(balance, 120_960), persistent: [] }, NOW_MS);
    time.nowMs = NOW_MS;
    board.published(TESTNET, "contracts", { live: entrySeries.archived(balance), persistent: [] }, NOW_MS + 60_000);
    time.nowMs = DOWN_MS;
    board.published(TESTNET, "contracts", { live: [], persistent: [] }, 0);
    const [entry] = statusReport("1", [VIEW], board, LATER_MS).targets[0]!.lastKnown!.contracts!.value;
    expect(entry).toMatchObject({ state: "archived", archived: { value: 1 } });
    expect(entry!.ttlLedgers).toBeUndefined();
    expect(entry!.daysLeft).toBeUndefined();
  });

  it("keeps nothing of a contracts job that left (no longer watched), and nothing while the entries are fresh", () => {
    const board = boardGoingDown(entrySeries.live(balance, 120_960));
    board.removed(TESTNET, "contracts");
    const [target] = statusReport("1", [VIEW], board, LATER_MS).targets;
    expect(target!.lastKnown?.contracts).toBeUndefined();
    expect(String(landingPage(statusReport("1", [VIEW], board, LATER_MS)))).not.toContain("Watched contracts");
    expect(reportOf(entrySeries.live(balance, 120_960)).targets[0]!.lastKnown).toBeUndefined();
  });
});
