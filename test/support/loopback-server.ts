import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** An HTTP server on a free loopback port whose stop() also ends connections still open (hangs, keep-alive). */
export class LoopbackServer {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(listener: RequestListener) {
    this.server = createServer(listener);
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, "127.0.0.1", done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}
