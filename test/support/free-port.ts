import { createServer } from "node:net";

/** A loopback port nothing listens on right now (the OS's pick), for a server a test starts elsewhere. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
