import { promisify } from "node:util";
import { constants, gunzip as gunzipCallback, gunzipSync, gzip as gzipCallback } from "node:zlib";
import {
  ALL_METRICS,
  targetLabelOfSource,
  type MetricDefinition,
  type PublishedSource,
  type TargetLabel,
} from "../catalog/metrics.js";
import {
  isSeriesGroup,
  renderSamples,
  type CollectorSamples,
  type RenderedFamily,
  type SeriesSource,
} from "./samples.js";

/**
 * Sees the samples of the metrics it wants as the store publishes them, so a second view (the
 * landing page) shows exactly what /metrics shows, without computing anything twice.
 */
export interface SampleTap {
  wants(metric: MetricDefinition): boolean;
  /** Called once the endpoint's series are in the store, with the wanted sources only (a group when any of its families is). */
  published(target: StoreTarget, endpoint: PublishedSource, samples: TappedSamples, freshUntilMs: number): void;
  /** The target's series of that source left the store. */
  removed(target: StoreTarget, source: PublishedSource): void;
}

/**
 * A target as its series name it: its label (`horizon`, `rpc`) and the label's value. A Horizon and
 * a Stellar RPC may share a name, and a source (`accounts`): they never share a label.
 */
export interface StoreTarget {
  readonly label: TargetLabel;
  readonly name: string;
}

/** One writer's handle on a target's series of one source (see MetricStore.lease). */
export interface StoreLease {
  /** Resolves false when the lease was retired or superseded, and nothing was written. */
  publish(samples: CollectorSamples, freshUntilMs: number): Promise<boolean>;
  retire(): void;
}

export interface TappedSamples {
  readonly live: readonly SeriesSource[];
  readonly persistent: readonly SeriesSource[];
}

/** How a scrape wants the exposition: as it is, or gzip-compressed. */
export type ContentCoding = "identity" | "gzip";

const gzipAsync = promisify(gzipCallback);
const gunzipAsync = promisify(gunzipCallback);

/**
 * For text that changes from one publication to the next, the fastest level: churning pool
 * reserves and ids shrink little more at higher levels, for much more CPU. The most memory zlib
 * allows for its match table and symbol buffer, which costs less CPU than the default
 * (docs/performance.md, "Measurements").
 */
export const GZIP_OPTIONS = { level: constants.Z_BEST_SPEED, memLevel: 9 } as const;

/**
 * For a piece published for the first time: most of a watch list stays as it is for hours, and its
 * repeated label sets shrink markedly more with lazy matching, which every scrape then sends fewer
 * bytes of. A piece that changed is compressed again at the fastest level: it will likely change again.
 */
const FIRST_PUBLICATION_LEVEL = 5;

/**
 * zlib's output buffer for a member: the size the member is expected to take, so zlib hands it
 * back in one chunk rather than in several, each a round trip between the thread pool and the
 * event loop, copied together afterwards (docs/performance.md, "Measurements"). A member larger
 * than expected takes more chunks, as before. The unused end of the buffer stays with the member:
 * at most 3/8 of the plain bytes in all.
 */
function memberChunkBytes(plainBytes: number): number {
  return Math.max(MIN_MEMBER_CHUNK_BYTES, Math.ceil((3 * plainBytes) / 8));
}

/** Room for the gzip header and trailer and a few lines' worth of a small family. */
const MIN_MEMBER_CHUNK_BYTES = 1024;

/**
 * One complete gzip member. Members concatenated are one valid gzip stream (RFC 1952 §2.2), so
 * each piece is compressed once, when it changes, and a scrape sends the members one after another.
 * It runs on libuv's thread pool, off the event loop.
 */
export function gzipMember(bytes: Uint8Array, level: number = GZIP_OPTIONS.level): Promise<Buffer> {
  return gzipAsync(bytes, { ...GZIP_OPTIONS, level, chunkSize: memberChunkBytes(bytes.length) });
}

/**
 * How long after a plain scrape the store keeps the plain lines of what it publishes. Prometheus
 * asks for gzip; with nobody asking for plain text, only the gzip members are kept (the plain
 * lines of 10 000 accounts are 40 MB, their gzip members 2 MB), and a plain scrape makes the plain
 * lines again from them, which are then kept while plain scrapes keep coming.
 */
export const PLAIN_KEPT_MS = 10 * 60_000;

