import {
  type BackendScan,
  type IdRange,
  inRange,
  RUNNABLE_STATUSES,
  type Status,
} from '@fate/core';
import type { ZkClient } from './zk-client.js';
import { bucketsFor, MARKER_BUCKETS, markerBucketOf, type ZkLayout } from './zk-layout.js';
import { removeMarker, repairMarker, touchMarker } from './zk-markers.js';
import type { ZkStat } from './zk-native.js';
import { PIPELINE_DEPTH, pipelined } from './zk-pipeline.js';
import type { ZkRecords } from './zk-records.js';

/** True for the statuses work finders pick up. */
export function isRunnableStatus(status: string): boolean {
  return RUNNABLE_STATUSES.has(status as Status);
}

/**
 * The runnable hint index: an empty marker znode `runnable/<digit>/<id>` for every record
 * whose status is runnable, so a scan lists the markers of its (16) buckets and reads only those
 * records, not every finished transaction. Upkeep follows the marker rules of
 * `zk-markers.ts`: touched before a record becomes runnable, removed after it stops being.
 */
export class ZkRunnableIndex {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;
  readonly #records: ZkRecords;

  constructor(client: ZkClient, layout: ZkLayout, records: ZkRecords) {
    this.#client = client;
    this.#layout = layout;
    this.#records = records;
  }

  /** Touches the marker before `id` becomes runnable. */
  touch(id: string): Promise<void> {
    return touchMarker(
      this.#client,
      this.#layout.marker(id),
      this.#layout.markerBucket(markerBucketOf(id)),
    );
  }

  /**
   * Creates the marker with one request, sent at once: an insert sends it right before
   * the record's create. Anything but 'ok' calls for a `touch` after.
   */
  create(id: string): Promise<'ok' | 'exists' | 'nonode'> {
    return this.#client.create(this.#layout.marker(id), '', 0);
  }

  /** The marker's stat, read right behind the write that makes `id` not runnable. */
  stat(id: string): Promise<ZkStat | undefined> {
    return this.#client.exists(this.#layout.marker(id));
  }

  /** Removes the marker after `id` stopped being runnable by the write at `recordZxid`. */
  remove(id: string, recordZxid: number, seen: ZkStat | undefined): Promise<void> {
    return removeMarker(this.#client, this.#layout.marker(id), recordZxid, seen);
  }

  /**
   * One page of runnable ids of `range`, ascending: lists the marker buckets of the range,
   * then reads the marked records in id order (a window at a time, pipelined) until
   * `limit` are found, keeping the unreserved ones with a runnable status whose deferral
   * is due by the servers' clock. Markers of records that are gone or not runnable are
   * repaired on the way. Each found record is kept in the cache: reserving it next costs
   * one round trip.
   */
  async scan(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    const buckets = bucketsFor(range, MARKER_BUCKETS);
    const lists = await pipelined(buckets, PIPELINE_DEPTH, (b) =>
      this.#client.children(this.#layout.markerBucket(b)),
    );
    let itemsRead = 0;
    const candidates: string[] = [];
    for (const names of lists) {
      itemsRead += names?.length ?? 0;
      for (const id of names ?? []) if (inRange(id, range)) candidates.push(id);
    }
    candidates.sort();

    const now = this.#client.clock.now();
    const ids: string[] = [];
    const ops: string[] = [];
    const stale: Array<{ id: string; recordStat?: ZkStat }> = [];
    let nextDeferralAt: number | undefined;
    let last: string | undefined;
    for (let at = 0; at < candidates.length && ids.length < limit; ) {
      // Most marked records are runnable: read about as many as the page still needs.
      const size = Math.min(PIPELINE_DEPTH, Math.max(limit - ids.length, 8));
      const window = candidates.slice(at, at + size);
      at += window.length;
      const read = await pipelined(window, PIPELINE_DEPTH, (id) => this.#records.read(id));
      itemsRead += window.length;
      for (const [i, id] of window.entries()) {
        const r = read[i];
        if (!r || !isRunnableStatus(r.record.status)) {
          stale.push({ id, ...(r ? { recordStat: r.stat } : {}) });
          continue;
        }
        if (r.record.reservation) continue;
        if (r.record.deferUntil > now) {
          nextDeferralAt = Math.min(nextDeferralAt ?? r.record.deferUntil, r.record.deferUntil);
          continue;
        }
        ids.push(id);
        ops.push(r.op);
        this.#records.sawFree(id, r);
        if (ids.length === limit) {
          // Ids after it (read or not) are examined again by the next page.
          if (id !== candidates.at(-1)) last = id;
          break;
        }
      }
    }
    await pipelined(stale, PIPELINE_DEPTH, (s) =>
      repairMarker(this.#client, this.#layout.marker(s.id), s.recordStat, false),
    );
    itemsRead += stale.length;
    return {
      ids,
      ops,
      itemsRead,
      ...(nextDeferralAt !== undefined ? { nextDeferralAt } : {}),
      ...(last !== undefined ? { last } : {}),
    };
  }
}
