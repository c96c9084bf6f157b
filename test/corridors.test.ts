import type { IncomingMessage, ServerResponse } from "node:http";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PollError } from "../src/client/errors.js";
import { HorizonClient } from "../src/client/horizon-client.js";
import { CorridorsJob, DISABLED_RETRY_MS, REFUSAL_REASONS_LOGGED } from "../src/collectors/corridors.js";
import type { CorridorConfig } from "../src/config/corridors.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { startSimulator, USDC, type RunningSimulator } from "../src/simulator/index.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { fixtureJson } from "./support/fixtures.js";
import { runnerFor } from "./support/job-harness.js";
import { LoopbackServer } from "./support/loopback-server.js";
import { ManualClock } from "./support/manual-clock.js";
import { pollContext } from "./support/poll-context.js";
import { until } from "./support/wait.js";

const schedule = parseSchedule("1m") as Schedule;
const SEND: CorridorConfig = {
  name: "usdc-to-xlm",
  mode: "strict_send",
  source: USDC,
  destination: "native",
  amount: "100",
};
/** The corridor of the java-sdk capture: 0.1 XLM to USDC. */
const CAPTURED: CorridorConfig = {
  name: "xlm-to-usdc",
  mode: "strict_send",
  source: "native",
  destination: USDC,
  amount: "0.1",
};
const RECEIVE: CorridorConfig = {
  name: "xlm-for-usdc",
  mode: "strict_receive",
  source: "native",
  destination: USDC,
  amount: "50",
  minRate: 0.09,
};
const context = pollContext();

/** `clock` times the requests out too, where a test moves it past a hanging answer. */
function client(url: string, timeoutMs: number, clock?: ManualClock): HorizonClient {
  // Retries set high on purpose: a corridor request must still be sent once.
  return new HorizonClient({ url, timeoutMs, retries: 3, retryBaseDelayMs: 1, maxBodyBytes: 1 << 20, clock });
}

/** `timeoutMs` short only where a scripted answer hangs: a loaded machine answers slowly. */
function jobOn(
  url: string,
  corridors: CorridorConfig[],
  {
    clock = new ManualClock(),
    lines = [],
    timeoutMs = 5000,
    requestsOnClock = false,
  }: { clock?: ManualClock; lines?: object[]; timeoutMs?: number; requestsOnClock?: boolean } = {},
) {
  const log = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return new CorridorsJob(corridors, schedule, {
    client: client(url, timeoutMs, requestsOnClock ? clock : undefined),
    log,
    now: () => clock.now(),
    freshnessMs: 3 * schedule.periodMs,
    timeoutMs,
  });
}

function series(job: CorridorsJob, ok = true): Map<string, number> {
  const { live, persistent } = job.samples(ok);
  const values = new Map<string, number>();
  for (const sample of [...live, ...persistent]) {
    if ("value" in sample) values.set(`${sample.metric.name}${JSON.stringify(sample.labels ?? {})}`, sample.value);
  }
  return values;
}
const key = (name: string, labels: Record<string, string>) => `${name}${JSON.stringify(labels)}`;

