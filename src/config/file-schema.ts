import { z } from "zod";
import { ENDPOINTS, type Endpoint } from "../catalog/metrics.js";
import { accountEntrySchema, creditAssetText, looksLikeSeed, rpcAccountEntrySchema } from "./accounts.js";
import { contractEntrySchema } from "./contracts.js";
import { marketEntrySchema } from "./markets.js";
import { corridorEntrySchema, corridorsScheduleText } from "./corridors.js";
import { durationText, parseByteSize } from "./duration.js";
import { shown, unitSuggestion } from "./messages.js";
import { parseSchedule } from "./schedule.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const expectedGot = (what: string) => (issue: { input?: unknown }) =>
  `expected ${what}, got ${shown(issue.input)}${unitSuggestion(issue.input)}`;
const durationProblem = expectedGot("a duration such as 10s, 500ms or 1m");

const durationMs = durationText(1, 1, (input) => durationProblem({ input }), z.string({ error: durationProblem }));

const scheduleText = z.string({ error: expectedGot("a duration such as 15s or a cron pattern") }).check((ctx) => {
  const schedule = parseSchedule(ctx.value);
  if (typeof schedule === "string") ctx.issues.push({ code: "custom", message: schedule, input: ctx.value });
});

const byteSize = z
  .union([z.number().int().positive(), z.string().transform((text) => parseByteSize(text) ?? 0)])
  .refine((bytes) => bytes > 0, { error: "expected a size such as 8MiB, 512kB or a number of bytes" });

/** Pools tracked per Horizon at most: each is a few series and paging takes max/200 requests a poll. */
export const MAX_POOLS = 20_000;
export const POOLS_MAX_RANGE = `a whole number from 0 to ${MAX_POOLS} (more pools per Horizon need a second exporter)`;
const POOLS_MAX_PROBLEM = `expected ${POOLS_MAX_RANGE}`;

export const horizonUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => (issue.input === undefined ? "required" : "expected an http:// or https:// URL"),
});

/** `native` or `CODE:ISSUER`, as Horizon's `reserves` parameter takes them. */
const assetText = z
  .string()
  .regex(/^(native|[A-Za-z0-9]{1,12}:G[A-Z2-7]{55})$/, "expected `native` or CODE:ISSUER (a G... account)");

const scheduleOfEach = Object.fromEntries(ENDPOINTS.map((endpoint) => [endpoint, scheduleText.optional()]));
const endpointSchedules = z.strictObject({
  ...(scheduleOfEach as Record<Endpoint, z.ZodOptional<typeof scheduleText>>),
  corridors: corridorsScheduleText.optional(),
});

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A seed pasted where its file or variable is named: refused first, as every later problem would quote the name. */
const notTheSeed = (where: string) =>
  z.string().refine((text) => !looksLikeSeed(text.trim()), `that is the seed itself: put it in ${where}`);
/** A target's `tx_probe:`; the seed comes from a file or an environment variable, never inline. */
const txProbeEntry = z
  .strictObject({
    secret_file: notTheSeed("a file readable by the exporter alone and give its path").min(1).optional(),
    secret_env: notTheSeed("an environment variable and give its name")
      .regex(ENV_VAR_NAME, "expected an environment variable name")
      .optional(),
    interval: scheduleText.optional(),
    max_fee: z.int().min(100, "expected at least the network's base fee of 100 stroops").max(0xffffffff).optional(),
    allow_pubnet: z.boolean().optional(),
  })
  .refine((entry) => (entry.secret_file === undefined) !== (entry.secret_env === undefined), {
    error: "give exactly one of secret_file or secret_env",
  });
export type TxProbeEntry = z.output<typeof txProbeEntry>;

/** An HTTP header value as it can be sent; also the web config's response headers. Its problem never quotes it. */
export const headerValue = z
  .string({ error: "expected text (quote it)" })
  .regex(/^[\t\x20-\x7e]*$/, "a header value takes visible ASCII characters, spaces and tabs only");

const targetEntry = z.strictObject({
  name: z.string().min(1).optional(),
  url: horizonUrl,
  /** The URL's path holds no secret: show it on pages and in logs. */
  show_path: z.boolean().optional(),
  // A header value may be a key: its problem never shows it (an unquoted number is not text).
  headers: z
    .record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "invalid header name"),
      // A control character or non-ASCII text cannot be sent as written: every poll would fail as a network error.
      headerValue,
    )
    .optional(),
  timeout: durationMs.optional(),
  schedules: endpointSchedules.optional(),
  request_budget_per_hour: z.number().int().positive().optional(),
  accounts: z.array(accountEntrySchema).optional(),
  /** `CODE:ISSUER` texts, checked in assets.ts so that a problem quotes the entry. */
  assets: z.array(z.string()).optional(),
  tx_probe: txProbeEntry.optional(),
  markets: z.array(marketEntrySchema).optional(),
  corridors: z.array(corridorEntrySchema).optional(),
});
export type TargetEntry = z.output<typeof targetEntry>;

/** A Stellar RPC target; `schedule` is its status poll's (getHealth, getLatestLedger, getFeeStats). */
const rpcTargetEntry = targetEntry
  .pick({ name: true, url: true, show_path: true, headers: true, timeout: true })
  .extend({
    schedule: scheduleText.optional(),
    accounts: z.array(rpcAccountEntrySchema).optional(),
    account_assets: z.array(creditAssetText).optional(),
    contracts: z.array(contractEntrySchema).optional(),
  });

/** Targets of one kind a file may list: each is a runtime of its own, polling on its own schedules. */
const MAX_TARGETS = 100;

/** The YAML file given with --config.file. Strict: an unknown key is a typo, and an error. */
export const configFileSchema = z.strictObject({
  targets: z.array(targetEntry).max(MAX_TARGETS).optional(),
  rpc_targets: z.array(rpcTargetEntry).max(MAX_TARGETS).optional(),
  poll_interval: scheduleText.optional(),
  /** Horizon endpoints' schedules, and the contracts poll's of every Stellar RPC. */
  schedules: endpointSchedules
    .extend({ contracts: scheduleText.optional(), events: scheduleText.optional() })
    .optional(),
  http: z
    .strictObject({
      timeout: durationMs.optional(),
      retries: z.number().int().min(0).max(10).optional(),
      max_body_size: byteSize.optional(),
    })
    .optional(),
  ledgers: z
    .strictObject({
      max_pages_per_poll: z.number().int().min(1).max(1000).optional(),
      backfill: z.number().int().min(0).max(199).optional(),
    })
    .optional(),
  liquidity_pools: z
    .strictObject({
      max: z.int({ error: POOLS_MAX_PROBLEM }).min(0, POOLS_MAX_PROBLEM).max(MAX_POOLS, POOLS_MAX_PROBLEM).optional(),
      reserves: z.array(assetText).min(1).max(2).optional(),
      ids: z.array(z.string().regex(/^[0-9a-f]{64}$/, "expected a 64-character hex pool id")).optional(),
    })
    .optional(),
  freshness: z.strictObject({ stale_after_intervals: z.number().min(1).max(1000).optional() }).optional(),
  web: z.strictObject({ listen_address: z.string().optional() }).optional(),
  log: z.strictObject({ level: z.enum(LOG_LEVELS).optional() }).optional(),
});
export type ConfigFile = z.output<typeof configFileSchema>;
