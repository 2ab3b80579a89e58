import { DEFAULT_PRIORITY, RUNNABLE_STATUSES, type Status, type StoredRecord } from '@fate/core';
import type { ZkClient } from './zk-client.js';
import { markerBucketOf, type ZkLayout } from './zk-layout.js';
import { removeMarker, repairMarker, touchMarker } from './zk-markers.js';
import type { ZkStat } from './zk-native.js';

/** True for the statuses work finders pick up. */
export function isRunnableStatus(status: string): boolean {
  return RUNNABLE_STATUSES.has(status as Status);
}

/** A record's priority level: its marker's (absent, as every record before issue 25: 0). */
export function levelOf(record: Pick<StoredRecord, 'priority'>): number {
  return record.priority ?? DEFAULT_PRIORITY;
}

/**
 * The runnable hint index: an empty marker znode `runnable/<digit>/<id>` for every record
 * whose status is runnable (or a batch marker standing for it, `zk-batch-markers.ts`), its
 * name carrying the record's priority (`zk-marker-names.ts`), so a scan lists the markers of
 * its (16) buckets and reads only those records, not every finished transaction. Upkeep
 * follows the marker rules of `zk-markers.ts`: touched before a record becomes runnable,
 * removed after it stops being. A record's priority never changes, so its marker's name
 * is fixed from the insert on.
 */
export class ZkRunnableIndex {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;

  constructor(client: ZkClient, layout: ZkLayout) {
    this.#client = client;
    this.#layout = layout;
  }

  /** Touches the marker before `id` (of `priority`) becomes runnable. */
  touch(id: string, priority: number): Promise<void> {
    return touchMarker(
      this.#client,
      this.#layout.marker(id, priority),
      this.#layout.markerBucket(markerBucketOf(id)),
    );
  }

  /**
   * Creates the marker with one request, sent at once: an insert sends it right before
   * the record's create. Anything but 'ok' calls for a `touch` after.
   */
  create(id: string, priority: number): Promise<'ok' | 'exists' | 'nonode'> {
    return this.#client.create(this.#layout.marker(id, priority), '', 0);
  }

  /** The marker's stat, read right behind the write that makes `id` not runnable. */
  stat(id: string, priority: number): Promise<ZkStat | undefined> {
    return this.#client.exists(this.#layout.marker(id, priority));
  }

  /** Removes the marker after `id` stopped being runnable by the write at `recordZxid`. */
  remove(
    id: string,
    priority: number,
    recordZxid: number,
    seen: ZkStat | undefined,
  ): Promise<void> {
    return removeMarker(this.#client, this.#layout.marker(id, priority), recordZxid, seen);
  }

  /**
   * Repairs the marker at `level` of a record a scan found gone (no stat), not runnable, or
   * runnable at another priority (a marker some other version wrote; the caller touched the
   * right one first). `judgedAt`: when the record's read was sent (see `MARKER_SLOW_MS`).
   */
  repair(
    id: string,
    level: number,
    recordStat: ZkStat | undefined,
    judgedAt: number,
  ): Promise<void> {
    return repairMarker(this.#client, this.#layout.marker(id, level), recordStat, false, judgedAt);
  }
}
