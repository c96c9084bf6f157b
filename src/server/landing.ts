import { html } from "hono/html";
import type { EndpointStatus } from "../scheduler/endpoint-poller.js";

export interface LandingTarget {
  readonly name: string;
  /** With any credentials removed. */
  readonly url: string;
  readonly endpoints: readonly EndpointStatus[];
}

function when(ms: number | undefined, nowMs: number) {
  if (ms === undefined) return "never";
  const seconds = Math.max(0, Math.round((nowMs - ms) / 1000));
  return `${new Date(ms).toISOString()} (${seconds} s ago)`;
}

function endpointRow(status: EndpointStatus, nowMs: number) {
  const failing = status.lastError !== undefined && (status.lastSuccessMs ?? 0) < status.lastError.atMs;
  return html`<tr class="${failing ? "failing" : status.lastSuccessMs ? "ok" : "pending"}">
    <td>${status.endpoint}</td>
    <td>${status.schedule}</td>
    <td>${status.polls}${status.runningSinceMs === undefined ? "" : ` (running for ${Math.max(0, Math.round((nowMs - status.runningSinceMs) / 1000))} s)`}</td>
    <td>${when(status.lastSuccessMs, nowMs)}</td>
    <td>${status.lastError ? html`${status.lastError.reason}: ${status.lastError.message} — ${when(status.lastError.atMs, nowMs)}` : "none"}</td>
  </tr>`;
}

/** Everything interpolated goes through hono's html tag, which escapes it: target names are operator input. */
export function landingPage(version: string, targets: readonly LandingTarget[], nowMs: number) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Stellar Horizon Exporter</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 2rem; color: #1d2330; }
  table { border-collapse: collapse; margin-bottom: 1.5rem; }
  th, td { border: 1px solid #ccd; padding: 0.3rem 0.6rem; text-align: left; font-size: 0.9rem; }
  th { background: #eef; }
  tr.ok td:first-child { border-left: 4px solid #2a2; }
  tr.failing td:first-child { border-left: 4px solid #c22; }
  tr.pending td:first-child { border-left: 4px solid #aa2; }
  code { background: #f4f4f8; padding: 0 0.2rem; }
</style>
</head>
<body>
<h1>Stellar Horizon Exporter</h1>
<p>Version <code>${version}</code>. Prometheus exporter for Stellar's Horizon API.</p>
<ul>
  <li><a href="metrics">/metrics</a>: metrics in the Prometheus text format</li>
  <li><a href="healthz">/healthz</a>: liveness</li>
  <li><a href="readyz">/readyz</a>: ready once every target has been polled once</li>
</ul>
${targets.map(
  (target) => html`<h2>${target.name}</h2>
<p><code>${target.url}</code></p>
<table>
  <tr><th>Endpoint</th><th>Schedule</th><th>Polls</th><th>Last success</th><th>Last error</th></tr>
  ${target.endpoints.map((status) => endpointRow(status, nowMs))}
</table>`,
)}
</body>
</html>`;
}
