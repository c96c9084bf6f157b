import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { AddressInfo, Socket } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PollError } from "../src/client/errors.js";
import { textOf, transportFetch } from "../src/client/transport.js";
import { VERSION } from "../src/version.js";

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A loopback server whose answer each test sets, noting what it was asked and on which connection. */
class Upstream {
  handler: Handler = (_request, response) => response.end("{}");
  readonly seen: {
    method: string;
    url: string;
    headers: IncomingMessage["headers"];
    body: string;
    connection: number;
  }[] = [];
  private connections = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const connection = (request.socket as Socket & { id?: number }).id!;
      this.seen.push({ method: request.method!, url: request.url!, headers: request.headers, body, connection });
      this.handler(request, response, body);
    });
  });
  url = "";

  constructor() {
    this.server.on("connection", (socket: Socket & { id?: number }) => {
      socket.id = ++this.connections;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, "127.0.0.1", done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}

const upstream = new Upstream();
const other = new Upstream();
const CAP = 1024 * 1024;
const PAGE = JSON.stringify({
  _embedded: {
    records: Array.from({ length: 200 }, (_, index) => ({
      id: index.toString(16).padStart(64, "0"),
      amount: "12.3456789",
    })),
  },
});

const fetchBody = async (path: string, init: Partial<Parameters<typeof transportFetch>[1]> = {}) => {
  const response = await transportFetch(`${upstream.url}${path}`, { maxBodyBytes: CAP, ...init });
  return { response, body: textOf(response) };
};

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Error) => error,
  );

beforeAll(async () => {
  await upstream.start();
  await other.start();
});
afterAll(async () => {
  await upstream.stop();
  await other.stop();
});
beforeEach(() => {
  upstream.seen.length = 0;
  other.seen.length = 0;
});

