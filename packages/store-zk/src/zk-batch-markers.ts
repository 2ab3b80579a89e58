import { randomUUID } from 'node:crypto';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import type { ZkLayout } from './zk-layout.js';
import { MARKER_GRACE_MS } from './zk-markers.js';
import { millis, type ZkStat } from './zk-native.js';

/** Batch marker names start with this: never a hex digit, so never an id. */
const BATCH_PREFIX = '~';

/** Ids one batch marker holds at most (37 bytes each: well under a znode's limit). */
export const MAX_BATCH_IDS = 4_096;

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The last line of a batch written after all its records' creates: see `complete`. */
const COMPLETE = 'end';

/** A batch marker as read: the ids it still marks, and the stat to rewrite it at. */
export interface BatchMarker {
  readonly path: string;
  readonly ids: readonly string[];
  /** Every record create of the batch was applied before this marker was last written. */
  readonly complete: boolean;
  readonly stat: ZkStat;
}

const encode = (ids: readonly string[], complete: boolean): string =>
  [...ids, ...(complete ? [COMPLETE] : [])].join('\n');

/** True for the name of a batch marker in a runnable bucket listing. */
export function isBatchName(name: string): boolean {
  return name.startsWith(BATCH_PREFIX);
}

/**
 * Batch markers: one runnable marker `runnable/<hex>/~<uuid>` for many records of a batch
 * insert in that bucket, its data their ids, one per line. It stands for each id's own
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
   * Creates a batch marker for `ids`, all of marker bucket `bucket`; sent at once, before
   * the records' creates. `complete()` is to be called once those were sent.
   */
  create(
    bucket: string,
    ids: readonly string[],
  ): { created: Promise<'ok' | 'exists' | 'nonode'>; complete: () => Promise<unknown> } {
    const path = `${this.#layout.markerBucket(bucket)}/${BATCH_PREFIX}${randomUUID()}`;
    const unique = [...new Set(ids)];
    return {
      created: this.#client.create(path, encode(unique, false), 0),
      // Sent after the records' creates on the same session, so applied after all of
      // them: from then on a record of the batch that is absent was deleted (or its
      // create failed for good), and scans drop it at once instead of after the grace
      // period. A session lost in between leaves the batch incomplete, never wrong.
      complete: () => this.#client.set(path, encode(unique, true), 0),
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
      const lines = node.data.toString('utf8').split('\n');
      const ids = lines.filter((id) => ID.test(id));
      out.push({ path, ids, complete: lines.at(-1) === COMPLETE, stat: node.stat });
    });
    return out;
  }

  /**
   * Writes out of `batch` the ids a scan found done: `notRunnable` ones, and `absent`
   * ones once the batch is complete or past the grace period (their insert failed, or
   * they were deleted). At the version read: a batch changed meanwhile is left to the next
   * scan.
   */
  async shrink(
    batch: BatchMarker,
    notRunnable: ReadonlySet<string>,
    absent: ReadonlySet<string>,
  ): Promise<void> {
    const over =
      batch.complete || this.#client.clock.now() - millis(batch.stat.mtime) > MARKER_GRACE_MS;
    const left = batch.ids.filter((id) => !notRunnable.has(id) && !(over && absent.has(id)));
    if (left.length === batch.ids.length) return;
    if (left.length === 0) await this.#client.delete(batch.path, batch.stat.version);
    else await this.#client.set(batch.path, encode(left, batch.complete), batch.stat.version);
  }
}
