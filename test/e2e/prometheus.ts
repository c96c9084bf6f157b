import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { requireBinary } from "../alerts/tools.js";
import { until } from "../support/wait.js";

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface RunningPrometheus {
  readonly url: string;
  /** Evaluates an instant query now. */
  query(expr: string): Promise<Sample[]>;
  /** Label sets of the series `expr` returned at any evaluation step from `startSeconds` until now. */
  seriesSince(expr: string, startSeconds: number, stepSeconds: number): Promise<Readonly<Record<string, string>>[]>;
  /** Every stored sample of `selector` in the last `seconds`, with its timestamp in milliseconds. */
  rawSamples(
    selector: string,
    seconds: number,
  ): Promise<{ metric: Readonly<Record<string, string>>; atMs: number; value: number }[]>;
  /** What Prometheus printed, for failure messages. */
  log(): string;
  close(): Promise<void>;
}

export interface PrometheusOptions {
  readonly jobName: string;
  /** host:port of the scrape target. */
  readonly target: string;
  readonly ruleFiles: readonly string[];
  /** Scrape and rule evaluation interval. */
  readonly intervalSeconds: number;
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

async function api<T>(
  url: string,
  endpoint: string,
  parameters: Record<string, string>,
  resultType: string,
): Promise<T[]> {
  const response = await fetch(`${url}/api/v1/${endpoint}?${new URLSearchParams(parameters)}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data?: { resultType: string; result: T[] };
  };
  if (body.status !== "success" || body.data?.resultType !== resultType) {
    throw new Error(`${endpoint} failed: ${parameters.query}: ${body.error ?? JSON.stringify(body.data?.resultType)}`);
  }
  return body.data.result;
}

/** Prometheus refuses a range query of more than 11,000 points per series. */
const MAX_RANGE_POINTS = 11_000;

/**
 * The step of a range query from `start` to `end`: `step`, or the finest that keeps within
 * Prometheus's points limit (a coarser step can miss a briefly true expression: keep ranges short).
 */
export function rangeStep(start: number, end: number, step: number): number {
  return Math.max(step, Math.ceil((end - start) / (MAX_RANGE_POINTS - 1)));
}

/** Debian's Prometheus on a free loopback port, with a temporary config and data directory. */
export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  const binary = requireBinary("prometheus");
  const directory = await mkdtemp(path.join(tmpdir(), "stellar-horizon-e2e-prometheus-"));
  const interval = `${options.intervalSeconds}s`;
  const configFile = path.join(directory, "prometheus.yml");
  await writeFile(
    configFile,
    stringify({
      global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
      rule_files: options.ruleFiles,
      scrape_configs: [{ job_name: options.jobName, static_configs: [{ targets: [options.target] }] }],
    }),
  );
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(directory, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));

  const close = async () => {
    child.kill("SIGTERM");
    await exited(child);
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await until(
      () => `prometheus ready at ${url}:\n${output}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
        const ready = await fetch(`${url}/-/ready`).then(
          (response) => response.ok,
          () => false,
        );
        return ready ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  } catch (error) {
    await close();
    throw error;
  }

  return {
    url,
    log: () => output,
    close,
    async query(expr) {
      const result = await api<{ metric: Record<string, string>; value: [number, string] }>(
        url,
        "query",
        { query: expr },
        "vector",
      );
      return result.map((sample) => ({ metric: sample.metric, value: Number(sample.value[1]) }));
    },
    async rawSamples(selector, seconds) {
      const result = await api<{ metric: Record<string, string>; values: [number, string][] }>(
        url,
        "query",
        { query: `${selector}[${seconds}s]` },
        "matrix",
      );
      return result.flatMap((series) =>
        series.values.map(([atSeconds, value]) => ({
          metric: series.metric,
          atMs: Math.round(atSeconds * 1000),
          value: Number(value),
        })),
      );
    },
    async seriesSince(expr, startSeconds, stepSeconds) {
      const end = Date.now() / 1000;
      const parameters = {
        query: expr,
        start: String(startSeconds),
        end: String(end),
        step: String(rangeStep(startSeconds, end, stepSeconds)),
      };
      return (await api<{ metric: Record<string, string> }>(url, "query_range", parameters, "matrix")).map(
        (series) => series.metric,
      );
    },
  };
}