describe("corridors against the simulator", () => {
  let running: RunningSimulator;
  beforeAll(async () => {
    running = await startSimulator({ ledgerIntervalMs: 5000 });
  });
  afterAll(() => running.close());

  it("best amount, rate and hops equal the served records, in both modes", async () => {
    const job = jobOn(running.url, [SEND, RECEIVE]);
    await job.run(context);
    const values = series(job);

    const raw = async (path: string) =>
      ((await (await fetch(`${running.url}${path}`)).json()) as any)._embedded.records as any[];
    const [code, issuer] = USDC.split(":");
    const sent = await raw(
      `/paths/strict-send?source_asset_type=credit_alphanum4&source_asset_code=${code}&source_asset_issuer=${issuer}` +
        "&source_amount=100&destination_assets=native",
    );
    /** The served record the corridor's series must equal, each figure computed from the wire's text. */
    const expectBest = (corridor: string, records: any[], best: any, amount: string) => {
      const labels = { corridor };
      expect(values.get(key("stellar_horizon_corridor_paths", labels))).toBe(records.length);
      expect(values.get(key("stellar_horizon_corridor_best_amount", labels))).toBe(Number(best[amount]));
      expect(values.get(key("stellar_horizon_corridor_best_rate", labels))).toBe(
        Number(best.destination_amount) / Number(best.source_amount),
      );
      expect(values.get(key("stellar_horizon_corridor_best_hops", labels))).toBe(best.path.length);
    };
    const most = sent.reduce((a, b) => (Number(b.destination_amount) > Number(a.destination_amount) ? b : a));
    expectBest(SEND.name, sent, most, "destination_amount");

    const received = await raw(
      `/paths/strict-receive?destination_asset_type=credit_alphanum4&destination_asset_code=${code}` +
        `&destination_asset_issuer=${issuer}&destination_amount=50&source_assets=native`,
    );
    const least = received.reduce((a, b) => (Number(b.source_amount) < Number(a.source_amount) ? b : a));
    expectBest(RECEIVE.name, received, least, "source_amount");
    const send = { corridor: SEND.name };
    const receive = { corridor: RECEIVE.name };
    expect(values.get(key("stellar_horizon_corridor_min_rate", receive))).toBe(0.09);
    expect(values.has(key("stellar_horizon_corridor_min_rate", send))).toBe(false);
    expect(values.get(key("stellar_horizon_corridor_runs_total", { ...send, result: "found" }))).toBe(1);
    expect(values.get(key("stellar_horizon_corridor_runs_total", { ...receive, result: "found" }))).toBe(1);
  });
});

/** A Horizon answering each request with the next scripted answer (status, body, headers); `hang` never answers. */
class ScriptedHorizon {
  readonly requests: string[] = [];
  answers: (readonly [number, unknown, Record<string, string>?] | "hang")[] = [];
  private readonly server = new LoopbackServer((request: IncomingMessage, response: ServerResponse) => {
    this.requests.push(request.url ?? "");
    const answer = this.answers.shift() ?? [200, { _embedded: { records: [] } }];
    if (answer === "hang") return;
    const [status, body, headers] = answer;
    const type = status === 200 ? "application/hal+json" : "application/problem+json";
    response.writeHead(status, { "Content-Type": type, ...headers }).end(JSON.stringify(body));
  });
  url = "";
  async start(): Promise<void> {
    this.url = await this.server.start();
  }
  stop(): Promise<void> {
    return this.server.stop();
  }
}

/** A page of path records. */
const page = (records: object[]) => ({ _embedded: { records } });
/** A direct path from native to USDC, the pair of CAPTURED and RECEIVE, moving these amounts. */
function nativeToUsdc(sourceAmount: string, destinationAmount: string) {
  const [code, issuer] = USDC.split(":");
  return {
    source_asset_type: "native",
    source_amount: sourceAmount,
    destination_asset_type: "credit_alphanum4",
    destination_asset_code: code,
    destination_asset_issuer: issuer,
    destination_amount: destinationAmount,
    path: [],
  };
}

