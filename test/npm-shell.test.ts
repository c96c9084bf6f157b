/**
 * How a process started through npm's `sh -c` tells that the shell was signalled: the shell wakes
 * (one more voluntary context switch) and this process was neither stopped nor continued meanwhile.
 */
import { describe, expect, it } from "vitest";
import { isDeferringShell, sampleShell, ShellSignalJudge, type ShellSample } from "../src/cli/npm-shell.js";

const INTERVAL_MS = 500;
const look = (sleeps: number, atMs: number, onlyChild = true): ShellSample => ({
  sleeps,
  onlyChild,
  monotonicMs: atMs,
  wallMs: 1_800_000_000_000 + atMs,
});

/** A /proc holding `files`; any other path is missing, as on a system without /proc. */
const proc = (files: Record<string, string>) => (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  return text;
};

const status = (sigCgt: string, switches = 2) =>
  `Name:\tsh\nSigCgt:\t${sigCgt}\nvoluntary_ctxt_switches:\t${switches}\nnonvoluntary_ctxt_switches:\t1\n`;

describe("isDeferringShell", () => {
  it("is true for a `sh -c` that catches SIGINT and SIGCHLD (dash's 0000000000010002)", () => {
    const read = proc({
      "/proc/7/cmdline": "sh\0-c\0'stellar-horizon-exporter' simulate\0",
      "/proc/7/status": status("0000000000010002"),
    });
    expect(isDeferringShell(7, read)).toBe(true);
  });

  it("is false for a shell that leaves SIGINT at its default: SIGINT ends it, and its exit is noticed", () => {
    const read = proc({ "/proc/7/cmdline": "sh\0-c\0x\0", "/proc/7/status": status("0000000000010000") });
    expect(isDeferringShell(7, read)).toBe(false);
  });

  it("is false for npm itself, which forwards signals to its child", () => {
    const read = proc({ "/proc/7/cmdline": "npm run demo\0", "/proc/7/status": status("0000000188014a03") });
    expect(isDeferringShell(7, read)).toBe(false);
  });

  it("is false without /proc", () => {
    expect(isDeferringShell(7, proc({}))).toBe(false);
  });
});

describe("sampleShell", () => {
  it("reads the shell's voluntary context switches and whether this process is its only child", () => {
    const alone = proc({ "/proc/7/status": status("2", 5), "/proc/7/task/7/children": "42 " });
    expect(sampleShell(7, 42, alone)).toMatchObject({ sleeps: 5, onlyChild: true });
    const withSibling = proc({ "/proc/7/status": status("2", 5), "/proc/7/task/7/children": "42 43 " });
    expect(sampleShell(7, 42, withSibling)).toMatchObject({ sleeps: 5, onlyChild: false });
  });

  it("takes this process as the only child where the kernel lists no children, and sees nothing without /proc", () => {
    expect(sampleShell(7, 42, proc({ "/proc/7/status": status("2", 3) }))).toMatchObject({
      sleeps: 3,
      onlyChild: true,
    });
    expect(sampleShell(7, 42, proc({}))).toBeUndefined();
  });
});

describe("ShellSignalJudge", () => {
  it("confirms a wake of the shell at the next look", () => {
    const judge = new ShellSignalJudge(look(2, 0), INTERVAL_MS);
    expect([judge.observe(look(2, 500)), judge.observe(look(3, 1_000)), judge.observe(look(3, 1_500))]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("does not count a wake when this process was continued since the wake's interval began, even after the look that saw it", () => {
    const judge = new ShellSignalJudge(look(2, 0), INTERVAL_MS);
    expect(judge.observe(look(3, 700))).toBe(false);
    judge.continued(720);
    expect([judge.observe(look(3, 1_200)), judge.observe(look(3, 1_700))]).toEqual([false, false]);
    // A later signal still counts.
    expect([judge.observe(look(4, 2_200)), judge.observe(look(4, 2_700))]).toEqual([false, true]);
  });

  it("does not count a wake seen by a look that came late: this process was stopped, frozen or suspended too", () => {
    const judge = new ShellSignalJudge(look(2, 0), INTERVAL_MS);
    expect([judge.observe(look(3, 2_001)), judge.observe(look(3, 2_501))]).toEqual([false, false]);
    const suspended = new ShellSignalJudge(look(2, 0), INTERVAL_MS);
    // The monotonic clock stands still in suspend; the wall clock moves on.
    const resumed: ShellSample = { sleeps: 3, onlyChild: true, monotonicMs: 500, wallMs: 1_800_000_000_000 + 60_000 };
    expect([
      suspended.observe(resumed),
      suspended.observe({ ...resumed, monotonicMs: 1_000, wallMs: resumed.wallMs + 500 }),
    ]).toEqual([false, false]);
  });

  it("does not count two wakes in one interval: a stop and continue of the shell alone (a freeze, a checkpoint) wakes it twice", () => {
    const judge = new ShellSignalJudge(look(2, 0), INTERVAL_MS);
    expect([judge.observe(look(4, 500)), judge.observe(look(4, 1_000))]).toEqual([false, false]);
    expect([judge.observe(look(5, 1_500)), judge.observe(look(5, 2_000))]).toEqual([false, true]);
  });

  it("does not count a wake while the shell has other children: their exits wake it", () => {
    const judge = new ShellSignalJudge(look(2, 0, false), INTERVAL_MS);
    expect([
      judge.observe(look(3, 500, false)),
      judge.observe(look(3, 1_000, false)),
      judge.observe(look(3, 1_500, true)),
    ]).toEqual([false, false, false]);
  });
});
