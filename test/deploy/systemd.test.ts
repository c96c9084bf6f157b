import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMAND_LINE_FLAGS, NODE_ENVIRONMENT, NODE_OPTIONS_FLAGS } from "../../scripts/node-memory.js";
import { loadConfig } from "../../src/config/config.js";
import { REPO_ROOT } from "../../scripts/dashboards/paths.js";

const UNIT_DIR = path.join(REPO_ROOT, "deploy/systemd");
const UNIT_FILE = path.join(UNIT_DIR, "stellar-horizon-exporter.service");
const UNIT = readFileSync(UNIT_FILE, "utf8");
/** Where the unit expects the config file; deploy/systemd/config.yml is the example copied there. */
const INSTALLED_CONFIG = "/etc/stellar-horizon-exporter/config.yml";

/** The unit's `Key=value` lines of one section. */
function section(name: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  let current = "";
  for (const line of UNIT.split("\n")) {
    const header = /^\[(.+)\]$/.exec(line)?.[1];
    if (header !== undefined) current = header;
    const entry = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (current === name && entry) entries.set(entry[1]!, [...(entries.get(entry[1]!) ?? []), entry[2]!]);
  }
  return entries;
}

const service = section("Service");
const execStart = service.get("ExecStart")?.[0]?.split(/\s+/) ?? [];

describe("deploy/systemd/stellar-horizon-exporter.service", () => {
  it("starts the installed bin with flags the exporter accepts, reading the shipped example config", async () => {
    // NODE_OPTIONS refuses the command-line flags: node is started with them, running the bin.
    const bin = 2 + COMMAND_LINE_FLAGS.length;
    expect(execStart.slice(0, bin + 1)).toEqual([
      "/usr/bin/env",
      "node",
      ...COMMAND_LINE_FLAGS,
      "/usr/local/bin/stellar-horizon-exporter",
    ]);
    const args = execStart
      .slice(bin + 1)
      .map((arg) => arg.replace(INSTALLED_CONFIG, path.join(UNIT_DIR, "config.yml")));
    expect(args).toContain(`--config.file=${path.join(UNIT_DIR, "config.yml")}`);
    const command = await loadConfig(args, {});
    expect(command.kind === "invalid" ? command.problems : []).toEqual([]);
    expect(command.kind).toBe("run");
  });

  it("runs unprivileged with node's memory settings, reloads with SIGHUP and does not restart on a config error", () => {
    expect(service.get("User")).toEqual(["stellar-horizon-exporter"]);
    expect(service.get("Environment")).toEqual([
      [...Object.entries(NODE_ENVIRONMENT), ["NODE_OPTIONS", NODE_OPTIONS_FLAGS.join(" ")]]
        .map(([name, value]) => `${name}=${value}`)
        .join(" "),
    ]);
    expect(service.get("ExecReload")).toEqual(["/bin/kill -HUP $MAINPID"]);
    expect(service.get("Restart")).toEqual(["on-failure"]);
    // Exit code 2 is the exporter's "invalid configuration".
    expect(service.get("RestartPreventExitStatus")).toEqual(["2"]);
    expect(service.get("MemoryDenyWriteExecute")).toBeUndefined();
    expect(section("Install").get("WantedBy")).toEqual(["multi-user.target"]);
  });

  const analyze = spawnSync("systemd-analyze", ["--version"]).status === 0;
  it.skipIf(!analyze)("passes systemd-analyze verify", () => {
    // verify also checks that ExecStart's program exists: this machine has node, not the installed bin.
    const directory = mkdtempSync(path.join(tmpdir(), "systemd-unit-"));
    try {
      const unit = path.join(directory, "stellar-horizon-exporter.service");
      writeFileSync(unit, UNIT.replace(execStart[0]!, process.execPath));
      const result = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
