/** Small builders for the landing page's tables, so no template grows past a line. */
import { html, raw } from "hono/html";

/** A header cell; `{ num }` heads a column of figures, right-aligned. */
type HeaderCell = string | { readonly num: string };

export function headerRow(...cells: readonly HeaderCell[]) {
  const th = (cell: HeaderCell) =>
    typeof cell === "string" ? html`<th>${cell}</th>` : html`<th class="num">${cell.num}</th>`;
  return html`<tr>${cells.map(th)}</tr>`;
}

/** A column: its heading (`{ num }`: figures, right-aligned) and what its cell holds for an entry. */
export type Column<Entry> = readonly [heading: HeaderCell, cell: (entry: Entry) => unknown];

/** A header row and a row per entry, a cell per column: for table(caption, ...headerAndRows(columns, entries)). */
export function headerAndRows<Entry>(columns: readonly Column<Entry>[], entries: readonly Entry[]) {
  const cell = ([heading, value]: Column<Entry>, entry: Entry) =>
    typeof heading === "string" ? td(value(entry)) : num(value(entry));
  const rows = entries.map((entry) => row(...columns.map((column) => cell(column, entry))));
  return [headerRow(...columns.map(([heading]) => heading)), rows] as const;
}

/** A table under its caption, greyed (`stale`) when its figures are kept from a poll's last publication. */
export function table(caption: unknown, header: unknown, rows: unknown, stale = false) {
  return html`<table${stale ? raw(' class="stale"') : ""}>
<caption>${caption}</caption>
${header}
${rows}
</table>`;
}

export const row = (...cells: readonly unknown[]) => html`<tr>${cells}</tr>`;
export const td = (value: unknown) => html`<td>${value}</td>`;
/** A cell holding a figure, right-aligned. */
export const num = (value: unknown) => html`<td class="num">${value}</td>`;
/** A coloured word: its class gives the colour, the word says it. */
export const badge = (kind: string, word: unknown) => html`<span class="badge ${kind}">${word}</span>`;
export const unit = (value: unknown) => html`<span class="unit">${value}</span>`;
export const note = (value: unknown) => html`<span class="note">${value}</span>`;

/** A long key (issuer, account) by its first and last four characters. */
export const shortened = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

/** CODE:ISSUER as its code and shortened issuer, the full asset on hover. */
export function shortAsset(asset: string) {
  const [code, issuer = ""] = asset.split(":");
  return html`<span title="${asset}">${code} ${unit(shortened(issuer))}</span>`;
}
