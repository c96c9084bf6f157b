import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { METRICS, RPC_METRICS, type MetricDefinition } from "../src/catalog/metrics.js";
import { ExporterMetrics, OwnRegistry } from "../src/exposition/self-metrics.js";
import { parseExposition, valueOf } from "./support/exposition.js";

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

async function rendered(registry: OwnRegistry) {
  const texts = await registry.render();
  return { plain: texts.map((text) => text.in("identity")), gzip: texts.map((text) => text.in("gzip")) };
}

describe("the own registry", () => {
  function filled() {
    const registry = new OwnRegistry();
    const requests = registry.counter(REQUESTS);
    const queue = registry.gauge(QUEUE);
    const duration = registry.histogram(DURATION);
    requests.inc({ horizon: "a", code: "200" }, 3);
    queue.set(2);
    duration.observe(0.5);
    return { registry, requests, queue, duration };
  }

  it("renders each family once, in the order the metrics were made, in both codings", async () => {
    const { registry } = filled();
    const first = await rendered(registry);
    expect(Buffer.concat(first.plain).toString()).toBe(
      [
        "# HELP own_requests_total Requests.",
        "# TYPE own_requests_total counter",
        'own_requests_total{horizon="a",code="200"} 3',
        "# HELP own_queue Queue.",
        "# TYPE own_queue gauge",
        "own_queue 2",
        "# HELP own_duration_seconds Duration.",
        "# TYPE own_duration_seconds histogram",
        'own_duration_seconds_bucket{le="1"} 1',
        'own_duration_seconds_bucket{le="+Inf"} 1',
        "own_duration_seconds_sum 0.5",
        "own_duration_seconds_count 1",
        "",
      ].join("\n"),
    );
    expect(gunzipSync(Buffer.concat(first.gzip)).equals(Buffer.concat(first.plain))).toBe(true);
    const again = await rendered(registry);
    for (const coding of ["plain", "gzip"] as const) {
      again[coding].forEach((buffer, index) => expect(buffer).toBe(first[coding][index]));
    }
  });

  it("renders again only the family a call changed, however the call reached it", async () => {
    const { registry, requests, queue, duration } = filled();
    const changes: [string, () => void, string][] = [
      ["inc", () => requests.inc({ horizon: "a", code: "200" }), 'own_requests_total{horizon="a",code="200"} 4'],
      [
        "labels().inc",
        () => requests.labels({ horizon: "a", code: "500" }).inc(),
        'own_requests_total{horizon="a",code="500"} 1',
      ],
      ["set", () => queue.set(7), "own_queue 7"],
      ["a gauge's timer", () => queue.startTimer()(), "own_queue 0"],
      ["a histogram's timer", () => duration.startTimer()(), "own_duration_seconds_count 2"],
      [
        "remove",
        () => requests.remove({ horizon: "a", code: "500" }),
        'own_requests_total{horizon="a",code="200"} 4\n',
      ],
    ];
    for (const [how, change, line] of changes) {
      const before = await rendered(registry);
      change();
      const after = await rendered(registry);
      const changed = after.plain.flatMap((buffer, index) =>
        buffer === before.plain[index] ? [] : [buffer.toString()],
      );
      expect(changed, how).toHaveLength(1);
      expect(changed[0], how).toContain(line);
      expect(gunzipSync(Buffer.concat(after.gzip)).equals(Buffer.concat(after.plain)), how).toBe(true);
    }
  });

  it("shows at the next scrape a change made while a family renders", async () => {
    const { registry, queue } = filled();
    queue.set(3);
    const rendering = registry.render();
    queue.set(4);
    await rendering;
    expect(Buffer.concat((await rendered(registry)).plain).toString()).toContain("own_queue 4\n");
  });

  it("hands out the same list while nothing changed, and a new one after a change or a new metric", async () => {
    const { registry, queue } = filled();
    const first = await registry.render();
    expect(await registry.render()).toBe(first);
    queue.set(6);
    const afterChange = await registry.render();
    expect(afterChange).not.toBe(first);
    expect(Buffer.concat(afterChange.map((text) => text.in("identity"))).toString()).toContain("own_queue 6\n");
    registry.gauge({ ...QUEUE, name: "own_other" });
    const afterNew = await registry.render();
    expect(afterNew).toHaveLength(afterChange.length + 1);
  });

  it("hands scrapes that overlap the same rendering", async () => {
    const { registry, queue } = filled();
    queue.set(5);
    const [first, second] = await Promise.all([registry.render(), registry.render()]);
    first.forEach((text, index) => expect(text).toBe(second[index]));
  });
});

describe("the exporter's own metrics", () => {
  it("are current at every render, process metrics included, gzip decoding to the plain text", async () => {
    const metrics = new ExporterMetrics("1.2.3");
    metrics.horizon.addTarget("a");
    metrics.horizon.requestPlan("a", 120, 3600);
    const before = parseExposition(Buffer.concat(await metrics.render("identity")).toString());
    expect(
      valueOf(before, `${METRICS.pollDuration.name}_count`, { horizon: "a", endpoint: "ledgers" }),
    ).toBeUndefined();
    metrics.horizon.pollSucceeded("a", "ledgers", 0.25, Date.now());
    metrics.horizon.observerFor("a").onRequest("ledgers", "200", 0.1);
    metrics.rpc.pollSucceeded("a", "status", 0.5, Date.now());

    const plain = Buffer.concat(await metrics.render("identity"));
    const gzip = Buffer.concat(await metrics.render("gzip"));
    expect(gunzipSync(gzip).equals(plain)).toBe(true);
    const series = parseExposition(plain.toString());
    expect(valueOf(series, `${METRICS.pollDuration.name}_count`, { horizon: "a", endpoint: "ledgers" })).toBe(1);
    expect(valueOf(series, METRICS.requestsTotal.name, { horizon: "a", endpoint: "ledgers", code: "200" })).toBe(1);
    expect(valueOf(series, METRICS.plannedRequestsPerHour.name, { horizon: "a" })).toBe(120);
    // One implementation for both kinds: a Stellar RPC's polls land in its own series, under its own label.
    expect(valueOf(series, `${RPC_METRICS.pollDuration.name}_count`, { rpc: "a", endpoint: "status" })).toBe(1);
    expect(valueOf(series, `${METRICS.pollDuration.name}_count`, { horizon: "a", endpoint: "status" })).toBeUndefined();
    expect(valueOf(series, METRICS.publishFailuresTotal.name)).toBe(0);
    expect(valueOf(series, METRICS.buildInfo.name, { version: "1.2.3", node_version: process.version })).toBe(1);
    expect(valueOf(series, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(plain.toString()).not.toContain("nodejs_active_handles_total");
  });
});
