import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";

const gzipAsync = promisify(gzipCallback);

/** Go's flate.DefaultCompression, the level Horizon's router gives chi's Compress middleware. */
const HORIZON_GZIP_LEVEL = 6;

/**
 * Horizon's `chimiddleware.Compress(flate.DefaultCompression, "application/hal+json")`: a HAL body
 * goes out gzip-compressed to a client whose Accept-Encoding names gzip, with `Vary: Accept-Encoding`
 * added and no Content-Length. Problems (application/problem+json) and plain-text errors go out as
 * they are, whatever the client accepts. chi matches the coding by substring, as done here.
 */
export async function compressedLikeHorizon(acceptEncoding: string | undefined, response: Response): Promise<Response> {
  const type = response.headers.get("Content-Type") ?? "";
  if (!type.startsWith("application/hal+json") || !acceptsGzip(acceptEncoding)) return response;
  const body = await gzipAsync(Buffer.from(await response.arrayBuffer()), { level: HORIZON_GZIP_LEVEL });
  const headers = new Headers(response.headers);
  headers.set("Content-Encoding", "gzip");
  headers.append("Vary", "Accept-Encoding");
  headers.delete("Content-Length");
  return new Response(body, { status: response.status, headers });
}

function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "")
    .toLowerCase()
    .split(",")
    .some((coding) => coding.includes("gzip"));
}
