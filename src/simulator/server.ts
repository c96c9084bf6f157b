/** Serving the simulator over HTTP with @hono/node-server. */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createSimulator, type Simulator, type SimulatorOptions } from "./simulator.js";

export interface StartOptions extends SimulatorOptions {
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Port to bind; 0 (the default) picks a free one. */
  port?: number;
}

export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  url: string;
  simulator: Simulator;
  /** Stops listening and ends every open connection, hanging requests included. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const { host = "127.0.0.1", port = 0, ...simulatorOptions } = options;
  const simulator = createSimulator(simulatorOptions);
  // Plain HTTP/1.1 is what `serve` creates without custom server options.
  const server = serve({ fetch: simulator.app.fetch, hostname: host, port }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port: boundPort } = server.address() as AddressInfo;
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()));
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${boundPort}`,
    simulator,
    close() {
      closing ??= (async () => {
        server.close();
        simulator.releaseHangingRequests();
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
