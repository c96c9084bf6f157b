import { describe, expect, it } from "vitest";
import { PointRing } from "../../src/status/ring.js";

describe("PointRing", () => {
  it("keeps points oldest first until full", () => {
    const ring = new PointRing(3);
    expect(ring.since(0)).toEqual([]);
    ring.push(1000, 1);
    ring.push(2000, 2);
    expect(ring.since(-Infinity)).toHaveLength(2);
    expect(ring.since(0)).toEqual([
      { atMs: 1000, value: 1 },
      { atMs: 2000, value: 2 },
    ]);
  });

  it("overwrites the oldest point once full and never grows", () => {
    const ring = new PointRing(3);
    for (let second = 1; second <= 7; second++) ring.push(second * 1000, second * 10);
    expect(ring.since(-Infinity)).toHaveLength(3);
    expect(ring.since(0)).toEqual([
      { atMs: 5000, value: 50 },
      { atMs: 6000, value: 60 },
      { atMs: 7000, value: 70 },
    ]);
  });

  it("leaves out points older than the window start, keeping the boundary point", () => {
    const ring = new PointRing(5);
    for (const atMs of [1000, 2000, 3000, 4000]) ring.push(atMs, atMs / 1000);
    expect(ring.since(3000)).toEqual([
      { atMs: 3000, value: 3 },
      { atMs: 4000, value: 4 },
    ]);
    expect(ring.since(5000)).toEqual([]);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new PointRing(0)).toThrow(RangeError);
    expect(() => new PointRing(1.5)).toThrow(RangeError);
  });
});
