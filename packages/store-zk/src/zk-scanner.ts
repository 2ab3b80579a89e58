import type { BackendScan, IdRange, RunnablePosition } from '@fate/core';
import type { BatchMarker, ZkBatchMarkers } from './zk-batch-markers.js';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import type { ZkLayout } from './zk-layout.js';
import type { ZkStat } from './zk-native.js';
import type { ReadRecord } from './zk-record-codec.js';
import type { ZkRecords } from './zk-records.js';
import { type Candidate, listCandidates, placeKey } from './zk-runnable-candidates.js';
import { isRunnableStatus, levelOf, type ZkRunnableIndex } from './zk-runnable-index.js';

/** What a scan learnt about the marks it read that are not right (index upkeep). */
interface Seen {
  readonly absent: Set<string>;
  readonly notRunnable: Set<string>;
  /** The level of each runnable record read: a mark at another level is misplaced. */
  readonly levels: Map<string, number>;
  /** Single markers to repair (stale, or misplaced), with their record's stat when it exists. */
  readonly stale: Array<{ id: string; level: number; recordStat?: ZkStat }>;
}

/**
 * Runnable scans: list the marker buckets of the range (single markers and batch
 * markers, which say each id's priority), order the marked ids by `(priority
 * descending, id ascending)`, then read the marked records in that order until a page is
 * full. Markers the records prove stale are repaired, and batches shrunk, on the way.
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
   * One page of runnable ids of `range` in the runnable order, from just after `after`:
   * reads the marked records in that order (a window at a time, pipelined) until `limit`
   * are found, keeping the unreserved ones with a runnable status whose deferral is due by
   * the servers' clock and whose priority is the one their mark names. Each found record
   * is kept in the cache: reserving it next costs one round trip.
   */
  async scan(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    const {
      ordered,
      marked,
      batches,
      itemsRead: listed,
    } = await listCandidates(this.#client, this.#layout, this.#batches, range, after);
    let itemsRead = listed;
    const now = this.#client.clock.now();
    const ids: string[] = [];
    const ops: string[] = [];
    const priorities: number[] = [];
    const seen: Seen = { absent: new Set(), notRunnable: new Set(), levels: new Map(), stale: [] };
    const read = new Map<string, ReadRecord | undefined>();
    let nextDeferralAt: number | undefined;
    let last: Candidate | undefined;
    // Before any record read is sent: how old the scan's judgements are when it repairs.
    const judgedAt = performance.now();
    for (let at = 0; at < ordered.length && ids.length < limit; ) {
      // Most marked records are runnable: read about as many as the page still needs.
      const window = ordered.slice(
        at,
        at + Math.min(PIPELINE_DEPTH, Math.max(limit - ids.length, 8)),
      );
      at += window.length;
      const unread = [...new Set(window.map((c) => c.id))].filter((id) => !read.has(id));
      const got = await pipelined(unread, PIPELINE_DEPTH, (id) => this.#records.read(id));
      for (const [i, id] of unread.entries()) read.set(id, got[i]);
      itemsRead += unread.length;
      for (const [i, c] of window.entries()) {
        const r = read.get(c.id);
        if (!r || !isRunnableStatus(r.record.status)) {
          (r ? seen.notRunnable : seen.absent).add(c.id);
          if (c.single) {
            seen.stale.push({ id: c.id, level: c.priority, ...(r ? { recordStat: r.stat } : {}) });
          }
          continue;
        }
        const level = levelOf(r.record);
        seen.levels.set(c.id, level);
        if (level !== c.priority) {
          // Marked at another level (by another version): found under its own next time.
          if (c.single) seen.stale.push({ id: c.id, level: c.priority, recordStat: r.stat });
          continue;
        }
        if (r.record.reservation) continue;
        if (r.record.deferUntil > now) {
          nextDeferralAt = Math.min(nextDeferralAt ?? r.record.deferUntil, r.record.deferUntil);
          continue;
        }
        ids.push(c.id);
        ops.push(r.op);
        priorities.push(level);
        this.#records.saw(c.id, r);
        if (ids.length === limit) {
          // Places after it (read or not) are examined again by the next page.
          if (at - window.length + i < ordered.length - 1) last = c;
          break;
        }
      }
    }
    itemsRead += await this.#upkeep(seen, marked, batches, judgedAt);
    return {
      ids,
      ops,
      priorities,
      itemsRead,
      ...(nextDeferralAt !== undefined ? { nextDeferralAt } : {}),
      ...(last !== undefined ? { last: last.id, lastPriority: last.priority } : {}),
    };
  }

  /**
   * Repairs the stale single markers and shrinks the batches a scan proved stale in part;
   * a failure only leaves them for the next scan. A record read through a mark at a level
   * not its own (another version's) gets its own marker first (touched, unless listed), and
   * only then loses the other. `judgedAt`: when the scan's first record read was sent (a
   * paused scan repairs nothing by age: `MARKER_SLOW_MS`). Returns the markers checked.
   */
  async #upkeep(
    seen: Seen,
    marked: ReadonlySet<string>,
    batches: readonly BatchMarker[],
    judgedAt: number,
  ): Promise<number> {
    // Every record read was read through some mark: not through its own level's, then another.
    const unmarked = [...seen.levels].filter(([id, level]) => !marked.has(placeKey(level, id)));
    const touched = await pipelined(unmarked, PIPELINE_DEPTH, ([id, level]) =>
      this.#runnable.touch(id, level).then(
        () => true,
        () => false,
      ),
    );
    const unsure = new Set(unmarked.filter((_, i) => !touched[i]).map(([id]) => id));
    const done = (id: string, level: number) => {
      if (seen.notRunnable.has(id)) return true;
      const own = seen.levels.get(id);
      return own !== undefined && own !== level && !unsure.has(id);
    };
    const stale = seen.stale.filter((s) => !unsure.has(s.id));
    const shrunk = batches.filter((b) =>
      b.entries.some((e) => done(e.id, e.priority) || seen.absent.has(e.id)),
    );
    await Promise.all([
      pipelined(stale, PIPELINE_DEPTH, (s) =>
        this.#runnable.repair(s.id, s.level, s.recordStat, judgedAt).catch(() => undefined),
      ),
      pipelined(shrunk, PIPELINE_DEPTH, (b) =>
        this.#batches
          .shrink(b, (e) => done(e.id, e.priority), seen.absent, judgedAt)
          .catch(() => undefined),
      ),
    ]);
    return unmarked.length + stale.length + shrunk.length;
  }
}