describe("corridor outcomes", () => {
  const horizon = new ScriptedHorizon();
  beforeAll(() => horizon.start());
  afterAll(() => horizon.stop());
  const found = fixtureJson("paths_strict_send-java-sdk.json");
  const runs = (job: CorridorsJob, result: string) =>
    series(job).get(key("stellar_horizon_corridor_runs_total", { corridor: CAPTURED.name, result }));

  it("counts each outcome under its result, one request per run, never retried", async () => {
    const job = jobOn(horizon.url, [CAPTURED], { timeoutMs: 1000 });
    horizon.requests.length = 0;
    horizon.answers = [
      [200, found],
      [200, { _embedded: { records: [] } }],
      [503, fixtureJson("error-server_over_capacity-horizon-src.json")],
      [503, fixtureJson("error-still_ingesting-horizon-src.json")],
      "hang",
      [500, fixtureJson("error-server_error-horizon-src.json")],
      [400, fixtureJson("error-bad_request-destination_assets_over_max-horizon-src.json")],
      [404, fixtureJson("error-not_found-horizon-src.json")],
    ];
    for (let run = 0; run < 8; run += 1) await job.run(context);
    expect(horizon.requests).toHaveLength(8);
    for (const result of ["found", "none", "over_capacity", "still_ingesting", "timeout", "disabled"])
      expect(runs(job, result), result).toBe(1);
    expect(runs(job, "error")).toBe(2);
    // The request names the one destination asset, never an account.
    expect(horizon.requests[0]).toMatch(/^\/paths\/strict-send\?/);
    const query = new URL(horizon.requests[0] ?? "", horizon.url).searchParams;
    expect(Object.fromEntries(query)).toEqual({
      source_asset_type: "native",
      source_amount: "0.1",
      destination_assets: USDC,
    });
  });

  it("counts a path moving a zero amount invalid, never publishing a best amount or rate of 0", async () => {
    const job = jobOn(horizon.url, [CAPTURED, RECEIVE]);
    const counted = pollContext();
    horizon.answers = [
      [200, page([nativeToUsdc("0.1000000", "0.0000000"), nativeToUsdc("0.1000000", "0.0500000")])],
      [200, page([nativeToUsdc("0.0000000", "50.0000000"), nativeToUsdc("500.0000000", "50.0000000")])],
    ];
    await job.run(counted);
    expect(counted.invalid).toBe(2);
    const values = series(job);
    const expected = [
      [CAPTURED.name, 0.05, 0.5],
      [RECEIVE.name, 500, 0.1],
    ] as const;
    for (const [corridor, amount, rate] of expected) {
      const labels = { corridor };
      expect(values.get(key("stellar_horizon_corridor_paths", labels)), corridor).toBe(1);
      expect(values.get(key("stellar_horizon_corridor_best_amount", labels)), corridor).toBe(amount);
      expect(values.get(key("stellar_horizon_corridor_best_rate", labels)), corridor).toBe(rate);
      expect(values.get(key("stellar_horizon_corridor_runs_total", { ...labels, result: "found" }))).toBe(1);
    }
  });

  it("counts a run whose records of the corridor's pair all failed their schema as error, never none", async () => {
    const clock = new ManualClock();
    const job = jobOn(horizon.url, [CAPTURED], { clock });
    const counted = pollContext();
    const labels = { corridor: CAPTURED.name };
    // Valid, and of another pair: native to itself, as Horizon answers beside the corridor's paths.
    const toItself = { ...nativeToUsdc("0.1000000", "0.1000000"), destination_asset_type: "native" };
    const { destination_asset_type: _, ...pairless } = nativeToUsdc("0.1000000", "0.0100000");
    horizon.answers = [
      [200, found],
      [200, page([nativeToUsdc("0.1000000", "0.0000000"), toItself])],
      [200, page([pairless, toItself])],
      [200, page([{ ...toItself, source_amount: "-1" }, toItself])],
    ];
    await job.run(counted);
    for (let run = 2; run <= 4; run += 1) {
      await clock.advance(60_000);
      await job.run(counted);
    }
    // Error: the corridor's one path moved nothing; a path whose destination cannot be read may have been the
    // corridor's. None: a broken path of another pair says nothing of the corridor's.
    expect(runs(job, "found")).toBe(1);
    expect(runs(job, "error")).toBe(2);
    expect(runs(job, "none")).toBe(1);
    expect(counted.invalid).toBe(3);
    horizon.answers = [
      [200, found],
      [200, page([nativeToUsdc("0.1000000", "0.0000000"), toItself])],
    ];
    await job.run(counted);
    await job.run(counted);
    // An error keeps the last answer's series, as any failed run does.
    const values = series(job);
    expect(runs(job, "error")).toBe(3);
    expect(values.get(key("stellar_horizon_corridor_paths", labels))).toBe(5);
    expect(values.get(key("stellar_horizon_corridor_best_amount", labels))).toBe(0.0100343);
  });

  it("counts a path whose credit asset lacks its issuer or code invalid, and the run error, never none", async () => {
    const job = jobOn(horizon.url, [CAPTURED]);
    const counted = pollContext();
    // It passed the schema once and was then dropped uncounted: its destination cannot be read, so it may have been
    // the corridor's path, and a run seeing nothing else must not say none (StellarCorridorNoPath).
    const { destination_asset_issuer: _, ...issuerless } = nativeToUsdc("0.1000000", "0.0100343");
    const { destination_asset_code: __, ...codeless } = nativeToUsdc("0.1000000", "0.0100343");
    horizon.answers = [
      [200, page([issuerless])],
      [200, page([codeless])],
    ];
    await job.run(counted);
    await job.run(counted);
    expect({ invalid: counted.invalid, none: runs(job, "none"), error: runs(job, "error") }).toEqual({
      invalid: 2,
      none: 0,
      error: 2,
    });
  });

  it("logs a 400 once per corridor and reason, with Horizon's extras.reason", async () => {
    const lines: any[] = [];
    const job = jobOn(horizon.url, [CAPTURED], { lines });
    const refused = [400, fixtureJson("error-bad_request-destination_assets_over_max-horizon-src.json")] as const;
    horizon.answers = [refused, refused, refused];
    for (let run = 0; run < 3; run += 1) await job.run(context);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      corridor: CAPTURED.name,
      status: 400,
      reason: "list of assets exceeds maximum length of 15",
    });
    expect(runs(job, "error")).toBe(3);
  });

  it("logs a 400 whose reason differs per answer a few times only, as an excerpt, remembering little", async () => {
    const lines: any[] = [];
    const job = jobOn(horizon.url, [CAPTURED], { lines });
    const refusal = (index: number) => ({
      type: "https://stellar.org/horizon-errors/bad_request",
      title: "Bad Request",
      status: 400,
      // A request id, a timestamp: any text that differs per answer, as long as a problem document may be.
      detail: `request ${index} refused ${"x".repeat(10_000)}`,
    });
    horizon.answers = Array.from({ length: 20 }, (_, index) => [400, refusal(index)] as const);
    for (let run = 0; run < 20; run += 1) await job.run(context);
    expect(runs(job, "error")).toBe(20);
    expect(lines).toHaveLength(REFUSAL_REASONS_LOGGED);
    expect(lines[0].reason).toMatch(/^request 0 refused x+…$/);
    expect(lines[0].reason.length).toBeLessThan(300);
    expect(lines.at(-1)).toMatchObject({ furtherReasonsNotLogged: true });
    const remembered = [...(job as unknown as { refusalsLogged: Map<string, Set<string>> }).refusalsLogged.values()];
    const chars = remembered.flatMap((reasons) => [...reasons]).reduce((total, reason) => total + reason.length, 0);
    expect(chars).toBeLessThan(REFUSAL_REASONS_LOGGED * 300);
  });

  it("asks a disabled Horizon at most once an hour, and does not count the runs skipped", async () => {
    const clock = new ManualClock();
    const job = jobOn(horizon.url, [CAPTURED, RECEIVE], { clock });
    horizon.requests.length = 0;
    const notFound = [404, fixtureJson("error-not_found-horizon-src.json")] as const;
    horizon.answers = [notFound, notFound, notFound];
    await job.run(context);
    for (let minute = 1; minute < 60; minute += 1) {
      await clock.advance(60_000);
      await job.run(context);
    }
    // The first corridor's 404 stands for the whole Horizon: the second is not asked.
    expect(horizon.requests).toHaveLength(1);
    expect(runs(job, "disabled")).toBe(1);
    expect(
      series(job).get(key("stellar_horizon_corridor_runs_total", { corridor: RECEIVE.name, result: "disabled" })),
    ).toBe(0);
    await clock.advance(DISABLED_RETRY_MS - 59 * 60_000);
    await job.run(context);
    expect(horizon.requests).toHaveLength(2);
    expect(runs(job, "disabled")).toBe(2);
  });

  it("best-record series leave on none, and outlive other failures until their freshness ends", async () => {
    const clock = new ManualClock();
    const job = jobOn(horizon.url, [CAPTURED], { clock });
    const labels = { corridor: CAPTURED.name };
    horizon.answers = [
      [200, found],
      [500, fixtureJson("error-server_error-horizon-src.json")],
    ];
    await job.run(context);
    const best = series(job).get(key("stellar_horizon_corridor_best_amount", labels));
    // The java-sdk capture: the best of five 2-hop paths from 0.1 XLM to USDC; its XLM-to-XLM record is no path of the corridor.
    expect(best).toBe(0.0100343);
    expect(series(job).get(key("stellar_horizon_corridor_best_hops", labels))).toBe(2);
    await clock.advance(60_000);
    await job.run(context);
    expect(series(job).get(key("stellar_horizon_corridor_best_amount", labels))).toBe(best);
    expect(series(job).get(key("stellar_horizon_corridor_paths", labels))).toBe(5);
    await clock.advance(3 * 60_000);
    expect(series(job).has(key("stellar_horizon_corridor_best_amount", labels))).toBe(false);
    expect(series(job).has(key("stellar_horizon_corridor_paths", labels))).toBe(false);
    // Found again, then none: the best-record series leave at once, and paths says 0.
    horizon.answers = [
      [200, found],
      [200, { _embedded: { records: [] } }],
    ];
    await job.run(context);
    expect(series(job).has(key("stellar_horizon_corridor_best_rate", labels))).toBe(true);
    await job.run(context);
    const after = series(job);
    expect(after.get(key("stellar_horizon_corridor_paths", labels))).toBe(0);
    for (const name of ["best_amount", "best_rate", "best_hops"])
      expect(after.has(key(`stellar_horizon_corridor_${name}`, labels))).toBe(false);
    expect(after.get(key("stellar_horizon_corridor_last_found_timestamp_seconds", labels))).toBe(clock.now() / 1000);
  });

  it("a failing corridor run succeeds as a poll: no poll error, no backoff, nothing healed", async () => {
    const clock = new ManualClock();
    const job = jobOn(horizon.url, [CAPTURED], { clock });
    const { runner, store, metrics } = runnerFor(job, { clock });
    horizon.answers = [[503, fixtureJson("error-server_over_capacity-horizon-src.json")]];
    await runner.run();
    expect(runner.snapshot().lastError).toBeUndefined();
    const self = parseExposition((await metrics.render("identity")).toString());
    expect(
      valueOf(self, "stellar_horizon_exporter_poll_errors_total", {
        horizon: "h",
        endpoint: "corridors",
        reason: "http_5xx",
      }) ?? 0,
    ).toBe(0);
    const text = (await store.scrape(clock.now(), "identity")).toString();
    expect(
      valueOf(parseExposition(text), "stellar_horizon_corridor_runs_total", {
        horizon: "h",
        corridor: CAPTURED.name,
        result: "over_capacity",
      }),
    ).toBe(1);
    // Not backing off: the next scheduled tick runs at once.
    horizon.answers = [[200, found]];
    await runner.runOnSchedule();
    expect(
      valueOf(
        parseExposition((await store.scrape(clock.now(), "identity")).toString()),
        "stellar_horizon_corridor_runs_total",
        { horizon: "h", corridor: CAPTURED.name, result: "found" },
      ),
    ).toBe(1);
  });

  // http.timeout 3s: with 1 retry a request budget of 6 s, with none one of 3 s; either is shorter than the 9 s the
  // three corridors take to time out one after the other.
  it.each([1, 0])(
    "gives every corridor of a Horizon whose path finding hangs its timeout each poll (retries %i); the poll succeeds",
    async (retries) => {
      const clock = new ManualClock();
      const corridors = [CAPTURED, RECEIVE, SEND];
      const job = jobOn(horizon.url, corridors, { clock, timeoutMs: 3000, requestsOnClock: true });
      const { runner, store, metrics } = runnerFor(job, { clock, timeoutMs: 3000, retries });
      horizon.requests.length = 0;
      horizon.answers = ["hang", "hang", "hang", "hang", "hang", "hang"];
      for (let poll = 1; poll <= 2; poll += 1) {
        const running = runner.run();
        for (let corridor = 1; corridor <= corridors.length; corridor += 1) {
          const asked = (poll - 1) * corridors.length + corridor;
          await until(`request ${asked} to arrive`, () => (horizon.requests.length === asked ? true : undefined));
          await clock.advance(3000);
        }
        await running;
        expect(runner.snapshot()).toMatchObject({ polls: poll, lastSuccessMs: clock.now() });
        expect(runner.snapshot().lastError).toBeUndefined();
        const scraped = parseExposition((await store.scrape(clock.now(), "identity")).toString());
        for (const { name: corridor } of corridors) {
          const runs = (result: string) =>
            valueOf(scraped, "stellar_horizon_corridor_runs_total", { horizon: "h", corridor, result });
          expect(runs("timeout"), corridor).toBe(poll);
          expect(runs("error"), corridor).toBe(0);
        }
      }
      expect(horizon.requests).toHaveLength(6);
      const self = parseExposition((await metrics.render("identity")).toString());
      const pollErrors = [...self].filter(
        ([key, value]) => key.startsWith("stellar_horizon_exporter_poll_errors_total") && value > 0,
      );
      expect(pollErrors).toEqual([]);
    },
  );

  it("a corridor waiting behind the hung first request after a hold times out within its own timeout; the poll succeeds", async () => {
    const clock = new ManualClock();
    // One client, as a target's jobs share it: root's request opens after the hold, the corridor's waits behind it.
    const shared = new HorizonClient({ url: horizon.url, timeoutMs: 3000, retries: 0, maxBodyBytes: 1 << 20, clock });
    const log = pino({ level: "silent" });
    const parts = { client: shared, log, now: () => clock.now(), freshnessMs: 3 * schedule.periodMs, timeoutMs: 3000 };
    const job = new CorridorsJob([CAPTURED], schedule, parts);
    // No retries: one request's budget is 3 s, the corridor's own 4 s (its timeout and a second to settle).
    const { runner, store } = runnerFor(job, { clock, timeoutMs: 3000, retries: 0 });
    horizon.requests.length = 0;
    horizon.answers = [[429, {}, { "Retry-After": "5" }], "hang", "hang"];
    await expect(shared.root()).rejects.toMatchObject({ reason: "rate_limited" });
    await clock.advance(5000);
    const opener = shared.root().catch((error: PollError) => error.reason);
    await until("the first request after the hold", () => (horizon.requests.length === 2 ? true : undefined));
    await clock.advance(1000);
    const running = runner.run();
    // The opener times out unanswered; the corridor, 2 s into its timeout, goes first in its turn and hangs too.
    await clock.advance(2000);
    expect(await opener).toBe("timeout");
    await until("the corridor's request", () => (horizon.requests.length === 3 ? true : undefined));
    await clock.advance(3000);
    await running;
    expect(runner.snapshot().lastError).toBeUndefined();
    const scraped = parseExposition((await store.scrape(clock.now(), "identity")).toString());
    const runs = (result: string) =>
      valueOf(scraped, "stellar_horizon_corridor_runs_total", { horizon: "h", corridor: CAPTURED.name, result });
    expect(runs("timeout")).toBe(1);
    expect(runs("error")).toBe(0);
  });
});
