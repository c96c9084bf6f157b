import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import * as units from "@grafana/grafana-foundation-sdk/units";
import { METRICS } from "../../src/catalog/metrics.js";
import {
  UP_DOWN_MAPPINGS,
  columns,
  dashboard,
  histogramQuantile,
  select,
  statPanel,
  sumRate,
  tablePanel,
  timeseriesPanel,
} from "./common.js";

/** The exporter's own health: is it scraped, what it asks Horizon, what fails and how much rate limit is left. */
export function exporterDashboard(): Dashboard {
  return dashboard({
    uid: "stellar-horizon-exporter",
    title: "Stellar Horizon / Exporter",
    description:
      "The exporter itself: scrape health, requests to Horizon, poll errors by reason, poll durations and rate-limit headroom.",
    time: { from: "now-1h", to: "now" },
    rows: [
      {
        title: "Exporter",
        panels: [
          statPanel({
            title: "Exporter up",
            description: "Whether Prometheus can scrape each exporter instance (up).",
            unit: units.NoUnit,
            width: 6,
            mappings: UP_DOWN_MAPPINGS,
            queries: [{ expr: 'up{job=~"$job"}', legend: "{{instance}}" }],
          }),
          tablePanel({
            title: "Build",
            description: "Exporter and Node.js version of each exporter instance.",
            unit: units.String,
            width: 6,
            queries: [{ expr: select(METRICS.buildInfo) }],
            transformations: [columns({ instance: "Instance", version: "Version", node_version: "Node.js" })],
          }),
          timeseriesPanel({
            title: "Resident memory",
            description: "Resident memory of each exporter process.",
            unit: units.BytesIEC,
            width: 6,
            min: 0,
            queries: [{ expr: 'process_resident_memory_bytes{job=~"$job"}', legend: "{{instance}}" }],
          }),
          timeseriesPanel({
            title: "CPU",
            description: "CPU time each exporter process uses per second (1 = one full core).",
            unit: units.PercentUnit,
            width: 6,
            min: 0,
            queries: [
              { expr: 'rate(process_cpu_seconds_total{job=~"$job"}[$__rate_interval])', legend: "{{instance}}" },
            ],
          }),
        ],
      },
      {
        title: "Requests",
        panels: [
          timeseriesPanel({
            title: "Requests by status code",
            description:
              'HTTP requests the exporter sends to Horizon, by endpoint and status code; code "429" is rate limiting, "error" means no response arrived.',
            unit: units.RequestsPerSecond,
            width: 12,
            min: 0,
            queries: [
              {
                expr: sumRate(METRICS.requestsTotal, ["horizon", "endpoint", "code"]),
                legend: "{{horizon}} {{endpoint}} {{code}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Request duration p90",
            description: "90th percentile duration of requests to Horizon, body read included, by endpoint.",
            unit: units.Seconds,
            width: 12,
            min: 0,
            queries: [
              {
                expr: histogramQuantile(0.9, METRICS.requestDuration, ["horizon", "endpoint"]),
                legend: "{{horizon}} {{endpoint}}",
              },
            ],
          }),
        ],
      },
      {
        title: "Polls",
        panels: [
          timeseriesPanel({
            title: "Poll errors by reason",
            description:
              "Failed polls per second by reason (timeout, network, rate_limited, http_4xx, http_5xx, invalid_json, schema, ...). See the runbook for each reason.",
            unit: units.OpsPerSecond,
            width: 12,
            min: 0,
            queries: [
              { expr: sumRate(METRICS.pollErrorsTotal, ["horizon", "reason"]), legend: "{{horizon}} {{reason}}" },
            ],
          }),
          timeseriesPanel({
            title: "Poll duration",
            description:
              "Median and 99th percentile duration of a whole poll of an endpoint, retries and paging included.",
            unit: units.Seconds,
            width: 12,
            min: 0,
            queries: [
              {
                expr: histogramQuantile(0.5, METRICS.pollDuration, ["horizon", "endpoint"]),
                legend: "{{horizon}} {{endpoint}} p50",
              },
              {
                expr: histogramQuantile(0.99, METRICS.pollDuration, ["horizon", "endpoint"]),
                legend: "{{horizon}} {{endpoint}} p99",
              },
            ],
          }),
          timeseriesPanel({
            title: "Time since last successful poll",
            description: "Age of each endpoint's data; past 3 poll intervals the endpoint's gauges leave /metrics.",
            unit: units.Seconds,
            width: 12,
            min: 0,
            queries: [{ expr: `time() - ${select(METRICS.lastSuccessTimestamp)}`, legend: "{{horizon}} {{endpoint}}" }],
          }),
          timeseriesPanel({
            title: "Invalid records",
            description:
              "Records per second left out because they failed schema validation; any at all means Horizon's API changed.",
            unit: units.OpsPerSecond,
            width: 12,
            min: 0,
            queries: [
              {
                expr: sumRate(METRICS.invalidRecordsTotal, ["horizon", "endpoint"]),
                legend: "{{horizon}} {{endpoint}}",
              },
            ],
          }),
        ],
      },
      {
        title: "Rate limit",
        panels: [
          timeseriesPanel({
            title: "Rate-limit headroom",
            description:
              "Share of Horizon's rate-limit window still available (X-Ratelimit-Remaining / X-Ratelimit-Limit).",
            unit: units.PercentUnit,
            width: 12,
            min: 0,
            max: 1,
            queries: [
              {
                expr: `${select(METRICS.rateLimitRemaining)} / ${select(METRICS.rateLimitLimit)}`,
                legend: "{{horizon}}",
              },
            ],
          }),
          timeseriesPanel({
            title: "Rate-limit window reset",
            description: "Seconds until Horizon's rate-limit window resets (X-Ratelimit-Reset).",
            unit: units.Seconds,
            width: 12,
            min: 0,
            queries: [{ expr: select(METRICS.rateLimitReset), legend: "{{horizon}}" }],
          }),
        ],
      },
    ],
  });
}
