import { once } from "node:events";
import { finished } from "node:stream/promises";
import { promisify } from "node:util";
import { constants, createGzip, type Gzip, gunzip as gunzipCallback, gzipSync } from "node:zlib";
import {
  ALL_METRICS,
  targetLabelOfSource,
  type MetricDefinition,
  type PublishedSource,
  type TargetLabel,
} from "../catalog/metrics.js";
import { familyLines, isSeriesGroup, sourcesByFamily, type CollectorSamples, type SeriesSource } from "./samples.js";

/** Sees the samples it wants as the store publishes them, so the landing page shows exactly what /metrics shows. */
export interface SampleTap {
  wants(metric: MetricDefinition): boolean;
  /** Called once the series are in the store, with the wanted sources only (a group when any of its families is). */
  published(target: StoreTarget, endpoint: PublishedSource, samples: TappedSamples, freshUntilMs: number): void;
  removed(target: StoreTarget, source: PublishedSource): void;
}

/** A target as its series name it. A Horizon and a Stellar RPC may share a name and a source, never a label. */
export type StoreTarget = { readonly label: TargetLabel; readonly name: string };

/** One writer's handle on a target's series of one source (see MetricStore.lease). */
export interface StoreLease {
  /** Resolves false when the lease was retired or superseded, and nothing was written. */
  publish(samples: CollectorSamples, freshUntilMs: number): Promise<boolean>;
  retire(): void;
}

export type TappedSamples = Omit<CollectorSamples, "version">;
export type ContentCoding = "identity" | "gzip";

const gunzipAsync = promisify(gunzipCallback);
/** The fastest level, for text that changes at every publication; zlib's largest match table costs less CPU. */
export const GZIP_OPTIONS = { level: constants.Z_BEST_SPEED, memLevel: 9 } as const;

/** A target's lines of one family as one gzip member, and their plain length. */
type Member = { readonly gzip: Buffer; readonly plainBytes: number };
type Members = ReadonlyMap<string, Member>;

interface Published {
  readonly live: Members;
  readonly persistent: Members;
  /** After this instant the live series are stale and leave the output. */
  readonly freshUntilMs: number;
  /** A version counts only within the lease that published it. */
  readonly version: number | undefined;
  readonly generation: number;
}

/** How long a plain text is kept for the plain scrapes that follow: decompressing costs several times what sending
 * does, and holding it longer keeps megabytes that Prometheus, which scrapes gzip, never reads. */
export const PLAIN_HOLD_MS = 10_000;

/** The exposition as scraped, exact from `fromMs` (the last live series left) to `untilMs` (the next one leaves). */
interface Body extends Member {
  plain: Promise<Buffer> | undefined;
  plainUntilMs: number;
  readonly fromMs: number;
  readonly untilMs: number;
}

const TARGET_METRICS = ALL_METRICS.filter((metric) => metric.source !== "exporter" && metric.source !== "agreement");

/** Each family's HELP and TYPE lines as one gzip member (copied out of zlib's larger output chunk). */
const HEADERS: ReadonlyMap<string, Member> = new Map(
  TARGET_METRICS.map((metric) => {
    const help = metric.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    const text = Buffer.from(`# HELP ${metric.name} ${help}\n# TYPE ${metric.name} ${metric.type}\n`);
    return [metric.name, { gzip: Buffer.from(gzipSync(text, GZIP_OPTIONS)), plainBytes: text.byteLength }];
  }),
);

/** A target's lines of each family as one gzip member, compressed slice by slice on the thread pool. Concatenated
 * members are one valid gzip stream (RFC 1952 §2.2), so a scrape just joins them. */
