import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeHorizon } from "./fake-horizon.js";
import { LoopbackServer } from "./loopback-server.js";

/** How the hostile Horizon answers every request while the mode is set. */
export type Misbehaviour = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A Horizon that answers like FakeHorizon until told to misbehave, at the socket level where
 * needed (hangs, endless bodies), and counts the requests it receives.
 */
export class HostileHorizon {
  readonly healthy = new FakeHorizon();
  misbehaviour: Misbehaviour | undefined;
  requestCount = 0;
  private readonly server = new LoopbackServer((request, response) => {
    this.requestCount += 1;
    if (this.misbehaviour) return this.misbehaviour(request, response);
    void this.answerHealthily(request, response);
  });

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  /** Answers as the healthy FakeHorizon would; a misbehaviour may call it late. */
  async answerHealthily(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const answer = await this.healthy.app.fetch(new Request(`http://horizon${request.url ?? "/"}`));
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  }
}

export function reply(status: number, body: string | Buffer, headers: Record<string, string> = {}): Misbehaviour {
  return (_request, response) => {
    response.writeHead(status, { "Content-Length": Buffer.byteLength(body), ...headers });
    response.end(body);
  };
}

export const hang: Misbehaviour = () => {
  // Never answer; the socket stays open until the client gives up or the server stops.
};

/** An endless-looking JSON body, streamed without Content-Length, `totalBytes` long. */
export function hugeBody(totalBytes: number): Misbehaviour {
  return (_request, response) => {
    response.writeHead(200, { "Content-Type": "application/hal+json" });
    const chunk = Buffer.alloc(64 * 1024, " ");
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once("drain", pump);
      }
      response.end();
    };
    response.on("error", () => undefined);
    response.write("{");
    pump();
  };
}

export const redirectLoop: Misbehaviour = (request, response) => {
  response.writeHead(302, { Location: request.url ?? "/" });
  response.end();
};
