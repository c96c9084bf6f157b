/** One point of a sparkline: when (Unix ms) and what. */
export type Point = { readonly atMs: number; readonly value: number };

/** The newest `capacity` points of one series, in two preallocated Float64Arrays: memory never grows. */
export class PointRing {
  private readonly times: Float64Array;
  private readonly values: Float64Array;
  /** Index the next point is written to. */
  private next = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`ring capacity must be a positive integer, not ${capacity}`);
    this.times = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
  }

  /** Adds a point, overwriting the oldest once full. */
  push(atMs: number, value: number): void {
    this.times[this.next] = atMs;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The points at or after `sinceMs`, oldest first. */
  since(sinceMs: number): Point[] {
    const points: Point[] = [];
    const oldest = (this.next - this.size + this.capacity) % this.capacity;
    for (let offset = 0; offset < this.size; offset++) {
      const index = (oldest + offset) % this.capacity;
      const atMs = this.times[index]!;
      if (atMs >= sinceMs) points.push({ atMs, value: this.values[index]! });
    }
    return points;
  }
}
