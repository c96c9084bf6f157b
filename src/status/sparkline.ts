import { html } from "hono/html";
import type { Point } from "./ring.js";

interface SparklineOptions {
  /** What the line shows, e.g. "Ingest lag"; the SVG's title and accessible name. */
  readonly title: string;
  /** Unit of the values, e.g. "ledgers"; named in the title and the accessible name (the caption shows it once). */
  readonly unit: string;
  /** The x axis spans [nowMs - windowMs, nowMs]. */
  readonly windowMs: number;
  readonly nowMs: number;
  /** Axis label and accessible text of a value, unit excluded. */
  readonly format?: (value: number) => string;
}

/** The drawing's geometry, in SVG user units. */
export const SPARKLINE_GEOMETRY = { width: 248, height: 80, plotLeft: 40, plotTop: 8, plotWidth: 200, plotHeight: 50 };

const { width, height, plotLeft, plotTop, plotWidth, plotHeight } = SPARKLINE_GEOMETRY;
const plotBottom = plotTop + plotHeight;

/** An axis label: whole numbers as they are, others to three significant digits (5.73, not 5.733333). */
export function axisNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}

/** Two decimals are finer than a pixel and keep the markup short and deterministic. */
const coordinate = (value: number): string => String(Math.round(value * 100) / 100);

/** The y axis includes zero, so a wobble of lag or fees does not look like a cliff; a flat series spans one unit. */
function valueRange(points: readonly Point[]): { lower: number; upper: number } {
  const values = points.map(({ value }) => value);
  const lower = Math.min(0, ...values);
  const upper = Math.max(0, ...values);
  return { lower, upper: upper === lower ? lower + 1 : upper };
}

export function sparklineCoordinates(points: readonly Point[], windowMs: number, nowMs: number) {
  const { lower, upper } = valueRange(points);
  const startMs = nowMs - windowMs;
  return points.map(({ atMs, value }) => ({
    x: plotLeft + ((atMs - startMs) / windowMs) * plotWidth,
    y: plotBottom - ((value - lower) / (upper - lower)) * plotHeight,
  }));
}

/** An inline SVG of one series over a time window, with axis labels and units; empty series draw a note, not NaN. */
export function sparkline(points: readonly Point[], options: SparklineOptions): string {
  const { title, unit, windowMs, nowMs, format = axisNumber } = options;
  const minutes = Math.round(windowMs / 60_000);
  const { lower, upper } = valueRange(points);
  const latest = points.at(-1);
  const about = `${title} (${unit}), last ${minutes} min`;
  const description =
    latest === undefined
      ? `${about}: no data yet`
      : `${about}: latest ${format(latest.value)}, axis ${format(lower)} to ${format(upper)}`;
  const xy = sparklineCoordinates(points, windowMs, nowMs);
  const last = xy.at(-1);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="spark" width="${width}" height="${height}" viewBox="0 0 ` +
      `${width} ${height}" role="img" aria-label="${escapeMarkup(description)}">`,
    `<title>${escapeMarkup(description)}</title>`,
    `<rect class="frame" x="${plotLeft}" y="${plotTop}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="axis" x="${plotLeft - 4}" y="${plotTop + 8}" text-anchor="end">${escapeMarkup(format(upper))}</text>`,
    `<text class="axis" x="${plotLeft - 4}" y="${plotBottom}" text-anchor="end">${escapeMarkup(format(lower))}</text>`,
    `<text class="axis" x="${plotLeft}" y="${height - 6}">-${minutes} min</text>`,
    `<text class="axis" x="${plotLeft + plotWidth}" y="${height - 6}" text-anchor="end">now</text>`,
  ];
  if (last === undefined) {
    parts.push(
      `<text class="empty" x="${plotLeft + plotWidth / 2}" y="${plotTop + plotHeight / 2 + 4}" ` +
        `text-anchor="middle">no data yet</text>`,
    );
  } else {
    const line = xy.map(({ x, y }) => `${coordinate(x)},${coordinate(y)}`).join(" ");
    if (xy.length > 1) parts.push(`<polyline class="line" points="${line}"/>`);
    parts.push(`<circle class="last" cx="${coordinate(last.x)}" cy="${coordinate(last.y)}" r="2.5"/>`);
  }
  parts.push("</svg>");
  return parts.join("");
}

/** Text safe inside an element or a quoted attribute of SVG, as hono's html tag escapes what it interpolates. */
const escapeMarkup = (text: string) => String(html`${text}`);
