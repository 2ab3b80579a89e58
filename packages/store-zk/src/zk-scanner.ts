import { type BackendScan, type IdRange, inRange } from '@fate/core';
import { type BatchMarker, isBatchName, type ZkBatchMarkers } from './zk-batch-markers.js';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import { bucketsFor, MARKER_BUCKETS, type ZkLayout } from './zk-layout.js';
import type { ZkStat } from './zk-native.js';
import type { ZkRecords } from './zk-records.js';
import { isRunnableStatus, type ZkRunnableIndex } from './zk-runnable-index.js';

/** What a scan learnt about the records it read that are not runnable (index upkeep). */
interface Seen {
  readonly absent: Set<string>;
  readonly notRunnable: Set<string>;
  /** Single markers to repair, with their record's stat when it exists. */
  readonly stale: Array<{ id: string; recordStat?: ZkStat }>;
}

/**
 * Runnable scans: list the marker buckets of the range (single markers and batch
 * markers), then read the marked records in id order until a page is full. Markers the
 * records prove stale are repaired, and batches shrunk, on the way.
 */
export class ZkScanner {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;
  readonly #records: ZkRecords;
  readonly #runnable: ZkRunnableIndex;
  readonly #batches: ZkBatchMarkers;

  constructor(
    client: ZkClient,
    layout: ZkLayout,
    records: ZkRecords,
    runnable: ZkRunnableIndex,
    batches: ZkBatchMarkers,
  ) {
    this.#client = client;
    this.#layout = layout;
    this.#records = records;
    this.#runnable = runnable;
    this.#batches = batches;
  }

  /**
   * One page of runnable ids of `range`, ascending: reads the marked records in id order
   * (a window at a time, pipelined) until `limit` are found, keeping the unreserved ones
   * with a runnable status whose deferral is due by the servers' clock. Each found record
   * is kept in the cache: reserving it next costs one round trip.
   */
  async scan(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    const { singles, batches, listed } = await this.#markers(range);
    const candidates = new Set(singles);
    for (const batch of batches)
      for (const id of batch.ids) if (inRange(id, range)) candidates.add(id);
    const sorted = [...candidates].sort();
    let itemsRead = listed + batches.length;

    const now = this.#client.clock.now();
    const ids: string[] = [];
    const ops: string[] = [];
    const seen: Seen = { absent: new Set(), notRunnable: new Set(), stale: [] };
    let nextDeferralAt: number | undefined;
    let last: string | undefined;
    for (let at = 0; at < sorted.length && ids.length < limit; ) {
      // Most marked records are runnable: read about as many as the page still needs.
      const window = sorted.slice(
        at,
        at + Math.min(PIPELINE_DEPTH, Math.max(limit - ids.length, 8)),
      );
      at += window.length;
      const read = await pipelined(window, PIPELINE_DEPTH, (id) => this.#records.read(id));
      itemsRead += window.length;
      for (const [i, id] of window.entries()) {
        const r = read[i];
        if (!r || !isRunnableStatus(r.record.status)) {
          (r ? seen.notRunnable : seen.absent).add(id);
          if (singles.has(id)) seen.stale.push({ id, ...(r ? { recordStat: r.stat } : {}) });
          continue;
        }
        if (r.record.reservation) continue;
        if (r.record.deferUntil > now) {
          nextDeferralAt = Math.min(nextDeferralAt ?? r.record.deferUntil, r.record.deferUntil);
          continue;
        }
        ids.push(id);
        ops.push(r.op);
        this.#records.saw(id, r);
        if (ids.length === limit) {
          // Ids after it (read or not) are examined again by the next page.
          if (id !== sorted.at(-1)) last = id;
          break;
        }
      }
    }
    itemsRead += await this.#upkeep(seen, batches);
    return {
      ids,
      ops,
      itemsRead,
      ...(nextDeferralAt !== undefined ? { nextDeferralAt } : {}),
      ...(last !== undefined ? { last } : {}),
    };
  }

  /** The single marker ids in range and the batch markers of the range's buckets. */
  async #markers(range: IdRange | undefined) {
    const buckets = bucketsFor(range, MARKER_BUCKETS);
    const lists = await pipelined(buckets, PIPELINE_DEPTH, (b) =>
      this.#client.children(this.#layout.markerBucket(b)),
    );
    const singles = new Set<string>();
    const batchNames: Array<{ bucket: string; names: string[] }> = [];
    let listed = 0;
    buckets.forEach((bucket, i) => {
      const names = lists[i] ?? [];
      listed += names.length;
      const batch = names.filter(isBatchName);
      if (batch.length > 0) batchNames.push({ bucket, names: batch });
      for (const name of names) if (!isBatchName(name) && inRange(name, range)) singles.add(name);
    });
    const batches = (
      await pipelined(batchNames, PIPELINE_DEPTH, (b) => this.#batches.read(b.bucket, b.names))
    ).flat();
    return { singles, batches, listed };
  }

  /**
   * Repairs the stale single markers and shrinks the batches a scan proved stale in part;
   * a failure only leaves them for the next scan. Returns the markers checked.
   */
  async #upkeep(seen: Seen, batches: readonly BatchMarker[]): Promise<number> {
    const touched = batches.filter((b) =>
      b.ids.some((id) => seen.notRunnable.has(id) || seen.absent.has(id)),
    );
    await Promise.all([
      pipelined(seen.stale, PIPELINE_DEPTH, (s) =>
        this.#runnable.repair(s.id, s.recordStat).catch(() => undefined),
      ),
      pipelined(touched, PIPELINE_DEPTH, (b) =>
        this.#batches.shrink(b, seen.notRunnable, seen.absent).catch(() => undefined),
      ),
    ]);
    return seen.stale.length + touched.length;
  }
}
