/**
 * End to end: targets checked against each other. Two simulators of one network (same seed and
 * network start), one of them forked a few ledgers after the start, the honest one's Stellar RPC
 * as a third target, and a fourth simulator on another network. A real Prometheus scrapes the
 * exporter every second and evaluates the rules. Every simulator sits behind a counting proxy, so
 * the test sees every request the exporter sent.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Networks } from "@stellar/stellar-sdk";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExporterConfig } from "../../src/config/config.js";
import { loadConfig } from "../../src/config/config.js";
import { startExporter, type RunningExporter } from "../../src/exporter.js";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.js";
import { ruleFiles } from "../../scripts/dashboards/paths.js";
import { parseExposition } from "../support/exposition.js";
import { until } from "../support/wait.js";
import { startPrometheus, type RunningPrometheus } from "./prometheus.js";

const JOB = "stellar-horizon-exporter";
const LEDGER_INTERVAL_MS = 1000;
/** Ledgers between the start and the fork: the targets agree on these first. */
const LEDGERS_BEFORE_FORK = 12;
const OTHER_PASSPHRASE = "Standalone Network ; February 2017";
/** The first 8 hex digits of the SHA-256 of OTHER_PASSPHRASE. */
const OTHER_NETWORK = "baefd734";
const ALERT = "StellarTargetLedgerHashDisagrees";

/** Requests a proxied simulator received, by what they asked for. */
interface CountingProxy {
  readonly url: string;
  /** Horizon requests by path; JSON-RPC requests as `rpc:` and their methods, comma-separated. */
  readonly counts: Map<string, number>;
  close(): Promise<void>;
}