describe("the transport under ofetch", () => {
  it("offers gzip, deflate and br by default and names the exporter; a header of the caller's own wins", async () => {
    await fetchBody("/");
    expect(upstream.seen[0]!.headers["accept-encoding"]).toBe("gzip, deflate, br");
    expect(upstream.seen[0]!.headers["user-agent"]).toBe(`stellar-horizon-exporter/${VERSION}`);
    await fetchBody("/", { headers: { "Accept-Encoding": "identity", Accept: "application/hal+json" } });
    expect(upstream.seen[1]!.headers["accept-encoding"]).toBe("identity");
    expect(upstream.seen[1]!.headers.accept).toBe("application/hal+json");
  });

  it.each([
    ["gzip", gzipSync],
    ["x-gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
    ["identity", (bytes: Buffer) => bytes],
  ])("decodes a %s body to the very bytes", async (coding, encode) => {
    upstream.handler = (_request, response) => {
      response.writeHead(200, { "Content-Encoding": coding, "Content-Type": "application/hal+json" });
      response.end(encode(Buffer.from(PAGE)));
    };
    const { response, body } = await fetchBody("/liquidity_pools");
    expect(body).toBe(PAGE);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/hal+json");
  });

  it("undoes a list of codings last first, and passes a coding it does not know on as sent", async () => {
    upstream.handler = (_request, response) => {
      response.writeHead(200, { "Content-Encoding": "deflate, gzip" });
      response.end(gzipSync(deflateSync(Buffer.from(PAGE))));
    };
    expect((await fetchBody("/")).body).toBe(PAGE);
    upstream.handler = (_request, response) => {
      response.writeHead(200, { "Content-Encoding": "compress" });
      response.end("as sent");
    };
    expect((await fetchBody("/")).body).toBe("as sent");
  });

  it("decodes gzip members concatenated, whose trailer gives only the last member's size", async () => {
    const half = PAGE.length >> 1;
    upstream.handler = (_request, response) => {
      response.writeHead(200, { "Content-Encoding": "gzip" });
      response.end(Buffer.concat([gzipSync(PAGE.slice(0, half)), gzipSync(PAGE.slice(half))]));
    };
    expect((await fetchBody("/")).body).toBe(PAGE);
  });

  it("says which coding a body is not", async () => {
    upstream.handler = (_request, response) => {
      response.writeHead(200, { "Content-Encoding": "gzip" });
      response.end("{}");
    };
    expect((await failureOf(fetchBody("/")))?.message).toMatch(/^body is not the gzip its Content-Encoding says: /);
  });

  describe("the body cap", () => {
    it.each([
      [
        "a declared length over the cap",
        (response: ServerResponse) => response.writeHead(200, { "Content-Length": CAP + 1 }).write("{"),
      ],
      ["a body streamed past the cap", (response: ServerResponse) => response.end(Buffer.alloc(CAP + 1, " "))],
      [
        "a gzip bomb",
        (response: ServerResponse) =>
          response.writeHead(200, { "Content-Encoding": "gzip" }).end(gzipSync(Buffer.alloc(64 * CAP, " "))),
      ],
    ])("%s fails as body_too_large", async (_name, answer) => {
      upstream.handler = (_request, response) => answer(response);
      const failure = await failureOf(fetchBody("/"));
      expect(failure).toBeInstanceOf(PollError);
      expect((failure as PollError).reason).toBe("body_too_large");
      expect(failure?.message).toContain(`${CAP}-byte cap`);
    });

    it("takes a body exactly at the cap, decoded", async () => {
      upstream.handler = (_request, response) =>
        response.writeHead(200, { "Content-Encoding": "gzip" }).end(gzipSync(Buffer.alloc(CAP, "x")));
      expect((await fetchBody("/")).body).toHaveLength(CAP);
    });
  });

  it("keeps the connection for the next request", async () => {
    upstream.handler = (_request, response) => response.end(PAGE);
    for (let round = 0; round < 3; round += 1) await fetchBody("/");
    expect(new Set(upstream.seen.map((request) => request.connection)).size).toBe(1);
  });

  it("has no body for a 204 and a status for a 4xx", async () => {
    upstream.handler = (_request, response) => response.writeHead(204).end();
    expect((await fetchBody("/")).body).toBe("");
    upstream.handler = (_request, response) =>
      response.writeHead(404, { "Content-Type": "application/problem+json" }).end('{"status":404}');
    const { response, body } = await fetchBody("/");
    expect(response.status).toBe(404);
    expect(body).toBe('{"status":404}');
  });

  it("fails with a clear message on a status HTTP does not define", async () => {
    upstream.handler = (_request, response) => response.writeHead(600).end("x");
    expect((await failureOf(fetchBody("/")))?.message).toBe("answered with status 600, which HTTP does not define");
  });

  describe("redirects, as fetch follows them", () => {
    it("follows one to another path, keeping the method and the headers", async () => {
      upstream.handler = (request, response) => {
        if (request.url === "/old") response.writeHead(301, { Location: "/new?x=1" }).end();
        else response.end(`at ${request.url}`);
      };
      expect((await fetchBody("/old", { headers: { Authorization: "Basic c2VjcmV0" } })).body).toBe("at /new?x=1");
      expect(upstream.seen.map((request) => [request.url, request.headers.authorization])).toEqual([
        ["/old", "Basic c2VjcmV0"],
        ["/new?x=1", "Basic c2VjcmV0"],
      ]);
    });

    it("drops every configured header when the redirect leaves the origin, and never sends a Location's userinfo", async () => {
      other.handler = (_request, response) => response.end("elsewhere");
      upstream.handler = (_request, response) =>
        response.writeHead(302, { Location: `${other.url.replace("//", "//them:theirs@")}/there` }).end();
      const headers = { Authorization: "Basic c2VjcmV0", "X-Api-Key": "k3y", Accept: "application/json" };
      expect((await fetchBody("/", { headers })).body).toBe("elsewhere");
      expect(upstream.seen[0]!.headers).toMatchObject({ authorization: "Basic c2VjcmV0", "x-api-key": "k3y" });
      const { host, connection, ...sent } = other.seen[0]!.headers;
      expect(sent).toEqual({
        accept: "application/json",
        "accept-encoding": "gzip, deflate, br",
        "user-agent": `stellar-horizon-exporter/${VERSION}`,
      });
    });

    it("turns a POST into a GET on 303 and keeps it on 307", async () => {
      upstream.handler = (request, response, body) => {
        if (request.url === "/see-other") response.writeHead(303, { Location: "/result" }).end();
        else if (request.url === "/temporary") response.writeHead(307, { Location: "/result" }).end();
        else response.end(`${request.method} ${body}`);
      };
      const post = {
        method: "POST",
        body: "tx=AAAA",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      };
      expect((await fetchBody("/see-other", post)).body).toBe("GET ");
      expect(upstream.seen[1]!.headers["content-type"]).toBeUndefined();
      expect((await fetchBody("/temporary", post)).body).toBe("POST tx=AAAA");
      // A body of known length goes with its Content-Length, not chunked.
      expect(upstream.seen.at(-1)!.headers["content-length"]).toBe("7");
      expect(upstream.seen.at(-1)!.headers["transfer-encoding"]).toBeUndefined();
    });

    it("gives up on a loop after 20", async () => {
      upstream.handler = (request, response) => response.writeHead(302, { Location: request.url }).end();
      expect((await failureOf(fetchBody("/loop")))?.message).toBe("more than 20 redirects");
      expect(upstream.seen).toHaveLength(21);
    });
  });

  it("stops waiting when its signal aborts, and fails when the connection breaks mid-body", async () => {
    upstream.handler = () => undefined;
    const controller = new AbortController();
    const pending = failureOf(fetchBody("/", { signal: controller.signal }));
    controller.abort(new Error("deadline"));
    expect((await pending)?.name).toBe("AbortError");
    upstream.handler = (_request, response) => {
      response.writeHead(200, { "Content-Length": 1000 }).write("{");
      setImmediate(() => response.socket?.destroy());
    };
    expect(await failureOf(fetchBody("/"))).toBeInstanceOf(Error);
  });
});

describe("the transport over HTTPS", () => {
  const tls = resolve(dirname(fileURLToPath(import.meta.url)), "fixtures/tls");
  const transport = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/client/transport.js");
  /** Fetches `url` in a fresh Node that trusts the fixture certificate when told to, printing the body or the error's code. */
  const fetchIn = async (url: string, trusted: boolean) => {
    const script = `import(${JSON.stringify(transport)}).then(async ({ transportFetch, textOf }) => {
      try { process.stdout.write(textOf(await transportFetch(${JSON.stringify(url)}, { maxBodyBytes: 1 << 20 }))); }
      catch (error) { process.stdout.write("failed: " + (error.code ?? error.message)); }
    })`;
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: trusted ? resolve(tls, "localhost-cert.pem") : "" };
    return (await promisify(execFile)(process.execPath, ["-e", script], { env })).stdout;
  };

  it("verifies the server's certificate and decodes what it sends", async () => {
    const server = createHttpsServer(
      { key: readFileSync(resolve(tls, "localhost-key.pem")), cert: readFileSync(resolve(tls, "localhost-cert.pem")) },
      (request, response) => {
        if (request.url === "/old") return void response.writeHead(301, { Location: "/new" }).end();
        response.writeHead(200, { "Content-Encoding": "gzip" }).end(gzipSync(`over TLS at ${request.url}`));
      },
    );
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/old`;
      expect(await fetchIn(url, true)).toBe("over TLS at /new");
      expect(await fetchIn(url, false)).toBe("failed: DEPTH_ZERO_SELF_SIGNED_CERT");
    } finally {
      server.close();
    }
  });
});

it("the text of a response the transport did not make is an error, never an empty body", () => {
  expect(() => textOf(new Response("{}"))).toThrow("the response is not one the node:http transport made");
});
