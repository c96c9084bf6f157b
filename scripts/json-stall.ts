/**
 * The event-loop stall of one hostile pools page (issue 42): a Horizon answering 2.5 million empty
 * records, 7.5 MB, under the 8 MiB body cap. For each body it reads the answer over loopback HTTP
 * and reports the longest event-loop delay while it was read and parsed: on the event loop
 * (`JSON.parse`, as before) and through the client (src/client/json-parse.ts), alternating.
 * Run: node --import tsx scripts/json-stall.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { HorizonClient } from "../src/client/horizon-client.js";
import { stopJsonThread } from "../src/client/json-parse.js";
import { textOf, transportFetch } from "../src/client/transport.js";

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const ROUNDS = 3;
const page = (records: string[]) => Buffer.from(`{"_embedded":{"records":[${records.join(",")}]}}`);
const BODIES: Record<string, Buffer> = {
  "2.5 M empty records (7.5 MB)": page(Array(2_500_000).fill("{}")),
  "empty records up to 1 MiB (event loop's largest)": page(Array(349_000).fill("{}")),
  "100 000 empty records in 1.1 MiB of padding (worker's most)": page([
    ...Array(99_990).fill("{}"),
    `{"padding":"${"x".repeat(800_000)}"}`,
  ]),
  "one pool record padded to 3 MiB": page([`{"id":"01","padding":"${"x".repeat(3 * 1024 * 1024)}"}`]),
};

let body: Buffer = Buffer.alloc(0);
const server = createServer((_request, response) => {
  response.writeHead(200, { "Content-Type": "application/hal+json", "Content-Length": body.length });
  response.end(body);
});
await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const client = new HorizonClient({ url, timeoutMs: 60_000, retries: 0, maxBodyBytes: MAX_BODY_BYTES });

/** The longest event-loop delay, in ms, while `read` runs. */
async function stallOf(read: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await read().catch(() => undefined);
  // The histogram learns of a stall when its timer fires after it: let it fire before reading.
  await new Promise((done) => setTimeout(done, 50));
  histogram.disable();
  return histogram.max / 1e6;
}

const onEventLoop = async () =>
  JSON.parse(textOf(await transportFetch(`${url}/liquidity_pools`, { maxBodyBytes: MAX_BODY_BYTES })));
const throughClient = () => client.liquidityPools({ limit: 200 });

console.log(
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
for (const [name, bytes] of Object.entries(BODIES)) {
  body = bytes;
  const before: number[] = [];
  const after: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    before.push(await stallOf(onEventLoop));
    after.push(await stallOf(throughClient));
  }
  const show = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(", ");
  console.log(`${name}: event loop ${show(before)} ms; client ${show(after)} ms`);
}
console.log(
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
await stopJsonThread();
server.close();
