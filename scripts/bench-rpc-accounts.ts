/**
 * The accounts-over-Stellar-RPC part of `npm run bench` (issue 34): an exporter watching 10 000
 * accounts with 3 trustlines each on one RPC target (40 000 ledger keys), measured from outside
 * its process as the pools poll is: getLedgerEntries calls and header reads per poll, counted at
 * the simulator; poll CPU per 1 000 keys from /proc between poll starts; RSS after the steady
 * period of 5 s polls; plain and gzip scrapes of its /metrics against the static ceiling.
 * Run as a script (`node --import tsx scripts/bench-rpc-accounts.ts serve`), this file is the
 * upstream: a simulator whose ledger holds the 10 000 accounts, logging the RPC calls it serves,
 * printing one JSON line with its URL; /_bench/accounts lists the accounts, /_bench/polls the
 * accounts polls it has seen, /_bench/bodies the answers to the last poll's calls.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { MAX_KEYS_PER_CALL } from "../src/client/ledger-entries.js";
import { listen } from "../src/server/listen.js";
import { deterministicAccountId } from "../src/simulator/accounts.js";
import { createSimulator, RPC_PATH } from "../src/simulator/index.js";
import type { BenchTools as ContractsBenchTools } from "./bench-contracts.js";
import { LastBodies, parseFloorMs } from "./bench-floor.js";
import type { RpcAccountsResults } from "./bench-table.js";
import { seriesIn, valueOf, valuesSum } from "./exposition-text.js";

const ACCOUNTS = 10_000;
const ASSETS = ["USDC", "EURC", "BENCH"].map((code) => `${code}:${deterministicAccountId(`bench issuer of ${code}`)}`);
const KEYS = ACCOUNTS * (1 + ASSETS.length);
const CALLS_PER_POLL = Math.ceil(KEYS / MAX_KEYS_PER_CALL);
const STROOPS = 10_000_000n;
const WARM_UP_POLLS = 2;
/** Polls measured: a poll of 40 000 keys costs hundreds of CPU ticks, so a few leave the tick well under a percent. */
const MEASURED_POLLS = 4;
/** The accounts (and status) schedule, in the poll cost and steady phases alike: 5 s, as the pools bench's steady period. */
const POLL_SECONDS = 5;

/** What bench.ts lends: the contracts phase's tools, the steady period and the ceiling comparison. */
export interface BenchTools extends ContractsBenchTools {
  readonly steadyMs: number;
  /** The exporter's plain and gzip scrape medians against a static server answering the same bytes. */
  againstCeiling(exporterUrl: string): Promise<Pick<RpcAccountsResults["scrapes"], "plain" | "gzip">>;
}

/** One accounts poll as the upstream saw it: its getLedgerEntries calls, then its header reads. */
interface PollSeen {
  entriesCalls: number;
  /** getLatestLedger (and getLedgers, on an RPC older than 25) sent on their own, not in the status batch. */
  headerReads: number;
}

async function serve(): Promise<void> {
  const simulator = createSimulator({ ledgerIntervalMs: 1000, seed: 42, pools: 0 });
  const at = simulator.latestLedgerPoint();
  const ids: string[] = [];
  for (let index = 0; index < ACCOUNTS; index += 1) {
    const id = deterministicAccountId(`bench account ${index}`);
    const stroops = BigInt(1000 + index) * STROOPS;
    simulator.accounts.add(
      {
        id,
        balance: stroops,
        trustlines: ASSETS.map((asset, line) => ({ asset, balance: stroops * BigInt(line + 1) })),
      },
      at,
    );
    ids.push(id);
  }
  const polls: PollSeen[] = [];
  // A poll's getLedgerEntries calls and its header read.
  const answers = new LastBodies(CALLS_PER_POLL + 1);
  const app = new Hono();
  app.get("/_bench/accounts", (c) => c.json({ ids, assets: ASSETS }));
  app.get("/_bench/bodies", (c) => c.json(answers.list()));
  app.get("/_bench/polls", (c) => c.json(polls));
  app.use(RPC_PATH, async (c, next) => {
    const request = JSON.parse(await c.req.raw.clone().text()) as { method?: string } | unknown[];
    const method = Array.isArray(request) ? "batch" : request.method;
    const last = polls.at(-1);
    if (method === "getLedgerEntries") {
      if (last === undefined || last.headerReads > 0) polls.push({ entriesCalls: 1, headerReads: 0 });
      else last.entriesCalls += 1;
    } else if ((method === "getLatestLedger" || method === "getLedgers") && last !== undefined) {
      last.headerReads += 1;
    }
    await next();
    if (method !== "batch") await answers.note(c.res);
  });
  app.route("/", simulator.app);
  const { url } = await listen(app, "127.0.0.1", 0);
  process.stdout.write(`${JSON.stringify({ url })}\n`);
}

