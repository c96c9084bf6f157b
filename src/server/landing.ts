import { html, raw } from "hono/html";
import { assetCode } from "../config/markets.js";
import type { Labels } from "../exposition/samples.js";
import { HISTORY_WINDOW_MS, QUANTILE_WINDOW_MS, type Figure } from "../status/board.js";
import { SPARKLINES, type KnownBefore, type StatusReport, type TargetReport, upstreamIso } from "../status/model.js";
import { sparkline } from "../status/sparkline.js";
import {
  badge,
  headerAndRows,
  headerRow,
  note,
  num,
  row,
  shortAsset,
  shortened,
  table,
  td,
  unit,
  type Column,
} from "./landing-html.js";

/** The page reloads itself this often; matches the demo's poll interval. */
const REFRESH_SECONDS = 10;

/** A backslash at a line's end continues the rule on the next line: each rule is one line of the page. */
const STYLESHEET = `
body { font-family: system-ui, sans-serif; margin: 0; color: #1d2330; background: #f3f4f8; }
header { background: #1d2330; color: #fff; padding: 0.8rem 1.5rem; }
header h1 { margin: 0; font-size: 1.3rem; }
header p { margin: 0.3rem 0 0; font-size: 0.85rem; }
header a { color: #bcd3ff; }
header code { background: #33405a; color: #fff; }
main { padding: 1rem 1.5rem; display: grid; gap: 1rem; }
.card { background: #fff; border: 1px solid #ccd; border-left: 8px solid #57606a; border-radius: 6px; \
padding: 0.8rem 1rem; }
.card.up { border-left-color: #1a7f37; }
.card.degraded { border-left-color: #bf8700; }
.card.down { border-left-color: #cf222e; }
.card h2 { margin: 0 0 0.3rem; font-size: 1.15rem; }
.url { margin: 0 0 0.6rem; font-size: 0.8rem; color: #57606a; }
.badge { display: inline-block; white-space: nowrap; padding: 0.05rem 0.45rem; border-radius: 4px; color: #fff; \
font-size: 0.75rem; font-weight: 700; letter-spacing: 0.04em; vertical-align: middle; background: #57606a; }
.badge.up, .badge.ok { background: #1a7f37; }
.badge.degraded, .badge.running, .badge.low { background: #9a6700; }
.badge.down, .badge.failing, .badge.disagrees { background: #cf222e; }
.badge.live { background: #1a7f37; }
.badge.expiring-soon { background: #9a6700; }
.badge.expiring, .badge.archived, .badge.missing { background: #cf222e; }
dl.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 0.4rem 1rem; \
margin: 0 0 0.8rem; }
dl.figures div { border-bottom: 1px solid #eef; padding-bottom: 0.2rem; }
dl.figures div.wide { grid-column: span 2; }
dl.figures div.wide dd { font-size: 0.85rem; }
dt { font-size: 0.75rem; color: #57606a; }
dd { margin: 0; font-size: 1.05rem; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.stale { color: #8c959f; }
.unit, .note { font-size: 0.8rem; color: #57606a; }
.sparks { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 0.5rem 1rem; \
margin-bottom: 0.8rem; }
figure { margin: 0; }
.spark { width: 100%; height: auto; }
figcaption { font-size: 0.8rem; color: #1d2330; }
.spark .frame { fill: #f8f9fc; stroke: #ccd; }
.spark .line { fill: none; stroke: #2f5bd3; stroke-width: 1.5; }
.spark .last { fill: #2f5bd3; }
.spark text { font-size: 10px; fill: #57606a; }
table { border-collapse: collapse; margin-bottom: 0.8rem; }
caption { text-align: left; font-weight: 600; font-size: 0.9rem; padding-bottom: 0.2rem; }
th, td { border: 1px solid #dde; padding: 0.25rem 0.5rem; text-align: left; font-size: 0.85rem; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #eef; }
code { background: #f4f4f8; padding: 0 0.2rem; }
`;

