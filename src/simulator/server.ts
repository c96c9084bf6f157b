/** Serving the simulator over HTTP with @hono/node-server. */

import { listen } from "../server/listen.js";
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

export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const { host = "127.0.0.1", port = 0, ...simulatorOptions } = options;
  const simulator = createSimulator(simulatorOptions);
  const server = await listen(simulator.app, host, port);
  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    simulator,
    close() {
      closing ??= (async () => {
        simulator.releaseHangingRequests();
        await server.close();
      })();
      return closing;
    },
  };
}
