import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One proxied scrape: what the scraper asked for, what it got, and how many samples that held. */
export interface RecordedScrape {
  readonly atMs: number;
  readonly acceptEncoding: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly samples: number;
}

export interface RecordingProxy {
  /** host:port to scrape instead of the target. */
  readonly host: string;
  readonly scrapes: readonly RecordedScrape[];
  close(): Promise<void>;
}

const countSamples = (text: string) => text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;

/**
 * Passes every request to `target` unchanged, byte for byte, and records each scrape's content
 * coding and its samples (decoded), so a test can see what a real Prometheus asked for and got.
 */
export async function startRecordingProxy(target: () => string | undefined): Promise<RecordingProxy> {
  const scrapes: RecordedScrape[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const atMs = Date.now();
    const base = target();
    if (base === undefined) {
      outgoing.writeHead(502).end();
      return;
    }
    const upstream = request(
      new URL(incoming.url ?? "/", base),
      { method: incoming.method, headers: incoming.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const bytes = Buffer.concat(chunks);
          const contentEncoding = response.headers["content-encoding"];
          const text = (contentEncoding === "gzip" ? gunzipSync(bytes) : bytes).toString();
          scrapes.push({
            atMs,
            acceptEncoding: incoming.headers["accept-encoding"],
            contentEncoding,
            samples: countSamples(text),
          });
          outgoing.writeHead(response.statusCode ?? 502, response.headers).end(bytes);
        });
      },
    );
    upstream.on("error", () => outgoing.writeHead(502).end());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    scrapes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
