import { randomUUID } from 'node:crypto';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import type { ZkLayout } from './zk-layout.js';
import { batchName, levelFrom, parseRunnableName } from './zk-marker-names.js';
import { MARKER_GRACE_MS, recentJudgement } from './zk-markers.js';
import { millis, type ZkStat } from './zk-native.js';

/** Ids one batch marker holds at most (at most 40 bytes a line: well under a znode's limit). */
export const MAX_BATCH_IDS = 4_096;

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The last line of a batch written after all its records' creates: see `complete`. */
const COMPLETE = 'end';

/** An id a batch marks, at the priority it was inserted with. */
export interface BatchEntry {
  readonly id: string;
  readonly priority: number;
}

/** A batch marker as read: the ids it still marks, and the stat to rewrite it at. */
export interface BatchMarker {
  readonly path: string;
  /** Its lines carry priorities (`~p~<uuid>`); else every id is at 0. */
  readonly levels: boolean;
  readonly entries: readonly BatchEntry[];
  /** Every record create of the batch was applied before this marker was last written. */
  readonly complete: boolean;
  readonly stat: ZkStat;
}

function encode(entries: readonly BatchEntry[], levels: boolean, complete: boolean): string {
  const lines = entries.map((e) => (levels ? `${e.priority} ${e.id}` : e.id));
  return [...lines, ...(complete ? [COMPLETE] : [])].join('\n');
}

/** The entries of a batch's lines (`<id>`, or `<level> <id>` with `levels`); others skipped. */
function decode(lines: readonly string[], levels: boolean): BatchEntry[] {
  const out: BatchEntry[] = [];
  for (const line of lines) {
    if (!levels) {
      if (ID.test(line)) out.push({ id: line, priority: 0 });
      continue;
    }
    const at = line.indexOf(' ');
    const priority = levelFrom(line.slice(0, at));
    const id = line.slice(at + 1);
    if (at > 0 && priority !== undefined && ID.test(id)) out.push({ id, priority });
  }
  return out;
}

/**
 * Batch markers: one runnable marker `runnable/<hex>/~<uuid>` for many records of a batch
 * insert in that bucket, its data their ids, one per line; `~p~<uuid>` when any of them has
 * a priority other than 0, each line then `<level> <id>` (`zk-marker-names.ts`), so a batch
 * of mixed priorities still costs one marker per bucket. It stands for each id's own
 * marker under the rules of `zk-markers.ts`: created before the records (sent first on
 * the one session), so a batch insert costs one create per record plus two per bucket
 * instead of two per record. A record that stops being runnable leaves its batch as it
 * is; scans drop it later: an id whose record they read as not runnable, or absent once
 * the batch is complete or older than the grace period (by the servers' clock), is
 * written out of the batch at the version read, and an empty batch is deleted. That is safe because a record
 * only becomes runnable again through a write that touches its own marker first.
 */
export class ZkBatchMarkers {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;

  constructor(client: ZkClient, layout: ZkLayout) {
    this.#client = client;
    this.#layout = layout;
  }

  /**
   * Creates a batch marker for `entries`, all of marker bucket `bucket`; sent at once,
   * before the records' creates. `complete()` is to be called once those were sent.
   */
  create(
    bucket: string,
    entries: readonly BatchEntry[],
  ): { created: Promise<'ok' | 'exists' | 'nonode'>; complete: () => Promise<unknown> } {
    const levels = entries.some((e) => e.priority !== 0);
    const path = `${this.#layout.markerBucket(bucket)}/${batchName(randomUUID(), levels)}`;
    const unique = [...new Map(entries.map((e) => [e.id, e])).values()];
    return {
      created: this.#client.create(path, encode(unique, levels, false), 0),
      // Sent after the records' creates on the same session, so applied after all of
      // them: from then on a record of the batch that is absent was deleted (or its
      // create failed for good), and scans drop it at once instead of after the grace
      // period. A session lost in between leaves the batch incomplete, never wrong.
      complete: () => this.#client.set(path, encode(unique, levels, true), 0),
    };
  }

  /** Reads the batch markers of one bucket's listing (gone ones are left out). */
  async read(bucket: string, names: readonly string[]): Promise<BatchMarker[]> {
    const paths = names.map((name) => `${this.#layout.markerBucket(bucket)}/${name}`);
    const got = await pipelined(paths, PIPELINE_DEPTH, (path) => this.#client.get(path));
    const out: BatchMarker[] = [];
    paths.forEach((path, i) => {
      const node = got[i];
      if (!node) return;
      const parsed = parseRunnableName(names[i] as string);
      const levels = parsed?.kind === 'batch' && parsed.levels;
      const lines = node.data.toString('utf8').split('\n');
      const entries = decode(lines, levels);
      out.push({ path, levels, entries, complete: lines.at(-1) === COMPLETE, stat: node.stat });
    });
    return out;
  }

  /**
   * Writes out of `batch` the ids a scan found `done`: not runnable (or runnable at another
   * priority, once their own marker at it exists), and `absent` ones once the batch
   * is complete or past the grace period (their insert failed, or they were deleted) — the
   * latter only when they were read at `judgedAt` at most `MARKER_SLOW_MS` ago (a paused
   * scan's "absent" may predate a late create). At the version read: a batch changed
   * meanwhile is left to the next scan.
   */
  async shrink(
    batch: BatchMarker,
    done: (entry: BatchEntry) => boolean,
    absent: ReadonlySet<string>,
    judgedAt: number,
  ): Promise<void> {
    const over =
      batch.complete ||
      (this.#client.clock.now() - millis(batch.stat.mtime) > MARKER_GRACE_MS &&
        recentJudgement(judgedAt));
    const left = batch.entries.filter((e) => !done(e) && !(over && absent.has(e.id)));
    if (left.length === batch.entries.length) return;
    if (left.length === 0) await this.#client.delete(batch.path, batch.stat.version);
    else {
      const data = encode(left, batch.levels, batch.complete);
      await this.#client.set(batch.path, data, batch.stat.version);
    }
  }
}