type EndpointReport = TargetReport["endpoints"][number];
type AccountReport = NonNullable<TargetReport["accounts"]>[number];
type ContractEntryReport = NonNullable<TargetReport["contracts"]>[number];
type AssetReport = NonNullable<TargetReport["assets"]>[number];
type MarketReport = NonNullable<TargetReport["markets"]>[number];
type CorridorReport = NonNullable<TargetReport["corridors"]>[number];

/** Whose series a figure is; `keptAgeSeconds` for a section kept from its poll's last publication (not on /metrics). */
type SeriesOwner = Pick<TargetReport, "kind" | "name"> & { readonly keptAgeSeconds?: number };

/** A section's table: a kept one greyed, how old it is first among its caption's notes. */
function sectionTable(owner: SeriesOwner, title: string, notes: readonly string[], header: unknown, rows: unknown) {
  const kept = owner.keptAgeSeconds;
  const all = kept === undefined ? notes : [`as of ${relative(kept * 1000)}: no fresh data since`, ...notes];
  const caption = all.length === 0 ? title : html`${title} <span class="note">(${all.join("; ")})</span>`;
  return table(caption, header, rows, kept !== undefined);
}

function seriesKey(owner: SeriesOwner, figure: Figure): string {
  const labels: Labels = { [owner.kind]: owner.name, ...figure.labels };
  const names = Object.keys(labels).sort();
  return `${figure.metric}{${names.map((name) => `${name}="${labels[name]}"`).join(",")}}`;
}

/** What a figure without a series reads; a unit after it would say nothing. */
const NO_DATA = html`<span class="note">no data</span>`;

