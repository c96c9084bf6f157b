import { gunzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { METRICS, RPC_METRICS, type MetricDefinition } from "../src/catalog/metrics.js";
import { ExporterMetrics, OwnRegistry } from "../src/exposition/self-metrics.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { ManualClock } from "./support/manual-clock.js";

const REQUESTS: MetricDefinition = {
  name: "own_requests_total",
  type: "counter",
  help: "Requests.",
  labels: ["code"],
  source: "exporter",
};
const QUEUE: MetricDefinition = {
  name: "own_queue",
  type: "gauge",
  help: "Queue.",
  labels: [],
  perTarget: false,
  source: "exporter",
};
const DURATION: MetricDefinition = {
  name: "own_duration_seconds",
  type: "histogram",
  help: "Duration.",
  labels: [],
  perTarget: false,
  source: "exporter",
  buckets: [1],
};

describe("the own registry", () => {
  it("renders every family as it is now, in the order the metrics were made", async () => {
    const registry = new OwnRegistry();
    const requests = registry.counter(REQUESTS);
    const queue = registry.gauge(QUEUE);
    const duration = registry.histogram(DURATION);
    requests.inc({ horizon: "a", code: "200" }, 3);
    queue.set(2);
    duration.observe(0.5);
    expect(await registry.registry.metrics()).toBe(
      [
        "# HELP own_requests_total Requests.",
        "# TYPE own_requests_total counter",
        'own_requests_total{horizon="a",code="200"} 3',
        "",
        "# HELP own_queue Queue.",
        "# TYPE own_queue gauge",
        "own_queue 2",
        "",
        "# HELP own_duration_seconds Duration.",
        "# TYPE own_duration_seconds histogram",
        'own_duration_seconds_bucket{le="1"} 1',
        'own_duration_seconds_bucket{le="+Inf"} 1',
        "own_duration_seconds_sum 0.5",
        "own_duration_seconds_count 1",
        "",
      ].join("\n"),
    );
    queue.set(7);
    requests.labels({ horizon: "a", code: "500" }).inc();
    const after = await registry.registry.metrics();
    expect(after).toContain("own_queue 7\n");
    expect(after).toContain('own_requests_total{horizon="a",code="500"} 1\n');
  });
});

/** The exposition without the process and Node.js families, whose values move between two renders. */
const ownLines = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^(# (HELP|TYPE) )?(process|nodejs)_/.test(line))
    .join("\n");
const familiesOf = (text: string) => text.split("\n").filter((line) => line.startsWith("# TYPE "));

describe("the exporter's own metrics", () => {
  it("are current at every render, process metrics included, gzip decoding to the plain text", async () => {
    const metrics = new ExporterMetrics("1.2.3");
    metrics.horizon.addTarget("a");
    metrics.horizon.requestPlan("a", 120, 3600);
    const before = parseExposition((await metrics.render("identity")).toString());
    expect(
      valueOf(before, `${METRICS.pollDuration.name}_count`, { horizon: "a", endpoint: "ledgers" }),
    ).toBeUndefined();
    metrics.horizon.pollSucceeded("a", "ledgers", 0.25, Date.now());
    metrics.horizon.observerFor("a").onRequest("ledgers", "200", 0.1);
    metrics.rpc.pollSucceeded("a", "status", 0.5, Date.now());

    const plain = await metrics.render("identity");
    const decoded = gunzipSync(await metrics.render("gzip")).toString();
    // Each render collects the process metrics anew: the same families, and the same own series byte for byte.
    expect(familiesOf(decoded)).toEqual(familiesOf(plain.toString()));
    expect(ownLines(decoded)).toBe(ownLines(plain.toString()));
    expect(familiesOf(plain.toString())).toContain("# TYPE process_cpu_user_seconds_total counter");
    const series = parseExposition(plain.toString());
    expect(valueOf(series, `${METRICS.pollDuration.name}_count`, { horizon: "a", endpoint: "ledgers" })).toBe(1);
    expect(valueOf(series, METRICS.requestsTotal.name, { horizon: "a", endpoint: "ledgers", code: "200" })).toBe(1);
    expect(valueOf(series, METRICS.plannedRequestsPerHour.name, { horizon: "a" })).toBe(120);
    // One implementation for both kinds: a Stellar RPC's polls land in its own series, under its own label.
    expect(valueOf(series, `${RPC_METRICS.pollDuration.name}_count`, { rpc: "a", endpoint: "status" })).toBe(1);
    expect(valueOf(series, `${METRICS.pollDuration.name}_count`, { horizon: "a", endpoint: "status" })).toBeUndefined();
    expect(valueOf(series, METRICS.publishFailuresTotal.name)).toBe(0);
    expect(valueOf(series, METRICS.buildInfo.name, { version: "1.2.3", node_version: process.version })).toBe(1);
    // prom-client counts CPU from the registry's making, and Linux splits CPU time into user and system by its tick
    // samples: a quick test may see no user time yet.
    expect(valueOf(series, "process_cpu_user_seconds_total")).toBeGreaterThanOrEqual(0);
    expect(valueOf(series, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(plain.toString()).not.toContain("nodejs_active_handles_total");
  });
});

describe("a failed render of the exporter's own metrics", () => {
  it("fails that scrape only: the next one renders again, with no metric changed in between", async () => {
    const metrics = new ExporterMetrics("1.2.3");
    const failing = metrics.registry.registry.getSingleMetric(METRICS.publishFailuresTotal.name)!;
    const spy = vi.spyOn(failing, "get").mockRejectedValueOnce(new Error("collect failed"));
    await expect(metrics.render("gzip")).rejects.toThrow("collect failed");
    for (const coding of ["identity", "gzip"] as const) {
      const text = await metrics.render(coding);
      const plain = coding === "gzip" ? gunzipSync(text).toString() : text.toString();
      expect(valueOf(parseExposition(plain), METRICS.publishFailuresTotal.name)).toBe(0);
    }
    expect(spy).toHaveBeenCalledTimes(3);
  });
});

describe("the config reload timestamp", () => {
  it("reads the injectable clock", async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const metrics = new ExporterMetrics("test", undefined, clock);
    metrics.configLoaded(true);
    const values = parseExposition((await metrics.render("identity")).toString());
    expect(valueOf(values, METRICS.configLastReloadSuccessTimestamp.name, {})).toBe(1_700_000_000);
  });
});