/**
 * A target's lines of one metric in pieces, each piece as one gzip member, so a scrape writes the
 * buffers as they are and an unchanged piece keeps its compressed form; and the plain pieces,
 * while plain scrapes ask for them (PLAIN_KEPT_MS). A piece's plain lines not held are made again
 * from its gzip member when needed, and held from then on.
 */
interface EncodedLines extends RenderedFamily {
  readonly pieces: (Buffer | undefined)[];
  readonly gzip: readonly Buffer[];
}

/** Piece `index`'s plain lines, made again from its gzip member (and held) if need be. */
function plainPiece(lines: EncodedLines, index: number): Buffer {
  return (lines.pieces[index] ??= gunzipSync(lines.gzip[index]!));
}

type EncodedMetrics = ReadonlyMap<string, EncodedLines>;

interface Published {
  readonly live: EncodedMetrics;
  readonly persistent: EncodedMetrics;
  /** After this instant the live series are stale and leave the output. */
  readonly freshUntilMs: number;
}

/** One metric family's parts (HELP and TYPE, then each target's lines), as last assembled. */
interface Family {
  /** Each target's lines of the family, in order. */
  readonly lines: readonly EncodedLines[];
  /** The plain parts, made at the family's first plain scrape. */
  identity: readonly Buffer[] | undefined;
  /** The gzip members, in the order of the plain parts. */
  readonly members: readonly Buffer[];
  /**
   * The members as one buffer, made at the family's first gzip scrape (a scrape that writes
   * hundreds of small buffers spends more on the writes than on the bytes), and carried over to
   * the family assembled next while its members are the same ones.
   */
  gzip: Buffer | undefined;
  /** The family must be assembled again at this instant: when a live part goes stale, or at once after a publication. */
  validUntilMs: number;
}

const TARGET_METRICS = ALL_METRICS.filter((metric) => metric.source !== "exporter" && metric.source !== "agreement");

function headerText(metric: MetricDefinition): string {
  const help = metric.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
  return `# HELP ${metric.name} ${help}\n# TYPE ${metric.name} ${metric.type}\n`;
}

/**
 * Renders a target's samples with the lines of its previous publication lent, then compresses each
 * piece, keeping the compressed form of a piece the rendering kept (it hands back the previous
 * publication's piece itself, or undefined where that held no plain lines, when the bytes are the
 * same): unchanged pools cost no compression. Without `keepPlain`, only the gzip members are kept
 * (and the plain lines of an empty piece, which cost nothing).
 */
async function renderEncoded(
  target: string,
  samples: readonly SeriesSource[],
  previous: EncodedMetrics | undefined,
  keepPlain: boolean,
): Promise<EncodedMetrics> {
  const encoded = new Map<string, EncodedLines>();
  const options = {
    recover: (name: string, index: number) => plainPiece(previous!.get(name)!, index),
    transient: !keepPlain,
  };
  for (const [name, family] of await renderSamples(target, samples, previous, options)) {
    const before = previous?.get(name);
    const gzip: Buffer[] = [];
    const pieces: (Buffer | undefined)[] = [];
    for (const [index, piece] of family.pieces.entries()) {
      const kept = piece === undefined || before?.pieces[index] === piece;
      const replaced = before?.gzip[index];
      gzip.push(
        kept
          ? replaced!
          : await gzipMember(piece, replaced === undefined ? FIRST_PUBLICATION_LEVEL : GZIP_OPTIONS.level),
      );
      pieces.push(keepPlain || piece?.length === 0 ? piece : undefined);
    }
    encoded.set(name, { sources: family.sources, pieces, gzip });
  }
  return encoded;
}

/**
 * The sources of the families the tap wants, in their order. The tap is asked once per family
 * and once per list of a group's families, not once per source: that spares a poll of 10 000
 * pools 50 000 questions.
 */
function tapped(tap: SampleTap, sources: readonly SeriesSource[]): SeriesSource[] {
  const wantedMetric = new Map<MetricDefinition, boolean>();
  const wants = (metric: MetricDefinition) => {
    let wanted = wantedMetric.get(metric);
    if (wanted === undefined) wantedMetric.set(metric, (wanted = tap.wants(metric)));
    return wanted;
  };
  const wantedFamilies = new Map<readonly MetricDefinition[], boolean>();
  const wanted: SeriesSource[] = [];
  for (const source of sources) {
    if (!isSeriesGroup(source)) {
      if (wants(source.metric)) wanted.push(source);
      continue;
    }
    let any = wantedFamilies.get(source.families);
    if (any === undefined) wantedFamilies.set(source.families, (any = source.families.some(wants)));
    if (any) wanted.push(source);
  }
  return wanted;
}

