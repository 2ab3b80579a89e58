import { RUNNABLE_STATUSES, type Status } from '@fate/core';
import type { ZkClient } from './zk-client.js';
import { markerBucketOf, type ZkLayout } from './zk-layout.js';
import { removeMarker, repairMarker, touchMarker } from './zk-markers.js';
import type { ZkStat } from './zk-native.js';

/** True for the statuses work finders pick up. */
export function isRunnableStatus(status: string): boolean {
  return RUNNABLE_STATUSES.has(status as Status);
}

/**
 * The runnable hint index: an empty marker znode `runnable/<digit>/<id>` for every record
 * whose status is runnable (or a batch marker standing for it, `zk-batch-markers.ts`), so a scan
 * lists the markers of its (16) buckets and reads only those records, not every finished
 * transaction. Upkeep follows the marker rules of `zk-markers.ts`: touched before a record
 * becomes runnable, removed after it stops being.
 */
export class ZkRunnableIndex {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;

  constructor(client: ZkClient, layout: ZkLayout) {
    this.#client = client;
    this.#layout = layout;
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

  /** Repairs the marker of a record a scan found gone (no stat) or not runnable. */
  repair(id: string, recordStat: ZkStat | undefined): Promise<void> {
    return repairMarker(this.#client, this.#layout.marker(id), recordStat, false);
  }
}