/** A figure's text with its series and exact value for scripts and tests; a kept one's value alone. */
function figureValue(owner: SeriesOwner, figure: Figure | undefined, format: (value: number) => string = String) {
  if (figure === undefined) return NO_DATA;
  const value = String(figure.value);
  const shown = format(figure.value);
  if (owner.keptAgeSeconds !== undefined) return html`<span class="kept" data-value="${value}">${shown}</span>`;
  return html`<span class="figure" data-series="${seriesKey(owner, figure)}" data-value="${value}">${shown}</span>`;
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

function item(term: string, value: unknown, units = "", wide = false) {
  const after = units !== "" && value !== NO_DATA ? html` ${unit(units)}` : "";
  return html`<div${wide ? raw(' class="wide"') : ""}><dt>${term}</dt><dd>${value}${after}</dd></div>`;
}

/** "8 s ago", "3 min ago", "2 h ago". */
function relative(ageMs: number): string {
  const seconds = Math.max(0, Math.round(ageMs / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}

/** A moment as its age, the exact time on hover. */
const moment = (isoTime: string, ageMs: number) =>
  html`<time datetime="${isoTime}" title="${isoTime}">${relative(ageMs)}</time>`;

const ago = (isoTime: string, nowMs: number) => moment(isoTime, nowMs - Date.parse(isoTime));

/** A figure; while it is absent, its last known value, greyed, with its age: what an operator needs while down. */
function orKnown(current: unknown, known: KnownBefore | undefined) {
  if (current !== undefined && current !== NO_DATA) return current;
  if (known === undefined) return NO_DATA;
  const age = unit(`(${relative(known.ageSeconds * 1000)})`);
  return html`<span class="stale" title="last known value; no fresh data since">${String(known.value)} ${age}</span>`;
}

function latestLedger(target: TargetReport) {
  const { latestLedger: ledger, latestLedgerAgeSeconds: age, latestLedgerClosedTimestampSeconds: closedAt } = target;
  if (ledger === undefined) return orKnown(NO_DATA, target.lastKnown?.latestLedger);
  // A close time no Date holds (an RPC may send any uint64) is left out: the page must still render.
  const closedIso = closedAt && upstreamIso(closedAt.value * 1000);
  if (age === undefined || closedIso === undefined) return figureValue(target, ledger);
  const closed = moment(closedIso, age * 1000);
  return html`${figureValue(target, ledger)} ${unit(html`closed ${closed}`)}`;
}

/** A fee in stroops, and how many times the base fee that is when both are known. */
function feeItem(target: TargetReport, term: string, fee: Figure | undefined) {
  const base = target.baseFeeStroops?.value ?? 0;
  const times = fee === undefined || base <= 0 ? "" : `, ${Number((fee.value / base).toFixed(1))}× the base fee`;
  return item(term, figureValue(target, fee), `stroops${times}`);
}

/** The share of failed transactions, and how many of how many since the exporter started. */
function failedTransactions(target: TargetReport) {
  const transactions = target.transactions;
  if (transactions === undefined || transactions.failedShare === null) return NO_DATA;
  const total = String(transactions.failed.value + transactions.successful.value);
  const counts = unit(html`(${figureValue(target, transactions.failed)} of ${total} since start)`);
  return html`${percent(transactions.failedShare)} ${counts}`;
}

function horizonFigures(target: TargetReport) {
  return html`<dl class="figures">
${item("Network", orKnown(target.network, target.lastKnown?.network))}
${item("Horizon version", orKnown(target.horizonVersion, target.lastKnown?.horizonVersion), "", true)}
${item("Core version", orKnown(target.coreVersion, target.lastKnown?.coreVersion), "", true)}
${item("Protocol", orKnown(figureValue(target, target.protocolVersion), target.lastKnown?.protocolVersion))}
${item("Latest ledger", latestLedger(target))}
${item("Ingest lag", figureValue(target, target.ingestLagLedgers), "ledgers")}
${feeItem(target, "Fee charged p50", target.feeChargedP50Stroops)}
${feeItem(target, "Fee charged p90", target.feeChargedP90Stroops)}
${item("Base fee", figureValue(target, target.baseFeeStroops), "stroops")}
${item("Ledger capacity used", figureValue(target, target.ledgerCapacityUsageRatio, percent))}
${item("Failed transactions", failedTransactions(target))}
${item("Pools tracked", figureValue(target, target.liquidityPools))}
</dl>`;
}

function rpcFigures(target: TargetReport, rpc: NonNullable<TargetReport["rpc"]>) {
  const { healthy, oldestLedger: oldest } = rpc;
  const word = (value: number) => (value === 1 ? "healthy" : "unhealthy");
  const health = healthy && badge(healthy.value === 1 ? "ok" : "failing", figureValue(target, healthy, word));
  const from = oldest === undefined ? "" : html` ${unit(html`ledgers, from ${figureValue(target, oldest)}`)}`;
  return html`<dl class="figures">
${item("Network", orKnown(target.network, target.lastKnown?.network))}
${item("RPC version", orKnown(rpc.version, target.lastKnown?.version), "", true)}
${item("Captive core version", orKnown(rpc.captiveCoreVersion, target.lastKnown?.captiveCoreVersion), "", true)}
${item("Protocol", orKnown(figureValue(target, target.protocolVersion), target.lastKnown?.protocolVersion))}
${item("Latest ledger", latestLedger(target))}
${item("Health", health ?? NO_DATA)}
${item("Retention window", html`${figureValue(target, rpc.retentionWindowLedgers)}${from}`)}
${item("Soroban inclusion fee p50", figureValue(target, rpc.sorobanInclusionFeeP50Stroops), "stroops")}
${item("Soroban inclusion fee p90", figureValue(target, rpc.sorobanInclusionFeeP90Stroops), "stroops")}
${item("Classic inclusion fee p50", figureValue(target, rpc.classicInclusionFeeP50Stroops), "stroops")}
${item("Classic inclusion fee p90", figureValue(target, rpc.classicInclusionFeeP90Stroops), "stroops")}
</dl>`;
}

function sparklines(target: TargetReport, nowMs: number) {
  return html`<div class="sparks">
${SPARKLINES[target.kind].map(({ id, title, unit: units, percent: ratio }) => {
  const points = (target.history[id] ?? []).map(([atMs, value]) => ({ atMs, value }));
  const format = ratio ? (value: number) => (value * 100).toFixed(1) : undefined;
  const svg = sparkline(points, { title, unit: units, windowMs: HISTORY_WINDOW_MS, nowMs, format });
  return html`<figure>${raw(svg)}<figcaption>${title} (${units})</figcaption></figure>`;
})}
</div>`;
}

/** An account whose state needs a look: missing, or a balance below its low-water mark. */
const needsAttention = (account: AccountReport) =>
  account.exists?.value === 0 || account.balances.some(({ low }) => low);

function accountsTable(owner: SeriesOwner, accounts: readonly AccountReport[]) {
  // Those that need a look first: of 10 000 watched accounts, the page shows SECTION_ROWS.
  const others = accounts.filter((account) => !needsAttention(account));
  const shown = [...accounts.filter(needsAttention), ...others].slice(0, SECTION_ROWS);
  const hidden = accounts.length - shown.length;
  const notes = hidden > 0 ? [`missing and low first; ${hidden} more in /status.json`] : [];
  const rows = shown.flatMap((account) => accountRows(owner, account));
  return sectionTable(owner, "Watched accounts", notes, ACCOUNTS_HEADER, rows);
}

const ACCOUNTS_HEADER = headerRow(
  "Account",
  { num: "Signer changes" },
  "Last payment",
  "Asset",
  { num: "Balance" },
  { num: "Low-water mark" },
  "State",
);

/** An account's rows: one per balance, or one saying why it has none. */
function accountRows(owner: SeriesOwner, account: AccountReport) {
  const missing = account.exists?.value === 0;
  // The account and its signer changes once, beside all of its balances.
  const rows = Math.max(1, missing ? 1 : account.balances.length);
  const head = [
    html`<td rowspan="${rows}">${account.account}</td>`,
    html`<td class="num" rowspan="${rows}">${figureValue(owner, account.signerChanges)}</td>`,
    html`<td rowspan="${rows}">${lastPayment(account)}</td>`,
  ];
  if (missing || account.balances.length === 0) {
    const why = html`<td colspan="3">${missing ? "account does not exist" : "no balances"}</td>`;
    return [row(head, why, td(badge(missing ? "failing" : "waiting", missing ? "missing" : "no data")))];
  }
  return account.balances.map((balance, index) =>
    row(
      index === 0 ? head : "",
      td(assetName(balance)),
      num(figureValue(owner, balance.balance)),
      num(balance.lowWatermark ? figureValue(owner, balance.lowWatermark) : "none"),
      td(badge(balance.low ? "low" : "ok", balance.low ? "low" : "ok")),
    ),
  );
}

/** When the account last received and sent a payment (accounts with `activity: true`), as ages. */
function lastPayment({ lastPaymentAgeSeconds: ages }: AccountReport): string {
  if (ages === undefined) return "";
  const age = (seconds: number | undefined) => (seconds === undefined ? "never seen" : relative(seconds * 1000));
  return `received ${age(ages.received)}, sent ${age(ages.sent)}`;
}

/** A balance's asset, short enough not to wrap: XLM, CODE and short issuer, a pool's pair or short id; all on hover. */
function assetName(balance: AccountReport["balances"][number]) {
  const { pool, asset } = balance;
  if (asset === "native") return "XLM";
  if (pool === undefined) return asset.includes(":") ? shortAsset(asset) : asset;
  if (pool.assets === undefined)
    return html`<span title="liquidity pool ${pool.poolId}">pool ${pool.poolId.slice(0, 8)}… shares</span>`;
  const [a, b] = pool.assets;
  const title = `liquidity pool ${pool.poolId}: ${a} / ${b}`;
  return html`<span title="${title}">${assetCode(a)}/${assetCode(b)} pool shares</span>`;
}

function probeList(horizon: SeriesOwner, probe: NonNullable<TargetReport["txProbe"]>) {
  const refused = probe.refused;
  const state =
    refused === undefined
      ? badge("ok", "submitting")
      : html`${badge("failing", `refused: ${refused.labels?.reason ?? "unknown"}`)} ${figureValue(horizon, refused)}`;
  const ratio = probe.successRatio === null ? note("no submissions yet") : percent(probe.successRatio);
  const duration = probe.lastDurationSeconds === undefined ? NO_DATA : probe.lastDurationSeconds.toFixed(2);
  return html`<dl class="figures">
${item("Probe", state)}
${item("Probe submissions", figureValue(horizon, probe.submissions))}
${item("Probe success ratio", ratio)}
${item("Probe last duration", duration, "s")}
</dl>`;
}

/** Entries (contract entries, accounts) a section shows at most; /status.json has every one. */
const SECTION_ROWS = 100;

/** Why each state, on hover; the state's word, never the colour alone, says it. */
const CONTRACT_STATE_WHY: Readonly<Record<ContractEntryReport["state"], string>> = {
  live: "archival expected in 14 days or more",
  expiring_soon: "archival expected within 14 days (StellarContractEntryExpiringSoon)",
  expiring: "archival expected within 3 days (StellarContractEntryExpiring)",
  archived: "archived: calls that touch it fail until it is restored (StellarContractEntryArchived)",
  missing: "not on the ledger: the contract or its wasm is gone (StellarContractEntryMissing)",
  absent: "not returned: never created, deleted, or an expired temporary entry",
  unknown: "the RPC reports no live-until the exporter can trust (stellar-rpc#990)",
};

function daysLeft(days: number | undefined): string {
  if (days === undefined) return "";
  return days < 0.1 ? "< 0.1" : days.toFixed(1);
}

/** An expected archival from a hostile RPC's TTL and close times may lie past what a Date holds. */
function utcMinute(seconds: number): string {
  const iso = upstreamIso(seconds * 1000);
  return iso === undefined ? "out of range" : `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

const contractName = ({ contract, contractId: id }: ContractEntryReport) =>
  id === undefined ? contract : html`<span title="${id}">${contract}</span>`;

function contractState({ state }: ContractEntryReport) {
  const word = state.replace("_", " ");
  return html`<span class="badge ${state.replace("_", "-")}" title="${CONTRACT_STATE_WHY[state]}">${word}</span>`;
}

/** The contract entries' columns; last event age and event rate only on instance rows whose events are counted. */
function contractColumns(rpc: SeriesOwner): readonly Column<ContractEntryReport>[] {
  return [
    ["Contract", contractName],
    ["Entry", (entry) => entry.entry],
    ["Durability", (entry) => entry.durability],
    [{ num: "TTL (ledgers)" }, ({ ttlLedgers }) => (ttlLedgers ? figureValue(rpc, ttlLedgers) : "")],
    [{ num: "Days left" }, (entry) => daysLeft(entry.daysLeft)],
    ["Expected archival", ({ expiryTimestampSeconds: at }) => (at ? figureValue(rpc, at, utcMinute) : "")],
    ["State", contractState],
    [{ num: "Last event" }, ({ lastEventAgeSeconds: age }) => (age === undefined ? "" : `${Math.round(age)} s`)],
    [{ num: "Events/min" }, ({ eventsPerSecond: rate }) => (rate === undefined ? "" : (rate * 60).toFixed(1))],
  ];
}

function contractsTable(rpc: SeriesOwner, entries: readonly ContractEntryReport[]) {
  const hidden = entries.length - SECTION_ROWS;
  const notes = [
    "soonest archival first",
    ...(rpc.keptAgeSeconds === undefined ? [] : ["days left counted to now"]),
    ...(hidden > 0 ? [`${hidden} more in /status.json`] : []),
  ];
  const shown = entries.slice(0, SECTION_ROWS);
  return sectionTable(rpc, "Watched contracts", notes, ...headerAndRows(contractColumns(rpc), shown));
}

/** Ledgers compared with the other targets of the network, and how many this target got wrong. */
function standing(agreement: NonNullable<TargetReport["agreement"]>) {
  const { network, comparisons, disagreements, lastDisagreementLedger } = agreement;
  if (comparisons === 0) return note(html`no other target of ${network} compared yet`);
  if (disagreements === 0) return html`agrees ${unit(html`(${comparisons} ledgers compared on ${network})`)}`;
  const where = unit(html`(on ${network}, last at ledger ${String(lastDisagreementLedger)})`);
  return html`${disagreements} of ${comparisons} ledgers disagreed ${where}`;
}

function pollState({ state, runningForSeconds, lastError }: EndpointReport) {
  if (state === "running") return badge(state, `running for ${runningForSeconds ?? 0} s`);
  return badge(state, state === "failing" ? `failing: ${lastError?.reason ?? "unknown"}` : state);
}

function endpointsTable(endpoints: readonly EndpointReport[], nowMs: number) {
  const columns: readonly Column<EndpointReport>[] = [
    ["Endpoint", (endpoint) => endpoint.endpoint],
    ["State", pollState],
    ["Schedule", (endpoint) => endpoint.schedule],
    [{ num: "Polls" }, (endpoint) => endpoint.polls],
    ["Last success", ({ lastSuccessAt: at }) => (at ? ago(at, nowMs) : "never")],
    ["Last error", ({ lastError: e }) => (e ? html`${e.reason}: ${e.message} (${ago(e.at, nowMs)})` : "none")],
  ];
  return table("Polls", ...headerAndRows(columns, endpoints));
}

/** A section from its series now, or, while they are gone, as kept from before, greyed with its age. */
function section<Entries>(
  target: TargetReport,
  now: Entries | undefined,
  kept: KnownBefore<Entries> | undefined,
  build: (owner: SeriesOwner, entries: Entries) => unknown,
) {
  if (now !== undefined) return build(target, now);
  if (kept === undefined) return "";
  return build({ kind: target.kind, name: target.name, keptAgeSeconds: kept.ageSeconds }, kept.value);
}

const ASSETS_HEADER = headerRow(
  "Asset",
  { num: "Supply" },
  { num: "Holders" },
  { num: "Frozen holders" },
  "Flags",
  { num: "Flag changes" },
  { num: "Age" },
  "State",
);

/** A watched asset's row; a kept one's badge says it is stale. */
function assetRow(owner: SeriesOwner, asset: AssetReport) {
  const name = shortAsset(asset.asset);
  const age = asset.ageSeconds === undefined ? "" : `${asset.ageSeconds} s`;
  const unknown = html`<td colspan="5">not known to this Horizon</td>`;
  if (asset.exists.value === 0) return row(td(name), unknown, num(age), td(badge("failing", "missing")));
  return row(
    td(name),
    num(figureValue(owner, asset.supply)),
    num(figureValue(owner, asset.holders)),
    num(figureValue(owner, asset.frozenHolders)),
    td(asset.flags.length === 0 ? "none" : asset.flags.join(", ")),
    num(figureValue(owner, asset.flagChanges)),
    num(age),
    td(owner.keptAgeSeconds === undefined ? badge("ok", "ok") : badge("degraded", "stale")),
  );
}

function assetsTable(owner: SeriesOwner, assets: readonly AssetReport[]) {
  const rows = assets.map((asset) => assetRow(owner, asset));
  return sectionTable(owner, "Watched assets", [], ASSETS_HEADER, rows);
}

/** The deviation the peg alert tolerates (StellarMarketOffPeg). */
const PEG_TOLERANCE = 0.01;

const price = (value: number | undefined) => (value === undefined ? "—" : String(Number(value.toPrecision(7))));

function pegBadge(market: MarketReport) {
  if (market.deviationRatio === undefined) return note("no reference");
  const off = Math.abs(market.deviationRatio) > PEG_TOLERANCE;
  const deviation = (market.deviationRatio * 100).toFixed(2);
  return html`${badge(off ? "failing" : "ok", off ? "off peg" : "on peg")} ${deviation}%`;
}

function makersCell(market: MarketReport) {
  if (market.makers.length === 0) return note("none watched");
  return market.makers.map(({ maker, asks, bids }) => {
    const quiet = asks === 0 || bids === 0;
    const offers = badge(quiet ? "failing" : "ok", `${asks ?? "?"} asks / ${bids ?? "?"} bids`);
    return html`<span title="${maker}">${shortened(maker)}</span> ${offers} `;
  });
}

const MARKET_COLUMNS: readonly Column<MarketReport>[] = [
  ["Market", (market) => market.market],
  [{ num: "Close" }, (market) => (market.traded ? price(market.close) : note("never traded"))],
  [{ num: "Reference" }, (market) => price(market.referencePrice)],
  ["Peg", pegBadge],
  [{ num: "Trades counted" }, (market) => market.trades],
  ["Makers", makersCell],
];

const number = (value: number | undefined, digits: number) =>
  value === undefined ? "–" : Number(value.toFixed(digits)).toString();

/** Each state's badge: its colour class and its word. */
const PATH_BADGE = { found: ["ok", "found"], none: ["failing", "no path"], unknown: ["waiting", "no answer"] } as const;

function bestRate({ bestRate, minRate }: CorridorReport) {
  const below = bestRate !== undefined && minRate !== undefined && bestRate < minRate;
  return html`${number(bestRate, 7)}${below ? html` ${badge("low", "below min")}` : ""}`;
}

function runs(corridor: CorridorReport): string {
  const counts = Object.entries(corridor.runs).map(([result, count]) => `${result} ${count}`);
  return counts.join(", ") || "none yet";
}

/** A Horizon's corridors: found or not, best rate (against min_rate), hops, p90 latency. */
const CORRIDOR_COLUMNS: readonly Column<CorridorReport>[] = [
  ["Corridor", (corridor) => corridor.corridor],
  ["Path", ({ state }) => badge(PATH_BADGE[state][0], PATH_BADGE[state][1])],
  [{ num: "Paths" }, (corridor) => number(corridor.paths, 0)],
  [{ num: "Best rate" }, bestRate],
  [{ num: "Min rate" }, (corridor) => number(corridor.minRate, 7)],
  [{ num: "Hops" }, (corridor) => number(corridor.bestHops, 0)],
  [
    { num: `p90 latency, last ${QUANTILE_WINDOW_MS / 60_000} min` },
    ({ p90Seconds }) => (p90Seconds === undefined ? "–" : `${p90Seconds.toFixed(2)} s`),
  ],
  ["Runs", runs],
];

const DISAGREES_WHY = "serves ledger hashes the other targets of its network do not";

function card(target: TargetReport, index: number, nowMs: number) {
  return html`<section class="card ${target.state}" aria-labelledby="target-${index}">
<h2 id="target-${index}"><span class="badge ${target.state}">${target.state.toUpperCase()}</span>${
    target.agreement?.disagreeing ? html` <span class="badge disagrees" title="${DISAGREES_WHY}">DISAGREES</span>` : ""
  } ${target.title}</h2>
<p class="url"><code>${target.url}</code></p>
${target.rpc ? rpcFigures(target, target.rpc) : horizonFigures(target)}
${target.agreement ? html`<dl class="figures">${item("Agreement", standing(target.agreement), "", true)}</dl>` : ""}
${sparklines(target, nowMs)}
${section(target, target.accounts, target.lastKnown?.accounts, accountsTable)}
${section(target, target.assets, target.lastKnown?.assets, assetsTable)}
${section(target, target.contracts, target.lastKnown?.contracts, contractsTable)}
${target.markets ? table("Watched markets", ...headerAndRows(MARKET_COLUMNS, target.markets)) : ""}
${target.txProbe ? probeList(target, target.txProbe) : ""}
${target.corridors ? table("Payment corridors", ...headerAndRows(CORRIDOR_COLUMNS, target.corridors)) : ""}
${endpointsTable(target.endpoints, nowMs)}
</section>`;
}

const LINKS = raw(
  ["metrics", "status.json", "healthz", "readyz"].map((page) => `<a href="${page}">/${page}</a>`).join(" · "),
);

/** Everything interpolated goes through hono's html tag, which escapes it (target names are operator input); sparklines
 * escape their own text. The markup is XHTML-compatible, so an XML parser can check it is well formed. */
export function landingPage(report: StatusReport) {
  const nowMs = Date.parse(report.generatedAt);
  const at = report.generatedAt;
  const asOf = html`<time datetime="${at}" title="${at}">${at.slice(11, 19)} UTC</time>`;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta http-equiv="refresh" content="${REFRESH_SECONDS}"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>Stellar Horizon Exporter</title>
<style>${raw(STYLESHEET)}</style>
</head>
<body>
<header>
<h1>Stellar Horizon Exporter</h1>
<p>Version <code>${report.version}</code> · ${LINKS} · refreshes every ${REFRESH_SECONDS} s · as of ${asOf}</p>
</header>
<main>
${report.targets.map((target, index) => card(target, index, nowMs))}
</main>
</body>
</html>`;
}