async function pollsSeen(url: string): Promise<PollSeen[]> {
  return (await (await fetch(`${url}/_bench/polls`)).json()) as PollSeen[];
}

/** Waits until accounts poll `poll` (from 0) has sent its first call. */
async function pollStarts(url: string, poll: number): Promise<void> {
  // Stuck is two minutes without a new poll: on a loaded machine a poll of 200 calls takes seconds.
  const deadline = Date.now() + 120_000 * (poll + 1);
  for (;;) {
    const seen = await pollsSeen(url).catch(() => []);
    if (seen.length > poll) return;
    if (Date.now() > deadline) throw new Error(`accounts poll ${poll} did not start in time (${seen.length} seen)`);
    await new Promise((done) => setTimeout(done, 2));
  }
}

/** An exporter watching every account of the upstream on one RPC target, its jobs on `schedule`. */
async function startExporter(tools: BenchTools, upstreamUrl: string, schedule: string) {
  const { ids, assets } = (await (await fetch(`${upstreamUrl}/_bench/accounts`)).json()) as {
    ids: string[];
    assets: string[];
  };
  const target = {
    name: "big",
    url: `${upstreamUrl}${RPC_PATH}`,
    timeout: "60s",
    account_assets: assets,
    accounts: ids.map((id, index) => ({ name: `a${index}`, id })),
  };
  // Staleness far off: the bench measures cost, and a slow poll on a loaded machine must not drop series.
  return tools.startExporter({
    rpc_targets: [target],
    poll_interval: schedule,
    schedules: { accounts: schedule },
    freshness: { stale_after_intervals: 60 },
  });
}

/**
 * The exporter's /metrics, plain. Tried three times: on a loaded machine a keep-alive connection
 * the exporter closes as the next request goes out fails that request with ECONNRESET.
 */
async function metricsText(exporterUrl: string): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await (await fetch(`${exporterUrl}/metrics`)).text();
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** The exporter's failed accounts polls so far. */
function accountsPollErrors(text: string): number {
  return valuesSum(text, 'stellar_horizon_exporter_rpc_poll_errors_total{rpc="big",endpoint="accounts"');
}

/**
 * One exporter polling every 5 s: its CPU per accounts poll of 40 000 keys (read, decode, sample,
 * render, publish), read from /proc between the starts of polls after the warm-up polls, and the
 * calls each poll sent, counted at the upstream (exactly 200 getLedgerEntries calls a poll, or the
 * bench fails); then, the steady period after its start, its RSS, scraped (gzip) every 15 s as
 * Prometheus does from the end of the measured polls on.
 */
