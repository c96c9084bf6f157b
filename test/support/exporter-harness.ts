import { pino } from "pino";
import { loadConfig, type ExporterConfig } from "../../src/config/config.js";
import { startExporter, type RunningExporter } from "../../src/exporter.js";
import { parseExposition } from "./exposition.js";

/** Parses real command-line flags into a config, as a user's invocation would. */
export async function configFrom(argv: string[]): Promise<ExporterConfig> {
  const command = await loadConfig(["--web.listen-address=127.0.0.1:0", "--log.level=fatal", ...argv], {});
  if (command.kind !== "run") throw new Error(`config rejected: ${JSON.stringify(command)}`);
  return command.config;
}

export interface Harness {
  exporter: RunningExporter;
  scrapeText(): Promise<string>;
  scrape(): Promise<Map<string, number>>;
}

/** Starts an exporter polling only when told (`pollAll`), so tests control every poll. */
export async function startHarness(config: ExporterConfig): Promise<Harness> {
  const exporter = await startExporter(config, { logger: pino({ level: "silent" }) });
  await exporter.firstPolls;
  const scrapeText = async () => {
    const response = await fetch(`${exporter.url}/metrics`);
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
    return response.text();
  };
  return { exporter, scrapeText, scrape: async () => parseExposition(await scrapeText()) };
}

/** Stops what a test started: the exporter first, so nothing polls a Horizon that is going away. */
export async function stopStarted(
  exporter: RunningExporter | undefined,
  ...horizons: ({ stop(): Promise<void> } | undefined)[]
): Promise<void> {
  await exporter?.close();
  await Promise.all(horizons.map((horizon) => horizon?.stop()));
}
