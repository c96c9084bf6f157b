import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spawnCli, startedUrl } from "./support/cli-process.js";
import { parseExposition, valueOf } from "./support/exposition.js";
import { FakeHorizon } from "./support/fake-horizon.js";
import { until } from "./support/wait.js";

const first = new FakeHorizon();
const second = new FakeHorizon();
let firstUrl: string;
let secondUrl: string;

beforeAll(async () => {
  first.addLedgers(5);
  second.addLedgers(5);
  [firstUrl, secondUrl] = await Promise.all([first.start(), second.start()]);
});
afterAll(async () => {
  await Promise.all([first.stop(), second.stop()]);
});

it("SIGHUP reloads the config file; a bad file keeps the old config; counters survive", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "she-reload-")), "config.yml");
  const target = (name: string, url: string) => `  - name: ${name}\n    url: ${url}\n`;
  writeFileSync(path, `poll_interval: 1s\ntargets:\n${target("one", firstUrl)}`);
  const { child, output, exited } = spawnCli([`--config.file=${path}`, "--web.listen-address=127.0.0.1:0"]);
  try {
    const url = await until("the start line", () => startedUrl(output()), { timeoutMs: 30_000 });
    const scrape = async () => parseExposition(await (await fetch(`${url}/metrics`)).text());
    await until("a few ledgers", async () => {
      first.addLedgers(1);
      const total = valueOf(await scrape(), "stellar_horizon_ledgers_total", { horizon: "one" });
      return total !== undefined && total >= 3 ? total : undefined;
    });
    expect(valueOf(await scrape(), "stellar_horizon_exporter_config_last_reload_successful")).toBe(1);

    writeFileSync(path, `poll_interval: 1s\ntargets:\n  - url: not a url\n`);
    child.kill("SIGHUP");
    // The log line and the gauge are both awaited: the child's log output may arrive after the gauge changes.
    await until("the rejected reload", async () =>
      valueOf(await scrape(), "stellar_horizon_exporter_config_last_reload_successful") === 0 &&
      output().includes("configuration reload rejected")
        ? true
        : undefined,
    );
    const before = valueOf(await scrape(), "stellar_horizon_ledgers_total", { horizon: "one" })!;

    writeFileSync(path, `poll_interval: 1s\ntargets:\n${target("one", firstUrl)}${target("two", secondUrl)}`);
    child.kill("SIGHUP");
    const values = await until("the second target", async () => {
      const series = await scrape();
      return valueOf(series, "stellar_horizon_up", { horizon: "two" }) === 1 ? series : undefined;
    });
    expect(valueOf(values, "stellar_horizon_exporter_config_last_reload_successful")).toBe(1);
    expect(valueOf(values, "stellar_horizon_ledgers_total", { horizon: "one" })).toBeGreaterThanOrEqual(before);

    writeFileSync(path, `poll_interval: 1s\ntargets:\n${target("two", secondUrl)}`);
    child.kill("SIGHUP");
    // Each job's series leave as that job stops (a poll in flight is awaited first), the exporter's own ones last.
    await until("every series of the first target to leave", async () =>
      (await (await fetch(`${url}/metrics`)).text()).includes('horizon="one"') ? undefined : true,
    );
  } finally {
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }
}, 90_000);

/** Whether the process has a handler for SIGHUP (signal 1: bit 0 of SigCgt in /proc/PID/status). */
function catchesHangup(pid: number): true | undefined {
  const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return caught !== undefined && (BigInt(`0x${caught}`) & 1n) === 1n ? true : undefined;
}

it("a SIGHUP while it starts is held for the reload, one while it shuts down is ignored: exit 0", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "she-reload-")), "config.yml");
  writeFileSync(path, `poll_interval: 1h\ntargets:\n  - url: ${firstUrl}\n`);
  const { child, output, exited } = spawnCli([`--config.file=${path}`, "--web.listen-address=127.0.0.1:0"]);
  try {
    await until("a SIGHUP handler", () => catchesHangup(child.pid!), { timeoutMs: 30_000, intervalMs: 1 });
    child.kill("SIGHUP");
    await until("the start line", () => startedUrl(output()), { timeoutMs: 30_000 });
    await until("the held reload", () => (output().includes("configuration reloaded") ? true : undefined));
  } finally {
    child.kill("SIGTERM");
    await new Promise((done) => setTimeout(done, 1));
    child.kill("SIGHUP");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  }
}, 60_000);