async function pollCostAndRss(tools: BenchTools, upstreamUrl: string) {
  process.stdout.write(
    `bench: RPC accounts, ${ACCOUNTS} accounts x ${ASSETS.length} assets, ${POLL_SECONDS} s polls, CPU of ${MEASURED_POLLS} polls, RSS after ${tools.steadyMs / 1000} s\n`,
  );
  const exporter = await startExporter(tools, upstreamUrl, `${POLL_SECONDS}s`);
  const startedMs = Date.now();
  await pollStarts(upstreamUrl, WARM_UP_POLLS);
  const cpuBefore = tools.cpuMsOf(exporter.child);
  await pollStarts(upstreamUrl, WARM_UP_POLLS + MEASURED_POLLS);
  const cpuMs = tools.cpuMsOf(exporter.child) - cpuBefore;
  const measured = (await pollsSeen(upstreamUrl)).slice(WARM_UP_POLLS, WARM_UP_POLLS + MEASURED_POLLS);
  const wrong = measured.filter((poll) => poll.entriesCalls !== CALLS_PER_POLL);
  if (wrong.length > 0)
    throw new Error(
      `accounts polls sent ${wrong.map((poll) => poll.entriesCalls).join(", ")} getLedgerEntries calls, not ${CALLS_PER_POLL}`,
    );
  while (Date.now() - startedMs < tools.steadyMs) {
    await fetch(`${exporter.url}/metrics`, { headers: { "Accept-Encoding": "gzip" } }).then(
      (response) => response.arrayBuffer(),
      () => undefined,
    );
    await new Promise((done) =>
      setTimeout(done, Math.min(15_000, Math.max(0, tools.steadyMs - (Date.now() - startedMs)))),
    );
  }
  const text = await metricsText(exporter.url);
  tools.stop(exporter.child);
  const floor = await parseFloorMs(`${upstreamUrl}/_bench/bodies`);
  const errors = accountsPollErrors(text);
  if (errors > 0) throw new Error(`${errors} accounts polls failed`);
  const polls = await pollsSeen(upstreamUrl);
  return {
    poll: {
      accounts: ACCOUNTS,
      assets: ASSETS.length,
      keys: KEYS,
      ledgerEntriesCallsPerPoll: CALLS_PER_POLL,
      /** Header reads of the first poll, then of each measured one. */
      headerReads: {
        firstPoll: polls[0]!.headerReads,
        measuredPolls: [...new Set(measured.map((poll) => poll.headerReads))],
      },
      cpuMsPerPoll: cpuMs / MEASURED_POLLS,
      cpuMsPer1000Keys: cpuMs / MEASURED_POLLS / (KEYS / 1000),
      parseFloorMsPer1000Keys: floor.cpuMs / (KEYS / 1000),
      wallMsPerPoll:
        (1000 *
          valueOf(text, 'stellar_horizon_exporter_rpc_poll_duration_seconds_sum{rpc="big",endpoint="accounts"}')) /
        valueOf(text, 'stellar_horizon_exporter_rpc_poll_duration_seconds_count{rpc="big",endpoint="accounts"}'),
    },
    rss: {
      afterMiB: valueOf(text, "process_resident_memory_bytes") / 2 ** 20,
      steadySeconds: tools.steadyMs / 1000,
      polls: polls.length,
    },
  };
}

/** Scrapes of an exporter holding every account's series, polling no more after its first polls, against the static ceiling. */
async function scrapes(tools: BenchTools, upstreamUrl: string) {
  process.stdout.write(`bench: RPC accounts scrapes against the static ceiling\n`);
  const exporter = await startExporter(tools, upstreamUrl, "1h");
  const deadline = Date.now() + 300_000;
  let text = await metricsText(exporter.url);
  while (!text.includes(`stellar_rpc_account_exists{rpc="big",account="a${ACCOUNTS - 1}"`)) {
    if (Date.now() > deadline) throw new Error("the accounts' series did not appear within 5 minutes");
    await new Promise((done) => setTimeout(done, 500));
    text = await metricsText(exporter.url);
  }
  const comparison = await tools.againstCeiling(exporter.url);
  tools.stop(exporter.child);
  return { series: seriesIn(text), plainBytes: Buffer.byteLength(text), ...comparison };
}

/** The accounts-over-RPC figures, each against its own exporter on one upstream. */
export async function rpcAccountsFigures(tools: BenchTools): Promise<RpcAccountsResults> {
  const loadAtStart = loadavg()[0]!;
  const source = await tools.startChild(["--import", tools.tsx, "scripts/bench-rpc-accounts.ts", "serve"]);
  try {
    const { poll, rss } = await pollCostAndRss(tools, source.url);
    // Printed at once: the scrapes that follow take minutes with this many series.
    process.stdout.write(`${JSON.stringify({ poll, rss })}\n`);
    const scrape = await scrapes(tools, source.url);
    return { loadAverage: { start: loadAtStart, end: loadavg()[0]! }, poll, rss, scrapes: scrape };
  } finally {
    tools.stop(source.child);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "serve") await serve();