/**
 * Holds every target's series, rendered and compressed once per poll, and each metric family's
 * bytes, assembled once per change of that family. A scrape hands out the cached buffers (one
 * HELP/TYPE per family, every target's series together, as the text format requires), plain or
 * as gzip members, so its cost does not depend on how much work the polls did, and a slow
 * Horizon never slows a scrape.
 */
export class MetricStore {
  /** Per endpoint, per target, in the order targets were added. */
  private readonly published = new Map<PublishedSource, Map<string, Published>>();
  private readonly families = new Map<string, Family>();
  /** Each family's HELP and TYPE lines, plain and as one gzip member. */
  private readonly headers = new Map<string, Readonly<Record<ContentCoding, Buffer>>>();
  /** Per source, per target (`label=name`), the generation of the lease that may write. */
  private readonly generations = new Map<PublishedSource, Map<string, number>>();
  private generation = 0;

  /** Until when publications keep their plain lines: PLAIN_KEPT_MS after the last plain scrape. */
  private plainWantedUntilMs = -Infinity;

  constructor(
    private readonly tap?: SampleTap,
    /** The clock `render` is given the time of. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The right to write one target's series of one source. A newer lease of the same target and
   * source supersedes it, and a retired one writes nothing: a runtime that was stopped (a reload,
   * a removed target) can never bring back what it published, even from a publication already in
   * flight when it stopped.
   */
  lease(name: string, source: PublishedSource, label: TargetLabel = targetLabelOfSource(source)): StoreLease {
    const target: StoreTarget = { label, name };
    const key = `${label}=${name}`;
    const generation = ++this.generation;
    let byTarget = this.generations.get(source);
    if (byTarget === undefined) this.generations.set(source, (byTarget = new Map()));
    byTarget.set(key, generation);
    return {
      publish: (samples, freshUntilMs) => this.publish(target, key, source, generation, samples, freshUntilMs),
      retire: () => this.retire(target, key, source, generation),
    };
  }

  /** Renders and compresses the samples, then replaces the target's series of that source in one step, if the lease is current. */
  private async publish(
    target: StoreTarget,
    key: string,
    source: PublishedSource,
    generation: number,
    samples: CollectorSamples,
    freshUntilMs: number,
  ): Promise<boolean> {
    if (!this.current(key, source, generation)) return false;
    const previous = this.published.get(source)?.get(key);
    const keepPlain = this.now() < this.plainWantedUntilMs;
    const live = await renderEncoded(target.name, samples.live, previous?.live, keepPlain);
    const persistent = await renderEncoded(target.name, samples.persistent, previous?.persistent, keepPlain);
    for (const name of [...live.keys(), ...persistent.keys()]) await this.ensureHeader(name);
    // Rendering took turns of the event loop, in which the lease may have been retired or superseded.
    if (!this.current(key, source, generation)) return false;
    let byTarget = this.published.get(source);
    if (byTarget === undefined) this.published.set(source, (byTarget = new Map()));
    byTarget.set(key, { live, persistent, freshUntilMs });
    this.forget(source);
    const tap = this.tap;
    if (tap !== undefined)
      tap.published(
        target,
        source,
        { live: tapped(tap, samples.live), persistent: tapped(tap, samples.persistent) },
        freshUntilMs,
      );
    return true;
  }

  private current(key: string, source: PublishedSource, generation: number): boolean {
    return this.generations.get(source)?.get(key) === generation;
  }

  /** Forgets the target's series of that source, unless a newer lease has taken it over. */
  private retire(target: StoreTarget, key: string, source: PublishedSource, generation: number): void {
    if (!this.current(key, source, generation)) return;
    this.generations.get(source)!.delete(key);
    if (this.published.get(source)?.delete(key)) this.forget(source);
    this.tap?.removed(target, source);
  }

  /**
   * Makes the plain lines that only their gzip members hold again, on libuv's thread pool, and has
   * publications keep their plain lines from now on (PLAIN_KEPT_MS): a plain scrape that awaits
   * this first renders from held lines, instead of decompressing tens of megabytes on the event loop.
   */
  async holdPlain(nowMs: number): Promise<void> {
    this.plainWantedUntilMs = nowMs + PLAIN_KEPT_MS;
    const recovered: Promise<void>[] = [];
    for (const byTarget of this.published.values()) {
      for (const { live, persistent } of byTarget.values()) {
        for (const lines of [...live.values(), ...persistent.values()]) {
          for (const [index, piece] of lines.pieces.entries()) {
            if (piece === undefined)
              recovered.push(gunzipAsync(lines.gzip[index]!).then((plain) => void (lines.pieces[index] ??= plain)));
          }
        }
      }
    }
    await Promise.all(recovered);
  }

  /**
   * What a scrape sends: `render`, with a plain one's lines made again off the event loop first
   * (holdPlain), so a scrape never decompresses on it.
   */
  async scrape(nowMs: number, coding: ContentCoding): Promise<Buffer[]> {
    if (coding === "identity") await this.holdPlain(nowMs);
    return this.render(nowMs, coding);
  }

  /**
   * The exposition of every target's series, as buffers to be sent one after the other. A plain
   * one makes the plain lines no longer held again from their gzip members (on the event loop;
   * `scrape` does that first off it), and has them kept.
   */
  render(nowMs: number, coding: ContentCoding = "identity"): Buffer[] {
    if (coding === "identity") this.plainWantedUntilMs = nowMs + PLAIN_KEPT_MS;
    const chunks: Buffer[] = [];
    for (const metric of TARGET_METRICS) {
      let family = this.families.get(metric.name);
      if (family === undefined || nowMs >= family.validUntilMs) {
        family = this.assemble(metric, nowMs, family);
        this.families.set(metric.name, family);
      }
      if (coding === "identity")
        for (const part of (family.identity ??= this.identityOf(metric, family))) chunks.push(part);
      else if (family.members.length > 0) chunks.push((family.gzip ??= Buffer.concat(family.members)));
    }
    return chunks;
  }

  private identityOf(metric: MetricDefinition, family: Family): Buffer[] {
    if (family.lines.length === 0) return [];
    const parts = [this.headers.get(metric.name)!.identity];
    for (const lines of family.lines)
      for (let index = 0; index < lines.gzip.length; index += 1) parts.push(plainPiece(lines, index));
    return parts;
  }

  /** The source's families are assembled again at the next scrape; the last ones stay, so their gzip buffers can be kept. */
  private forget(source: PublishedSource): void {
    for (const metric of TARGET_METRICS) {
      const family = metric.source === source ? this.families.get(metric.name) : undefined;
      if (family !== undefined) family.validUntilMs = -Infinity;
    }
  }

  private assemble(metric: MetricDefinition, nowMs: number, previous: Family | undefined): Family {
    let validUntilMs = Infinity;
    const lines: EncodedLines[] = [];
    for (const entry of this.published.get(metric.source as PublishedSource)?.values() ?? []) {
      const persistent = entry.persistent.get(metric.name);
      if (persistent !== undefined) {
        lines.push(persistent);
        continue;
      }
      if (nowMs >= entry.freshUntilMs) continue;
      const live = entry.live.get(metric.name);
      if (live === undefined) continue;
      lines.push(live);
      validUntilMs = Math.min(validUntilMs, entry.freshUntilMs);
    }
    if (lines.length === 0) return { lines, identity: undefined, members: [], gzip: undefined, validUntilMs };
    const header = this.headers.get(metric.name)!;
    const members = [header.gzip, ...lines.flatMap((part) => part.gzip)];
    const same =
      previous !== undefined &&
      previous.members.length === members.length &&
      members.every((member, index) => member === previous.members[index]);
    return { lines, identity: undefined, members, gzip: same ? previous.gzip : undefined, validUntilMs };
  }

  private async ensureHeader(name: string): Promise<void> {
    if (this.headers.has(name)) return;
    const metric = TARGET_METRICS.find((candidate) => candidate.name === name);
    // A name outside the catalog is never rendered, so it needs no header.
    if (metric === undefined) return;
    const plain = Buffer.from(headerText(metric));
    this.headers.set(name, { identity: plain, gzip: await gzipMember(plain) });
  }
}
