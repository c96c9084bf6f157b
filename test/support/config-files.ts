import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type ExporterConfig } from "../../src/config/config.js";

/** Writes a config file in a fresh temporary directory; returns its path. */
export function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "she-config-")), "config.yml");
  writeFileSync(path, text);
  return path;
}

/** The configuration flags and environment give; throws when they are refused. */
export async function runConfig(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ExporterConfig> {
  const command = await loadConfig(argv, env);
  if (command.kind !== "run") throw new Error(JSON.stringify(command));
  return command.config;
}

/** The problems flags and environment are refused for; throws when they are accepted. */
export async function problems(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const command = await loadConfig(argv, env);
  if (command.kind !== "invalid") throw new Error(`expected invalid, got ${command.kind}`);
  return command.problems;
}
