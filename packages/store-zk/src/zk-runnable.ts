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
import { PIPELINE_DEPTH, pipelined, type ZkRecords } from './zk-records.js';

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

  /** The marker's stat, read right behind the write that makes `id` not runnable. */
  stat(id: string): Promise<ZkStat | undefined> {
    return this.#client.exists(this.#layout.marker(id));
  }

  /** Removes the marker after `id` stopped being runnable by the write at `recordZxid`. */
  remove(id: string, recordZxid: number, seen: ZkStat | undefined): Promise<void> {
    return removeMarker(this.#client, this.#layout.marker(id), recordZxid, seen);
  }

  /**
   * Runnable ids of `range`: lists the marker buckets of the range, reads the marked records
   * (pipelined) and keeps the unreserved, undeferred ones with a runnable status. Markers of
   * records that are gone or not runnable are repaired on the way.
   */
  async scan(range: IdRange | undefined, now: number): Promise<BackendScan> {
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
    const read = await pipelined(candidates, PIPELINE_DEPTH, (id) => this.#records.read(id));
    itemsRead += candidates.length;

    const ids: string[] = [];
    const stale: Array<{ id: string; recordStat?: ZkStat }> = [];
    let nextDeferralAt: number | undefined;
    candidates.forEach((id, i) => {
      const r = read[i];
      if (!r || !isRunnableStatus(r.record.status)) {
        stale.push({ id, ...(r ? { recordStat: r.stat } : {}) });
        return;
      }
      if (r.record.reservation) return;
      if (r.record.deferUntil > now) {
        nextDeferralAt = Math.min(nextDeferralAt ?? r.record.deferUntil, r.record.deferUntil);
        return;
      }
      ids.push(id);
      this.#records.sawFree(id, r);
    });
    await pipelined(stale, PIPELINE_DEPTH, (s) =>
      repairMarker(this.#client, this.#layout.marker(s.id), s.recordStat, false),
    );
    itemsRead += stale.length;
    return { ids, itemsRead, ...(nextDeferralAt ? { nextDeferralAt } : {}) };
  }
}
