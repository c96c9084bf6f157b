import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { HorizonClient } from "../src/client/horizon-client.js";
import { systemClock } from "../src/clock.js";
import { loadConfig } from "../src/config/config.js";
import { corridorsScheduleText } from "../src/config/corridors.js";
import { HORIZON_JOBS } from "../src/runtime/horizon.js";
import { jobsOf } from "../src/runtime/runtime.js";
import { NetworkView } from "../src/job/network.js";
import { plannedRequestsPerHour } from "../src/scheduler/request-plan.js";
import { USDC } from "../src/simulator/index.js";
import { problems, runConfig, writeConfig } from "./support/config-files.js";

const CORRIDORS = `    corridors:
      - name: usdc-to-xlm
        mode: strict_send
        source: "${USDC}"
        destination: native
        amount: 100
        min_rate: 8.5
      - name: xlm-for-usdc
        mode: strict_receive
        source: native
        destination: "${USDC}"
        amount: "0.5"
`;

function file(extra = "", targetExtra = ""): string {
  return writeConfig(`targets:\n  - url: http://x:1\n${targetExtra}${CORRIDORS}${extra}`);
}

describe("corridors in the config file", () => {
  it("reads each corridor, runs them every minute by default, and plans one request per corridor per run", async () => {
    const config = await runConfig([`--config.file=${file()}`]);
    const [target] = config.targets;
    expect(target?.corridors).toEqual([
      { name: "usdc-to-xlm", mode: "strict_send", source: USDC, destination: "native", amount: "100", minRate: 8.5 },
      { name: "xlm-for-usdc", mode: "strict_receive", source: "native", destination: USDC, amount: "0.5" },
    ]);
    expect(target?.schedules.corridors.periodMs).toBe(60_000);
    const without = await runConfig(["--horizon.url=http://x:1"]);
    // Two corridors, 60 runs an hour: 120 more requests than the same target without them.
    expect(plannedRequestsPerHour(target!, config) - plannedRequestsPerHour(without.targets[0]!, without)).toBe(120);
  });

  it("takes schedules.corridors from the file or the target, at least 15s", async () => {
    const fromFile = await runConfig([`--config.file=${file("schedules: { corridors: 30s }\n")}`]);
    expect(fromFile.targets[0]?.schedules.corridors.periodMs).toBe(30_000);
    const fromTarget = await runConfig([`--config.file=${file("", "    schedules: { corridors: 2m }\n")}`]);
    expect(fromTarget.targets[0]?.schedules.corridors.periodMs).toBe(120_000);
    const tooOften = file("schedules: { corridors: 10s }\n");
    expect(await problems([`--config.file=${tooOften}`])).toEqual([
      `${tooOften}:15: schedules.corridors: "10s" runs corridors more often than every 15s; path finding is expensive for the Horizon`,
    ]);
    const targetTooOften = file("", "    schedules: { corridors: 5s }\n");
    expect((await problems([`--config.file=${targetTooOften}`]))[0]).toContain(
      'targets[0].schedules.corridors: "5s" runs corridors more often than every 15s',
    );
  });

  it("refuses a cron pattern running corridors under 15s apart anywhere in its minute, whatever second it is read", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const verdicts = (pattern: string) =>
        new Set(
          Array.from({ length: 60 }, (_, second) => {
            vi.setSystemTime(new Date(Date.UTC(2026, 0, 1, 0, 0, second, 500)));
            return corridorsScheduleText.safeParse(pattern).success;
          }),
        );
      // Seconds 0 and 5: read at second 2, the next two runs are 55 s apart; any minute holds two runs 5 s apart.
      expect(verdicts("0,5 * * * * *")).toEqual(new Set([false]));
      // Seconds 0 and 50: 10 s apart across the minute.
      expect(verdicts("0,50 * * * * *")).toEqual(new Set([false]));
      expect(verdicts("0,30 * * * * *")).toEqual(new Set([true]));
      expect(verdicts("*/15 * * * * *")).toEqual(new Set([true]));
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves corridors at 15s under a shorter --poll.interval, and follows a longer one", async () => {
    const short = await runConfig([`--config.file=${file()}`, "--poll.interval=5s"]);
    expect(short.targets[0]?.schedules.corridors.periodMs).toBe(15_000);
    expect(short.targets[0]?.corridorsRaisedFrom).toBe("5s");
    const long = await runConfig([`--config.file=${file()}`, "--poll.interval=2m"]);
    expect(long.targets[0]?.schedules.corridors.periodMs).toBe(120_000);
    expect(long.targets[0]?.corridorsRaisedFrom).toBeUndefined();
  });

  it.each([
    ["a mode of its own", "mode: fast", "expected strict_send or strict_receive"],
    ["an asset that is no asset", 'source: "USDC"', "expected `native` or CODE:ISSUER"],
    ["an amount of eight decimals", 'amount: "0.00000001"', "at most 7 decimals"],
    ["a negative amount", "amount: -5", "positive amount"],
    ["a rate of zero", "min_rate: 0", "expected a rate above 0"],
    ["an unknown key", "rate: 1", "corridors[0].rate: unknown key"],
  ])("refuses %s with one clear line", async (_what, line, message) => {
    const entry = `      - name: bad\n        mode: strict_send\n        source: native\n        destination: "${USDC}"\n        amount: 1\n`;
    const [key] = line.split(":");
    const lines = entry.split("\n").filter((each) => !each.trim().startsWith(`${key}:`) || key === "rate");
    const path = writeConfig(`targets:\n  - url: http://x:1\n    corridors:\n${lines.join("\n")}        ${line}\n`);
    const found = await problems([`--config.file=${path}`]);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });

  it("takes an amount written as a YAML number exactly, or asks to quote one a float64 cannot hold", async () => {
    const amountOf = async (amount: string) => {
      const entry = `      - { name: c, mode: strict_send, source: native, destination: "${USDC}", amount: ${amount} }\n`;
      const command = await loadConfig(
        [`--config.file=${writeConfig(`targets:\n  - url: http://x:1\n    corridors:\n${entry}`)}`],
        {},
      );
      if (command.kind === "run") return command.config.targets[0]?.corridors?.[0]?.amount;
      return command.kind === "invalid" ? command.problems : command.kind;
    };
    // String() wrote one stroop as 1e-7, refused, and sent 123456789012.1234567 as 123456789012.12346.
    expect(await amountOf("0.0000001")).toBe("0.0000001");
    expect(await amountOf("99999999.9999999")).toBe("99999999.9999999");
    expect(await amountOf("0.5")).toBe("0.5");
    expect(await amountOf("100")).toBe("100");
    expect(await amountOf("123456789012")).toBe("123456789012");
    expect(await amountOf('"123456789012.1234567"')).toBe("123456789012.1234567");
    const quote = 'write the amount as a quoted string, e.g. "0.0000001"';
    for (const amount of ["123456789012.1234567", "100000000.5", "1e21"]) {
      const found = await amountOf(amount);
      expect(found, amount).toHaveLength(1);
      expect((found as string[])[0], amount).toContain(`targets[0].corridors[0].amount: `);
      expect((found as string[])[0], amount).toContain(quote);
    }
    for (const amount of ["0.00000001", "1e-8", "-0.5", "0"])
      expect(await amountOf(amount), amount).toEqual([expect.stringContaining("at most 7 decimals")]);
  });

  it("refuses a name used twice, and a corridor from an asset to itself", async () => {
    const twice = writeConfig(
      `targets:\n  - url: http://x:1\n${CORRIDORS}${CORRIDORS.split("\n").slice(1, 7).join("\n")}\n`,
    );
    const found = await problems([`--config.file=${twice}`]);
    expect(found).toEqual([
      `${twice}: targets[0].corridors: corridor name "usdc-to-xlm" is used twice (each is a \`corridor\` label)`,
    ]);
    const itself = writeConfig(
      `targets:\n  - url: http://x:1\n    corridors:\n      - { name: a, mode: strict_send, source: native, destination: native, amount: 1 }\n`,
    );
    expect((await problems([`--config.file=${itself}`]))[0]).toContain("source and destination are the same asset");
  });

  it("says once, when the job is made, that --poll.interval was raised to 15s; shard 0 alone probes", async () => {
    const config = await runConfig([`--config.file=${file()}`, "--poll.interval=5s"]);
    const target = config.targets[0]!;
    const lines: { msg: string; pollInterval?: string }[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const parts = {
      target,
      config,
      client: new HorizonClient({ url: "http://x:1", timeoutMs: 1000, retries: 0, maxBodyBytes: 1024 }),
      network: new NetworkView(),
      log,
      clock: systemClock,
    };
    const corridors = jobsOf(HORIZON_JOBS, target, config).find(({ entry }) => entry.source === "corridors");
    expect(lines).toEqual([]);
    const job = corridors!.entry.create(parts);
    expect(job).toMatchObject({ role: "poll", source: "corridors", requestsPerRun: 2 });
    expect(job.schedule.periodMs).toBe(15_000);
    expect(lines).toEqual([expect.objectContaining({ pollInterval: "5s" })]);
    expect(lines[0]?.msg).toContain("corridors run every 15s");
    // Listing the jobs again (a reload that keeps the job) builds none: nothing more is said.
    jobsOf(HORIZON_JOBS, target, config);
    expect(lines).toHaveLength(1);
    const shard1 = await runConfig([`--config.file=${file()}`, "--shard=1/2"]);
    expect(jobsOf(HORIZON_JOBS, shard1.targets[0]!, shard1).some(({ entry }) => entry.source === "corridors")).toBe(
      false,
    );
  });
});