/** Passes every request to the simulator, counting it first. */
async function startCountingProxy(target: string): Promise<CountingProxy> {
  const counts = new Map<string, number>();
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const url = new URL(incoming.url ?? "/", target);
      if (incoming.method === "POST" && url.pathname === "/rpc") {
        const calls = [JSON.parse(body.toString()) as unknown].flat() as { method: string }[];
        count(`rpc:${calls.map((call) => call.method).join(",")}`);
      } else {
        count(url.pathname);
      }
      const upstream = request(url, { method: incoming.method, headers: incoming.headers }, (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      });
      upstream.on("error", () => outgoing.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What each proxied request was for, as the exporter's `endpoint` label names it. */
const HORIZON_ENDPOINTS: Readonly<Record<string, string>> = {
  "/": "root",
  "/fee_stats": "fee_stats",
  "/ledgers": "ledgers",
  "/liquidity_pools": "liquidity_pools",
};
const RPC_ENDPOINTS: Readonly<Record<string, string>> = {
  "rpc:getHealth,getLatestLedger,getFeeStats": "status",
  "rpc:getNetwork,getVersionInfo": "versions",
};

describe("targets checked against each other, against a real Prometheus", () => {
  const simulators: RunningSimulator[] = [];
  const proxies = new Map<string, CountingProxy>();
  let exporter: RunningExporter | undefined;
  let prometheus: RunningPrometheus | undefined;
  let forkAt = 0;
  let startedAt = 0;

  const running = (): RunningPrometheus => {
    if (!prometheus) throw new Error("Prometheus did not start");
    return prometheus;
  };
  /** Each series' value by `kind/target`, for one agreement family. */
  async function byTarget(name: string): Promise<Map<string, number>> {
    const samples = await running().query(`${name}{job="${JOB}"}`);
    return new Map(
      samples.map((sample) => [`${sample.metric.network}/${sample.metric.kind}/${sample.metric.target}`, sample.value]),
    );
  }

  beforeAll(async () => {
    const networkStartMs = Date.now();
    const network = {
      seed: 5,
      ledgerIntervalMs: LEDGER_INTERVAL_MS,
      networkStartMs,
      networkPassphrase: Networks.TESTNET,
      pools: 3,
    };
    const honest = await startSimulator(network);
    forkAt = honest.simulator.state().historyLatestLedger + LEDGERS_BEFORE_FORK;
    const forked = await startSimulator({ ...network, forkAt });
    const elsewhere = await startSimulator({
      seed: 6,
      ledgerIntervalMs: LEDGER_INTERVAL_MS,
      networkPassphrase: OTHER_PASSPHRASE,
      pools: 3,
    });
    simulators.push(honest, forked, elsewhere);
    for (const [name, simulator] of [
      ["honest", honest],
      ["forked", forked],
      ["elsewhere", elsewhere],
    ] as const) {
      proxies.set(name, await startCountingProxy(simulator.url));
    }
    const url = (name: string) => proxies.get(name)!.url;
    const command = await loadConfig(
      [
        `--horizon.url=honest=${url("honest")}`,
        `--horizon.url=forked=${url("forked")}`,
        `--horizon.url=elsewhere=${url("elsewhere")}`,
        `--rpc.url=honest=${url("honest")}/rpc`,
        "--poll.interval=1s",
        "--web.listen-address=127.0.0.1:0",
      ],
      {},
    );
    if (command.kind !== "run") throw new Error(`exporter config rejected: ${JSON.stringify(command)}`);
    const config: ExporterConfig = { ...command.config, retries: 0 };
    startedAt = Date.now() / 1000;
    exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
    prometheus = await startPrometheus({
      jobName: JOB,
      target: new URL(exporter.url).host,
      ruleFiles: ruleFiles(),
      intervalSeconds: 1,
    });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.close();
    await exporter?.close();
    await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
    await Promise.all(simulators.map((simulator) => simulator.close()));
  }, 30_000);

  it("counts disagreements against the forked target only, comparisons for all three, and fires the alert for it", async () => {
    const firing = await until(
      () => `${ALERT} firing (fork at ${forkAt}); Prometheus: ${running().log()}`,
      async () => {
        const alerts = await running().query(`ALERTS{alertname="${ALERT}", alertstate="firing"}`);
        return alerts.length > 0 ? alerts : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    expect(firing.map((alert) => alert.metric.target)).toEqual(["forked"]);
    expect(firing[0]!.metric).toMatchObject({ network: "testnet", kind: "horizon", severity: "critical" });
    // At no evaluation since the start was the expression true for another target. The range's
    // steps fall up to a step before the rule's evaluation that fired, so it is read until a step
    // has seen what the rule saw.
    const everTrue = await until(
      () => "a step of the range query seeing a disagreement",
      async () => {
        const series = await running().seriesSince(
          `increase(stellar_network_ledger_hash_disagreements_total[5m]) > 0`,
          startedAt,
          1,
        );
        return series.length > 0 ? series : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 500 },
    );
    expect(everTrue.map((labels) => labels.target)).toEqual(["forked"]);

    const disagreements = await byTarget("stellar_network_ledger_hash_disagreements_total");
    const comparisons = await byTarget("stellar_network_ledger_hash_comparisons_total");
    expect(disagreements.get("testnet/horizon/forked")).toBeGreaterThan(0);
    expect(disagreements.get("testnet/horizon/honest")).toBe(0);
    expect(disagreements.get("testnet/rpc/honest")).toBe(0);
    for (const target of ["testnet/horizon/honest", "testnet/rpc/honest", "testnet/horizon/forked"])
      expect(comparisons.get(target), target).toBeGreaterThan(0);
    // The forked target agreed with the others before its fork.
    expect(comparisons.get("testnet/horizon/forked")).toBeGreaterThan(disagreements.get("testnet/horizon/forked")!);

    // The landing page (and /status.json, which it is drawn from) marks the forked target alone.
    const status = (await (await fetch(`${exporter!.url}/status.json`)).json()) as {
      targets: { name: string; kind: string; agreement?: { disagreeing: boolean } }[];
    };
    expect(
      status.targets.filter((target) => target.agreement?.disagreeing).map((target) => `${target.kind}/${target.name}`),
    ).toEqual(["horizon/forked"]);
    const page = await (await fetch(`${exporter!.url}/`)).text();
    expect(page.match(/badge disagrees/g)).toHaveLength(1);
    expect(page).toMatch(/badge disagrees[^<]*>DISAGREES<\/span> forked<\/h2>/);
  }, 120_000);

  it("never compares a target on another network", async () => {
    const targets = await byTarget("stellar_network_targets");
    expect(await running().query(`stellar_network_targets{job="${JOB}", network="testnet"}`)).toMatchObject([
      { value: 3 },
    ]);
    expect(await running().query(`stellar_network_targets{job="${JOB}", network="${OTHER_NETWORK}"}`)).toMatchObject([
      { value: 1 },
    ]);
    expect(targets.size).toBe(2);
    const comparisons = await byTarget("stellar_network_ledger_hash_comparisons_total");
    const disagreements = await byTarget("stellar_network_ledger_hash_disagreements_total");
    expect(comparisons.get(`${OTHER_NETWORK}/horizon/elsewhere`)).toBe(0);
    expect(disagreements.get(`${OTHER_NETWORK}/horizon/elsewhere`)).toBe(0);
    expect([...comparisons.keys()].filter((key) => key.endsWith("/elsewhere"))).toEqual([
      `${OTHER_NETWORK}/horizon/elsewhere`,
    ]);
  });

  it("makes no request of its own: every request a simulator received is one of the polls', counted by them", async () => {
    const scrape = async () => parseExposition(await (await fetch(`${exporter!.url}/metrics`)).text());
    const polled = (series: Map<string, number>, family: string, label: string, target: string, endpoint: string) =>
      [...series]
        .filter(
          ([key]) =>
            key.startsWith(`${family}{`) &&
            key.includes(`${label}="${target}"`) &&
            key.includes(`endpoint="${endpoint}"`),
        )
        .reduce((sum, [, value]) => sum + value, 0);
    const before = await scrape();
    const received = new Map([...proxies].map(([name, proxy]) => [name, new Map(proxy.counts)]));
    const after = await scrape();

    for (const [name, counts] of received) {
      for (const [request, count] of counts) {
        const isRpc = request.startsWith("rpc:");
        const endpoint = (isRpc ? RPC_ENDPOINTS : HORIZON_ENDPOINTS)[request];
        expect(endpoint, `${name} received ${request}`).toBeDefined();
        const [family, label] = isRpc
          ? ["stellar_horizon_exporter_rpc_requests_total", "rpc"]
          : ["stellar_horizon_exporter_requests_total", "horizon"];
        // A request is counted by the exporter when its answer arrives: at most one per endpoint is in flight.
        expect(count, `${name} ${request}`).toBeGreaterThanOrEqual(polled(before, family, label, name, endpoint!));
        expect(count, `${name} ${request}`).toBeLessThanOrEqual(polled(after, family, label, name, endpoint!) + 1);
        if (endpoint === "ledgers" || endpoint === "liquidity_pools") continue;
        // The other polls send one request each: as many requests as polls.
        const polls = isRpc
          ? "stellar_horizon_exporter_rpc_poll_duration_seconds_count"
          : "stellar_horizon_exporter_poll_duration_seconds_count";
        expect(count, `${name} ${request} against its polls`).toBeGreaterThanOrEqual(
          polled(before, polls, label, name, endpoint!),
        );
        expect(count, `${name} ${request} against its polls`).toBeLessThanOrEqual(
          polled(after, polls, label, name, endpoint!) + 1,
        );
      }
    }
    expect(received.get("honest")?.get("rpc:getHealth,getLatestLedger,getFeeStats")).toBeGreaterThan(3);
  });
});