async function compress(target: string, sources: readonly SeriesSource[]): Promise<Members> {
  const members = new Map<string, Member>();
  for (const [metric, list] of sourcesByFamily(sources)) {
    // A name outside the catalog has no header and is never scraped.
    if (!HEADERS.has(metric.name)) continue;
    // Made at the first slice: a group lists families it often has no line of (offers, claimable balances).
    let gzip: Gzip | undefined;
    const chunks: Buffer[] = [];
    let plainBytes = 0;
    try {
      for await (const lines of familyLines(target, metric, list)) {
        if (gzip === undefined) {
          gzip = createGzip(GZIP_OPTIONS);
          gzip.on("data", (chunk: Buffer) => chunks.push(chunk));
        }
        const bytes = Buffer.from(lines);
        plainBytes += bytes.byteLength;
        if (!gzip.write(bytes)) await once(gzip, "drain");
      }
      if (gzip === undefined) continue;
      gzip.end();
      await finished(gzip);
    } finally {
      gzip?.destroy();
    }
    // Exact and unpooled: neither zlib's 16 KiB chunks nor an 8 KiB pool slab stays alive behind a small member.
    const member = Buffer.allocUnsafeSlow(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
    let at = 0;
    for (const chunk of chunks) at += chunk.copy(member, at);
    members.set(metric.name, { gzip: member, plainBytes });
  }
  return members;
}

/** The sources of the families the tap wants; it is asked once per family or group's list, not once per source. */
function tapped(tap: SampleTap, { live, persistent }: CollectorSamples): TappedSamples {
  const wanted = new Map<MetricDefinition | readonly MetricDefinition[], boolean>();
  const wants = (key: MetricDefinition | readonly MetricDefinition[]): boolean => {
    let want = wanted.get(key);
    if (want === undefined) wanted.set(key, (want = "name" in key ? tap.wants(key) : key.some(wants)));
    return want;
  };
  const keep = (source: SeriesSource) => wants(isSeriesGroup(source) ? source.families : source.metric);
  return { live: live.filter(keep), persistent: persistent.filter(keep) };
}

/** Every target's series as gzip members, one per family and target, made once per publication off the event loop: a
 * gzip scrape sends them as they are, a plain one decompresses them on the thread pool, so both send the same bytes. */
export class MetricStore {
  /** Per endpoint, per target (`label=name`), in the order targets were added. */
  private readonly published = new Map<PublishedSource, Map<string, Published>>();
  /** Per `source:label=name`, the generation of the lease that may write. */
  private readonly generations = new Map<string, number>();
  private generation = 0;
  /** The last scrape's body, dropped at every change of what is published. */
  private assembled: Body | undefined;

  constructor(private readonly tap?: SampleTap) {}

  /** The right to write one target's series of one source until retired or superseded: a stopped runtime can never
   * bring back what it published, even from a publication in flight when it stopped. */
  lease(name: string, source: PublishedSource, label: TargetLabel = targetLabelOfSource(source)): StoreLease {
    const target: StoreTarget = { label, name };
    const key = `${label}=${name}`;
    const slot = `${source}:${key}`;
    const generation = ++this.generation;
    this.generations.set(slot, generation);
    const current = () => this.generations.get(slot) === generation;
    return {
      publish: async (samples, freshUntilMs) => {
        if (!current()) return false;
        const { version } = samples;
        const previous = this.published.get(source)?.get(key);
        const same = version !== undefined && previous?.version === version && previous.generation === generation;
        const live = same ? previous.live : await compress(name, samples.live);
        const persistent = same ? previous.persistent : await compress(name, samples.persistent);
        // Rendering took turns of the event loop, in which the lease may have been retired or superseded.
        if (!current()) return false;
        let byTarget = this.published.get(source);
        if (byTarget === undefined) this.published.set(source, (byTarget = new Map()));
        byTarget.set(key, { live, persistent, freshUntilMs, version, generation });
        this.assembled = undefined;
        if (this.tap !== undefined) this.tap.published(target, source, tapped(this.tap, samples), freshUntilMs);
        return true;
      },
      retire: () => {
        if (!current()) return;
        this.generations.delete(slot);
        this.published.get(source)?.delete(key);
        this.assembled = undefined;
        this.tap?.removed(target, source);
      },
    };
  }

  /** Every target's series in the coding. The gzip body is kept until the store changes or a live series goes stale,
   * so scrapes between publications cost a lookup, not a copy of megabytes; the plain text at most PLAIN_HOLD_MS. */
  async scrape(nowMs: number, coding: ContentCoding): Promise<Buffer> {
    const body = this.body(nowMs);
    // Any scrape lets go of a plain text held past its window: a human's curl must not keep megabytes alive.
    if (body.plain !== undefined && nowMs >= body.plainUntilMs) body.plain = undefined;
    if (coding === "gzip" || body.plainBytes === 0) return body.gzip;
    if (body.plain === undefined) {
      // One output chunk a byte longer than the text, so it comes back in one round trip from the thread pool.
      const plain = gunzipAsync(body.gzip, { chunkSize: Math.max(1024, body.plainBytes + 1) });
      body.plain = plain;
      body.plainUntilMs = nowMs + PLAIN_HOLD_MS;
      // A failure is not kept: the next plain scrape tries again.
      plain.catch(() => {
        if (body.plain === plain) body.plain = undefined;
      });
    }
    return body.plain;
  }

  private body(nowMs: number): Body {
    const held = this.assembled;
    if (held !== undefined && held.fromMs <= nowMs && nowMs < held.untilMs) return held;
    const members = this.members(nowMs);
    let fromMs = -Infinity;
    let untilMs = Infinity;
    // Each live entry's series are in until their freshness runs out: the body holds while no entry changes sides.
    for (const byTarget of this.published.values()) {
      for (const { live, freshUntilMs } of byTarget.values()) {
        if (live.size === 0) continue;
        if (nowMs < freshUntilMs) untilMs = Math.min(untilMs, freshUntilMs);
        else fromMs = Math.max(fromMs, freshUntilMs);
      }
    }
    return (this.assembled = {
      gzip: Buffer.concat(members.map((member) => member.gzip)),
      plainBytes: members.reduce((total, member) => total + member.plainBytes, 0),
      plain: undefined,
      plainUntilMs: -Infinity,
      fromMs,
      untilMs,
    });
  }

  /** Each family's header member then every target's member of it: persistent ones, and live ones still fresh. */
  private members(nowMs: number): Member[] {
    const members: Member[] = [];
    for (const metric of TARGET_METRICS) {
      const first = members.length;
      for (const entry of this.published.get(metric.source as PublishedSource)?.values() ?? []) {
        const member =
          entry.persistent.get(metric.name) ?? (nowMs < entry.freshUntilMs ? entry.live.get(metric.name) : undefined);
        if (member !== undefined) members.push(member);
      }
      if (members.length > first) members.splice(first, 0, HEADERS.get(metric.name)!);
    }
    return members;
  }
}
