/**
 * The floor beside each poll figure of `npm run bench`: the CPU time of `JSON.parse` alone over
 * the response bodies one poll reads, in the same run. No JavaScript exporter reads those bodies
 * for less. The upstreams note the bodies they serve (decoded, as the exporter parses them); the
 * bench asks for the last poll's once the exporter's polls are measured.
 */
import { gunzipSync } from "node:zlib";

/** Times the bodies are parsed over: the median is the floor, so a tick of the CPU clock or a pause of the machine weighs little. */
const REPETITIONS = 9;

/** The last `size` response bodies an upstream served, decoded, oldest first. */
export class LastBodies {
  private readonly bodies: string[] = [];

  constructor(private readonly size: number) {}

  /** Notes a response's body as the exporter reads it: its gzip, if any, undone. */
  async note(response: Response): Promise<void> {
    const bytes = Buffer.from(await response.clone().arrayBuffer());
    const gzip = response.headers.get("content-encoding") === "gzip";
    this.bodies.push((gzip ? gunzipSync(bytes) : bytes).toString("utf8"));
    if (this.bodies.length > this.size) this.bodies.shift();
  }

  list(): readonly string[] {
    return this.bodies;
  }
}

/** The CPU milliseconds of `JSON.parse` over every body once: the median of several passes. */
export function parseCpuMs(bodies: readonly string[]): number {
  const passes: number[] = [];
  for (let pass = 0; pass < REPETITIONS; pass += 1) {
    const before = process.cpuUsage();
    for (const body of bodies) JSON.parse(body);
    const { user, system } = process.cpuUsage(before);
    passes.push((user + system) / 1000);
  }
  passes.sort((a, b) => a - b);
  return passes[Math.floor(passes.length / 2)]!;
}

/** The floor of one poll whose bodies `url` lists (an upstream's `/_bench/bodies`). */
export async function parseFloorMs(url: string): Promise<{ readonly bodies: number; readonly cpuMs: number }> {
  const bodies = (await (await fetch(url)).json()) as string[];
  if (bodies.length === 0) throw new Error(`${url} lists no bodies`);
  return { bodies: bodies.length, cpuMs: parseCpuMs(bodies) };
}
