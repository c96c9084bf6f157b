import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { serve, type HttpBindings, type ServerType } from "@hono/node-server";
import type { Hono } from "hono";
import type { WebConfig } from "../config/web-config.js";

export interface Listening {
  /** Base URL that reaches the server, e.g. http://127.0.0.1:9619 */
  readonly url: string;
  /** Swaps the certificate and key for new connections; false when TLS would have to be turned on or off. */
  setTls(tls: WebConfig["tls"]): boolean;
  close(): Promise<void>;
}

/** A host as a URL or `host:port` writes it: an IPv6 address in brackets. */
const bracketed = (host: string) => (host.includes(":") ? `[${host}]` : host);

/** The host a client on this machine reaches a server listening on `host` at, as a URL writes it. */
export function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return bracketed(host);
}

function tlsOptions(tls: NonNullable<WebConfig["tls"]>) {
  return { cert: tls.cert, key: tls.key.reveal(), minVersion: tls.minVersion, maxVersion: tls.maxVersion };
}

const LISTEN_ERRORS: Readonly<Record<string, string>> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "no such address on this machine",
};

/** An app served here: Hono's, reading Node's request and response from its bindings. */
type NodeApp = Pick<Hono<{ Bindings: HttpBindings }>, "fetch">;

/** Listens on host:port (port 0: any free port), over TLS when given; rejects as `cannot listen on <where>: <why>`. */
export function listen(app: NodeApp, host: string, port: number, tls?: WebConfig["tls"]): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const where = `${bracketed(host)}:${port}`;
    const onError = (error: NodeJS.ErrnoException) => {
      const why = LISTEN_ERRORS[error.code ?? ""] ?? error.message;
      reject(new Error(`cannot listen on ${where}: ${why}`, { cause: error }));
    };
    const serverOptions = tls ? tlsOptions(tls) : {};
    const server: ServerType = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port,
        createServer: (tls ? createHttpsServer : createHttpServer) as typeof createHttpServer,
        serverOptions,
        // serve() would replace the global Response with node-server's own. /metrics writes its answer itself and
        // returns RESPONSE_ALREADY_SENT; made after that replacement, the marker is node-server's kind of Response,
        // which it then writes a second time, breaking the connection. So Response stays Node's (200 to 599 only).
        overrideGlobalObjects: false,
      },
      (info: AddressInfo) => {
        server.off("error", onError);
        resolve({
          url: `${tls ? "https" : "http"}://${urlHost(host)}:${info.port}`,
          setTls: (next) => {
            if (next === undefined || tls === undefined) return next === tls;
            (server as HttpsServer).setSecureContext(tlsOptions(next));
            return true;
          },
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    server.once("error", onError);
  });
}
