import { describe, expect, it, vi } from "vitest";
import { parseByteSize, parseDuration } from "../src/config/duration.js";
import { parseSchedule, type Schedule } from "../src/config/schedule.js";
import { expectExit, runCli } from "./support/cli-process.js";
import { problems, runConfig, writeConfig } from "./support/config-files.js";

describe("durations and schedules", () => {
  it("parses Prometheus-style durations and sizes", () => {
    expect(parseDuration("15s")).toBe(15_000);
    expect(parseDuration("1m30s")).toBe(90_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("15")).toBeUndefined();
    expect(parseDuration("1x")).toBeUndefined();
    expect(parseByteSize("8MiB")).toBe(8 * 1024 * 1024);
    expect(parseByteSize("512kB")).toBe(512_000);
    expect(parseByteSize("8 parsecs")).toBeUndefined();
  });

  it("accepts durations and croner patterns, with their period", () => {
    expect(parseSchedule("15s")).toMatchObject({ intervalSeconds: 15, periodMs: 15_000 });
    expect(parseSchedule("*/30 * * * * *")).toMatchObject({ pattern: "*/30 * * * * *", periodMs: 30_000 });
    expect(parseSchedule("*/5 * * * *")).toMatchObject({ periodMs: 300_000 });
    expect(parseSchedule("500ms")).toMatch(/whole number of seconds/);
    expect(parseSchedule("every minute")).toMatch(/neither a duration/);
  });

  it("gives an uneven cron pattern its longest gap as period, whenever it is read", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const periodAt = (time: string) => {
        vi.setSystemTime(new Date(`2026-01-01T${time}`));
        return (parseSchedule("0 0,10 * * * *") as Schedule).periodMs;
      };
      // Runs at :00 and :10: the data of a run at :10 must stay fresh until :00, 50 minutes on, at any stale_after.
      const periods = ["12:05:00", "12:15:00", "12:00:00", "12:59:59"].map(periodAt);
      expect(periods).toEqual(Array(4).fill(50 * 60_000));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("flags, environment and file", () => {
  it("names targets by host:port unless named, with defaults everywhere else", async () => {
    const config = await runConfig([
      "--horizon.url=https://horizon.stellar.org",
      "--horizon.url=test=http://127.0.0.1:8000/",
    ]);
    expect(config.targets.map((target) => target.name)).toEqual(["horizon.stellar.org", "test"]);
    expect(config.listen).toEqual({ host: "0.0.0.0", port: 9619 });
    expect(config.liquidityPools.max).toBe(200);
    expect(config.targets[0]!.schedules.ledgers).toMatchObject({ periodMs: 15_000 });
    expect(config.targets[0]!.timeoutMs).toBe(10_000);
    expect(config.maxBodyBytes).toBe(8 * 1024 * 1024);
  });

  it("takes every flag from its environment variable, and flags win", async () => {
    const env = {
      HORIZON_URL: "a=http://127.0.0.1:2,http://127.0.0.1:3",
      WEB_LISTEN_ADDRESS: "127.0.0.1:9999",
      POLL_INTERVAL: "1m",
      POOLS_MAX: "7",
      LOG_LEVEL: "debug",
    };
    const fromEnv = await runConfig([], env);
    expect(fromEnv.targets.map((target) => target.name)).toEqual(["a", "127.0.0.1:3"]);
    expect(fromEnv.listen).toEqual({ host: "127.0.0.1", port: 9999 });
    expect(fromEnv.targets[0]!.schedules.root.periodMs).toBe(60_000);
    expect(fromEnv.liquidityPools.max).toBe(7);
    expect(fromEnv.logLevel).toBe("debug");
    const flagsWin = await runConfig(["--pools.max", "9", "--horizon.url=b=http://127.0.0.1:3"], env);
    expect(flagsWin.liquidityPools.max).toBe(9);
    expect(flagsWin.targets.map((target) => target.name)).toEqual(["b"]);
  });

  it("reads a YAML file with targets, headers, timeouts, schedules, pools and freshness", async () => {
    const path = writeConfig(`
targets:
  - name: pubnet
    url: https://horizon.stellar.org
    headers: { X-Api-Key: secret }
    timeout: 3s
    schedules: { ledgers: 5s }
  - url: http://127.0.0.1:8000
poll_interval: 30s
schedules:
  liquidity_pools: "0 * * * * *"
http: { retries: 1, max_body_size: 1MiB }
ledgers: { max_pages_per_poll: 3, backfill: 10 }
liquidity_pools: { max: 50, reserves: [native] }
freshness: { stale_after_intervals: 5 }
web: { listen_address: "127.0.0.1:9100" }
log: { level: warn }
`);
    const config = await runConfig([`--config.file=${path}`]);
    const [pubnet, local] = config.targets;
    expect(pubnet).toMatchObject({ name: "pubnet", timeoutMs: 3_000 });
    expect(pubnet!.headers["X-Api-Key"]!.reveal()).toBe("secret");
    expect(pubnet!.schedules.ledgers.periodMs).toBe(5_000);
    expect(pubnet!.schedules.root.periodMs).toBe(30_000);
    expect(pubnet!.schedules.liquidity_pools.periodMs).toBe(60_000);
    expect(local!.name).toBe("127.0.0.1:8000");
    expect(local!.timeoutMs).toBe(10_000);
    expect(config).toMatchObject({
      retries: 1,
      maxBodyBytes: 1024 * 1024,
      ledgers: { maxPagesPerPoll: 3, backfill: 10 },
      liquidityPools: { max: 50, reserves: ["native"], ids: [] },
      staleAfterIntervals: 5,
      listen: { host: "127.0.0.1", port: 9100 },
      logLevel: "warn",
    });
    const overridden = await runConfig([`--config.file=${path}`, "--poll.interval=2m", "--pools.max=3"]);
    expect(overridden.targets[0]!.schedules.ledgers.periodMs).toBe(120_000);
    expect(overridden.liquidityPools.max).toBe(3);
  });

  it("reports every problem, one line each, without throwing", async () => {
    const path = writeConfig(`
targets:
  - url: ftp://example.com
    timeout: soon
  - url: https://ok.example.com
    colour: blue
poll_interval: 500ms
liquidity_pools: { reserves: [USD] }
`);
    const lines = await problems([`--config.file=${path}`]);
    expect(lines).toEqual([
      `${path}:3: targets[0].url: expected an http:// or https:// URL`,
      `${path}:4: targets[0].timeout: expected a duration such as 10s, 500ms or 1m, got "soon"`,
      `${path}:6: targets[1].colour: unknown key`,
      `${path}:7: poll_interval: "500ms" must be a whole number of seconds, at least 1s`,
      expect.stringMatching(
        new RegExp(`^${path}:8: liquidity_pools\\.reserves\\[0\\]: expected \`native\` or CODE:ISSUER`),
      ),
    ]);
    for (const line of lines) expect(line).not.toMatch(/\n|at .*\.ts:/);
  });

  it("rejects bad flags, unreadable files, bad YAML and duplicate names", async () => {
    expect(await problems(["--horizon.url=nope"])).toEqual([
      "--horizon.url: the value (not shown: it may hold a secret) is not a valid http:// or https:// URL",
    ]);
    expect(await problems(["--bogus"])).toEqual(["unknown flag --bogus"]);
    expect(await problems(["-v"])).toEqual(["unknown flag -v"]);
    expect(await problems(["--poll.intervall=15s"])).toEqual([
      "unknown flag --poll.intervall (did you mean --poll.interval?)",
    ]);
    expect(await problems(["--horizon.url"])).toEqual(["--horizon.url needs a value"]);
    expect(await problems(["--config.file=/does/not/exist.yml"])).toEqual([
      expect.stringMatching(/cannot be read \(ENOENT\)/),
    ]);
    expect(await problems([`--config.file=${writeConfig("targets: [\n")}`])).toEqual([
      expect.stringMatching(/not valid YAML/),
    ]);
    expect(await problems(["--horizon.url=a=http://x:2", "--horizon.url=a=http://y:2"])).toEqual([
      expect.stringMatching(/used twice/),
    ]);
    expect(await problems([])).toEqual([expect.stringMatching(/^no Horizon or Stellar RPC to poll: /)]);
    expect(await problems(["--horizon.url=http://x:2", "--web.listen-address=nowhere"])).toEqual([
      expect.stringMatching(/not HOST:PORT/),
    ]);
    expect(
      await problems(["--horizon.url=http://x:2", "--pools.max=-1", "--log.level=loud", "--poll.interval=x"]),
    ).toHaveLength(3);
  });

  it.each([
    [
      "a misaligned key",
      "targets:\n  - url: http://127.0.0.1:8000\n bad: 1\n",
      "3:2: not valid YAML: All mapping items must start at the same column\n     bad: ***\n     ^",
    ],
    [
      "an unclosed bracket",
      "targets:\n  - url: http://x:1\n    name: [a\nlog: {}\n",
      "3:11: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]\n        name: [***\n              ^",
    ],
    [
      "an unclosed quote",
      'http:\n  timeout: "10s\nlog:\n  level: info\n',
      '2:12: not valid YAML: Missing closing "quote\n      timeout: ***\n               ^',
    ],
    [
      "a sequence item without its dash",
      "targets:\n  - url: http://x:1\n   name: x\n",
      "3:4: not valid YAML: Sequence item without - indicator\n       name: ***\n       ^",
    ],
  ])(
    "shows a YAML syntax error (%s) with its values masked and a caret under the offending token",
    async (_what, yaml, problem) => {
      const path = writeConfig(yaml);
      expect(await problems([`--config.file=${path}`])).toEqual([`${path}:${problem}`]);
    },
  );

  // A rotation: the new token pasted into the file, with a mistake on its line or next to it.
  const TOKEN = "NEWTOKEN-s3cr3t-2026";
  it.each([
    [
      "an unclosed quote",
      `targets:\n  - url: http://x:1\n    headers: { Authorization: "Bearer ${TOKEN} }\n`,
      '3:31: not valid YAML: Missing closing "quote\n        headers: { Authorization: ***\n                                  ^',
    ],
    [
      "a misaligned key",
      `targets:\n  - url: http://x:1\n    headers:\n      Authorization: Bearer OLD\n     Authorization: Bearer ${TOKEN}\n`,
      "5:6: not valid YAML: All mapping items must start at the same column\n         Authorization: ***\n         ^",
    ],
    [
      "a colon in the value",
      `targets:\n  - url: http://x:1\n    headers:\n      Authorization: Bearer ${TOKEN}: more\n`,
      "4:22: not valid YAML: Nested mappings are not allowed in compact mappings\n          Authorization: ***\n                         ^",
    ],
    [
      "a tab",
      `targets:\n  - name: a\n\turl: https://user:${TOKEN}@host/\n`,
      "3:1: not valid YAML: Tabs are not allowed as indentation\n     url: ***\n    ^",
    ],
    [
      "a bad escape",
      `targets:\n  - url: http://x:1\n    headers: { Authorization: "Bearer \\q${TOKEN}" }\n`,
      "3:39: not valid YAML: Invalid escape sequence\n        headers: { Authorization: *** }\n                                  ^",
    ],
    [
      "a block scalar header",
      `targets:\n  - url: http://x:1\n    headers:\n      Authorization: |${TOKEN}\n`,
      "4:23: not valid YAML: Block scalar header includes extra characters\n          Authorization: ***\n                         ^",
    ],
    [
      "a commented token",
      `targets:\n  - url: http://x:1\n bad: 1 # ${TOKEN}\n`,
      "3:2: not valid YAML: All mapping items must start at the same column\n     bad: ***\n     ^",
    ],
    [
      "a token read as an alias",
      `targets:\n  - url: http://x:1\n    headers:\n      Authorization: *${TOKEN}\n`,
      "4:22: not valid YAML: a value starting with * is an alias, and no anchor (&) before it has that name: quote the value if it is text\n          Authorization: ***\n                         ^",
    ],
    [
      "a token as the YAML version",
      `%YAML ${TOKEN}\n---\ntargets: [{ url: http://x:1 }]\n`,
      "1:7: not valid YAML: Unsupported YAML version\n    ***\n    ^",
    ],
    [
      "a token where a mapping belongs",
      `targets:\n  - url: http://x:1\n    headers: "Bearer ${TOKEN}"\n`,
      "3: targets[0].headers: expected a mapping (key: value), got text",
    ],
    [
      "a header value no request can carry",
      `targets:\n  - url: http://x:1\n    headers: { X-Api-Key: "Bearer ${TOKEN}\\nX-Injected: 1" }\n`,
      "3: targets[0].headers.X-Api-Key: a header value takes visible ASCII characters, spaces and tabs only",
    ],
    [
      "a header value outside ASCII",
      `targets:\n  - url: http://x:1\n    headers: { X-Api-Key: "Bearer ${TOKEN}€" }\n`,
      "3: targets[0].headers.X-Api-Key: a header value takes visible ASCII characters, spaces and tabs only",
    ],
    [
      "a header name no request can carry",
      `targets:\n  - url: http://x:1\n    headers: { "X Api Key": "Bearer ${TOKEN}" }\n`,
      "3: targets[0].headers.X Api Key: invalid header name",
    ],
  ])("never shows the secret on a broken line (%s)", async (_what, yaml, problem) => {
    const path = writeConfig(yaml);
    const found = await problems([`--config.file=${path}`]);
    expect(found).toEqual([`${path}:${problem}`]);
    expect(found.join("\n")).not.toMatch(/NEWTOKEN|s3cr3t|Bearer|user:/);
  });

  it("aliases expanded a hundred times over are refused, without the file's text", async () => {
    const path = writeConfig(
      `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\ntargets: [{ url: http://x:1 }]\n`,
    );
    expect(await problems([`--config.file=${path}`])).toEqual([`${path}: not valid YAML: too many aliases`]);
  });

  it("refuses a repeated key or name, a file over 4 MiB and 101 targets, and lists 20 of 40 000 bad keys", async () => {
    const repeated = writeConfig("targets:\n  - url: http://a:1\n    url: http://b:1\n");
    expect(await problems([`--config.file=${repeated}`])).toEqual([
      `${repeated}:3:5: not valid YAML: Map keys must be unique\n        url: ***\n        ^`,
    ]);
    const named = writeConfig(
      "targets:\n  - { name: a, url: http://x:1 }\n  - { url: http://y:1 }\n  - { name: a, url: http://z:1 }\n",
    );
    expect(await problems([`--config.file=${named}`])).toEqual([
      `${named}: targets[2].name: target name "a" is used twice; names must be unique`,
    ]);
    expect(await problems(["--horizon.url=a=http://x:1", "--horizon.url=a=http://y:1"])).toEqual([
      '--horizon.url: target name "a" is used twice; names must be unique',
    ]);
    const large = writeConfig(`# ${"x".repeat(4 * 1024 * 1024)}\n`);
    expect(await problems([`--config.file=${large}`])).toEqual([`config file ${large}: larger than 4 MiB`]);
    const many = writeConfig(
      `targets:\n${Array.from({ length: 101 }, (_, i) => `  - url: http://h${i}:1\n`).join("")}`,
    );
    expect(await problems([`--config.file=${many}`])).toEqual([`${many}:2: targets: expected at most 100 entries`]);
    // Checked pair by pair, 40 000 keys took minutes to parse, and as long again to locate their problems.
    const keys = writeConfig(Array.from({ length: 40_000 }, (_, i) => `key${i}: ${i}\n`).join(""));
    const found = await problems([`--config.file=${keys}`]);
    expect(found).toHaveLength(21);
    expect(found.slice(0, 2)).toEqual([`${keys}:1: key0: unknown key`, `${keys}:2: key1: unknown key`]);
    expect(found.at(-1)).toBe(`${keys}: and 39980 more problems`);
  });

  it("quotes a wrong value only when it reads as a misspelt word, and describes any other text", async () => {
    const path = writeConfig(`targets:\n  - url: http://x:1\n    timeout: "${TOKEN}"\nlog: { level: loud }\n`);
    expect(await problems([`--config.file=${path}`])).toEqual([
      `${path}:3: targets[0].timeout: expected a duration such as 10s, 500ms or 1m, got text of ${TOKEN.length} characters`,
      `${path}:4: log.level: expected one of fatal, error, warn, info, debug, trace, got "loud"`,
    ]);
  });

  it("exits 2 with the masked line on stderr, the secret nowhere in the output", () => {
    const path = writeConfig(`targets:\n  - url: http://x:1\n    headers: { Authorization: "Bearer ${TOKEN} }\n`);
    const result = runCli([`--config.file=${path}`]);
    expectExit(result, 2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `stellar-horizon-exporter: ${path}:3:31: not valid YAML: Missing closing "quote\n        headers: { Authorization: ***\n                                  ^\n`,
    );
    expect(result.stderr).not.toContain(TOKEN);
  });

  it("says what is wrong in the operator's words, with the file's line, the key path and the close key", async () => {
    const path = writeConfig(`targets:
  - nmae: pubnet
    url: https://horizon.example.com
    schedules: { ledgrs: 5s }
  - name: second
http:
  timeout: 10
  retries: -1
poll_interval: 15
log:
  level: loud
`);
    expect(await problems([`--config.file=${path}`])).toEqual([
      `${path}:2: targets[0].nmae: unknown key (did you mean name?)`,
      `${path}:4: targets[0].schedules.ledgrs: unknown key (did you mean ledgers?)`,
      `${path}:5: targets[1].url: required`,
      `${path}:7: http.timeout: expected a duration such as 10s, 500ms or 1m, got 10 (did you mean 10s?)`,
      `${path}:8: http.retries: expected at least 0, got -1`,
      `${path}:9: poll_interval: expected a duration such as 15s or a cron pattern, got 15 (did you mean 15s?)`,
      `${path}:11: log.level: expected one of fatal, error, warn, info, debug, trace, got "loud"`,
    ]);
  });

  it("suggests the unit a bare --poll.interval number lacks", async () => {
    expect(await problems(["--horizon.url=http://x:2", "--poll.interval=15"])).toEqual([
      '--poll.interval: "15" is a number without a unit (did you mean 15s?)',
    ]);
  });

  it("says which schedules --poll.interval accepts instead of the cron parser's message", async () => {
    const [line] = await problems(["--horizon.url=http://x:2", "--poll.interval=abc"]);
    expect(line).toBe(
      '--poll.interval: "abc" is neither a duration (whole seconds: 15s, 1m30s) nor a cron pattern ("*/30 * * * *", or with seconds first "*/30 * * * * *")',
    );
    const config = await runConfig(["--horizon.url=http://x:2", "--poll.interval=*/20 * * * * *"]);
    expect(config.targets[0]!.schedules.ledgers).toMatchObject({ pattern: "*/20 * * * * *", periodMs: 20_000 });
  });

  it("caps pools.max at 20000, from flags and from the file", async () => {
    expect((await runConfig(["--horizon.url=http://x:2", "--pools.max=20000"])).liquidityPools.max).toBe(20_000);
    expect(await problems(["--horizon.url=http://x:2", "--pools.max=20001"])).toEqual([
      '--pools.max: "20001" is not a whole number from 0 to 20000 (more pools per Horizon need a second exporter)',
    ]);
    const path = writeConfig("targets: [{ url: http://x:2 }]\nliquidity_pools: { max: 50000 }\n");
    expect(await problems([`--config.file=${path}`])).toEqual([
      `${path}:2: liquidity_pools.max: expected a whole number from 0 to 20000 (more pools per Horizon need a second exporter)`,
    ]);
  });

  it("takes pools.max as plain digits only: an empty value is not 0 pools", async () => {
    for (const value of ["", "1e3", "0x10", "5.0", " "]) {
      expect(await problems(["--horizon.url=http://x:2", `--pools.max=${value}`])).toEqual([
        `--pools.max: "${value}" is not a whole number from 0 to 20000 (more pools per Horizon need a second exporter)`,
      ]);
    }
    expect((await runConfig(["--horizon.url=http://x:2"], { POOLS_MAX: " 0 " })).liquidityPools.max).toBe(0);
  });

  it("never echoes URL credentials", async () => {
    const lines = await problems(["--horizon.url=ftp://user:pa55@example.com"]);
    expect(lines.join("\n")).not.toContain("pa55");
    const config = await runConfig(["--horizon.url=https://user:pa55@horizon.example.com"]);
    expect(config.targets[0]!.name).toBe("horizon.example.com");
  });
});

describe("a secret seed given as a name", () => {
  // A name becomes a label on /metrics: a seed pasted as one must never be shown.
  const seed = `S${"A".repeat(55)}`;
  const account = "GA2224DCGO3WHC4EALA2PR2BZEMAYZPBPTHS243ZYYWQMBWRPJSZH5A6";
  const contract = "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC";
  const usdc = "USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
  it.each([
    ["a target", [`--horizon.url=${seed}=http://127.0.0.1:8000`]],
    ["an account", ["--horizon.url=http://127.0.0.1:8000", `--account=${seed}=${account}`]],
    ["a market", ["--horizon.url=http://127.0.0.1:8000", `--market=${seed}=native/${usdc}`]],
    ["a contract", ["--rpc.url=http://127.0.0.1:8000", `--contract=${seed}=${contract}`]],
  ])("is refused for %s, never quoted", async (what, argv) => {
    const found = await problems(argv);
    expect(found).toEqual([`${what}'s name is a secret seed (S...), which a label would show: choose another name`]);
  });
});
