import { describe, expect, it } from "vitest";
import { axisNumber, SPARKLINE_GEOMETRY, sparkline, sparklineCoordinates } from "../../src/status/sparkline.js";

const WINDOW_MS = 30 * 60_000;
const NOW_MS = 1_700_000_000_000;
const START_MS = NOW_MS - WINDOW_MS;
const { plotLeft, plotTop, plotWidth, plotHeight } = SPARKLINE_GEOMETRY;

function attribute(svg: string, element: string, name: string): string | undefined {
  const tag = new RegExp(`<${element}\\b[^>]*>`).exec(svg)?.[0];
  return tag === undefined ? undefined : new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
}

describe("sparkline coordinates", () => {
  it("maps the window to the plot's width and zero..max to its height, exactly", () => {
    expect(plotLeft).toBe(40);
    expect(plotWidth).toBe(200);
    expect(plotTop).toBe(8);
    expect(plotHeight).toBe(50);
    const points = [
      { atMs: START_MS, value: 0 },
      { atMs: START_MS + WINDOW_MS / 4, value: 5 },
      { atMs: START_MS + WINDOW_MS / 2, value: 10 },
      { atMs: NOW_MS, value: 2.5 },
    ];
    expect(sparklineCoordinates(points, WINDOW_MS, NOW_MS)).toEqual([
      { x: 40, y: 58 },
      { x: 90, y: 33 },
      { x: 140, y: 8 },
      { x: 240, y: 45.5 },
    ]);
  });

  it("includes negative values in the range", () => {
    const points = [
      { atMs: START_MS, value: -10 },
      { atMs: NOW_MS, value: 15 },
    ];
    expect(sparklineCoordinates(points, WINDOW_MS, NOW_MS)).toEqual([
      { x: 40, y: 58 },
      { x: 240, y: 8 },
    ]);
  });

  it("draws a flat series on a range of one unit from zero", () => {
    const points = [
      { atMs: START_MS, value: 0 },
      { atMs: NOW_MS, value: 0 },
    ];
    expect(sparklineCoordinates(points, WINDOW_MS, NOW_MS)).toEqual([
      { x: 40, y: 58 },
      { x: 240, y: 58 },
    ]);
  });
});

describe("sparkline SVG", () => {
  const options = { title: "Ingest lag", unit: "ledgers", windowMs: WINDOW_MS, nowMs: NOW_MS };

  it("writes the coordinates into the polyline and marks the latest point", () => {
    const svg = sparkline(
      [
        { atMs: START_MS, value: 0 },
        { atMs: START_MS + WINDOW_MS / 4, value: 5 },
        { atMs: START_MS + WINDOW_MS / 2, value: 10 },
        { atMs: NOW_MS - WINDOW_MS / 3, value: 4 },
      ],
      options,
    );
    // 1 200 000 ms of 1 800 000 is two thirds of 200 units: 133.333… rounds to 133.33.
    expect(attribute(svg, "polyline", "points")).toBe("40,58 90,33 140,8 173.33,38");
    expect(attribute(svg, "circle", "cx")).toBe("173.33");
    expect(attribute(svg, "circle", "cy")).toBe("38");
    // The unit is in the caption and the accessible name, not on each axis label ("1 ledgers").
    expect(svg).toContain('<text class="axis" x="36" y="16" text-anchor="end">10</text>');
    expect(svg).toContain('<text class="axis" x="36" y="58" text-anchor="end">0</text>');
    expect(svg).toContain(">-30 min</text>");
    expect(svg).toContain(">now</text>");
    expect(attribute(svg, "svg", "role")).toBe("img");
    expect(attribute(svg, "svg", "aria-label")).toBe("Ingest lag (ledgers), last 30 min: latest 4, axis 0 to 10");
    expect(svg).toContain("<title>Ingest lag (ledgers), last 30 min: latest 4, axis 0 to 10</title>");
    expect(svg).not.toContain("NaN");
  });

  it("renders an empty series as a note, without NaN", () => {
    const svg = sparkline([], options);
    expect(svg).not.toContain("NaN");
    expect(svg).not.toContain("<polyline");
    expect(svg).not.toContain("<circle");
    expect(svg).toContain(">no data yet</text>");
    expect(attribute(svg, "svg", "aria-label")).toBe("Ingest lag (ledgers), last 30 min: no data yet");
    expect(svg).toContain('text-anchor="end">1</text>');
  });

  it("renders a single point as a dot, without NaN", () => {
    const svg = sparkline([{ atMs: NOW_MS, value: 7 }], options);
    expect(svg).not.toContain("NaN");
    expect(svg).not.toContain("<polyline");
    expect(attribute(svg, "circle", "cx")).toBe("240");
    expect(attribute(svg, "circle", "cy")).toBe("8");
  });

  it("labels the axis with whole numbers as they are and others to three digits", () => {
    const svg = sparkline([{ atMs: NOW_MS, value: 5.7333333 }], options);
    expect(svg).toContain('text-anchor="end">5.73</text>');
    expect(axisNumber(5000)).toBe("5000");
  });

  it("formats axis labels with the given formatter and escapes every text", () => {
    const svg = sparkline([{ atMs: NOW_MS, value: 0.5 }], {
      ...options,
      title: 'Capacity <"used">',
      unit: "%",
      format: (value) => String(value * 100),
    });
    expect(svg).toContain(">50</text>");
    expect(svg).toContain("<title>Capacity &lt;&quot;used&quot;&gt; (%), last 30 min: latest 50, axis 0 to 50</title>");
    expect(svg).not.toContain('<"used">');
  });
});
