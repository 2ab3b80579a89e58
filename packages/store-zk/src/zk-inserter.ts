import { type FateId, type NewRecord, Status } from '@fate/core';
import { type BatchEntry, MAX_BATCH_IDS, type ZkBatchMarkers } from './zk-batch-markers.js';
import type { ZkClient } from './zk-client.js';
import { markerBucketOf } from './zk-layout.js';
import { MARKER_SLOW_MS } from './zk-markers.js';
import type { ZkRecords } from './zk-records.js';
import type { ZkRunnableIndex } from './zk-runnable-index.js';
import { isRunnableStatus, levelOf } from './zk-runnable-index.js';
import type { ZkWakeups } from './zk-wakeups.js';

/** Inserts in flight at once, and their bytes: bounds what the client queues. */
const WINDOW_INSERTS = 512;
const WINDOW_BYTES = 8 * 1024 * 1024;

type Created = 'ok' | 'exists' | 'nonode';

/** One record's requests as sent, answered or not. */
interface Sent {
  readonly id: FateId;
  readonly data: Buffer;
  readonly runnable: boolean;
  /** Its priority level, which names its marker. */
  readonly level: number;
  /** Its runnable marker's create (runnable records only), sent before the record's. */
  readonly marker: Promise<Created | Error> | undefined;
  readonly record: Promise<Created | Error>;
  /** When the record's create was answered (`performance.now()`). */
  readonly replied: { at: number };
}

const settle = (p: Promise<Created>): Promise<Created | Error> =>
  p.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));

/**
 * Inserts records in about one round trip however many there are. The runnable markers
 * go first — one batch marker per marker bucket holding two or more of the runnable
 * records, whatever their priorities (`zk-batch-markers.ts`), a single marker for a record
 * alone in its bucket — then the
 * records' creates, all back to back on the one session, which ZooKeeper applies in
 * order, so a marker always precedes its record (the rule of `zk-markers.ts`) without
 * waiting for it; then one wake-up for the whole batch, sent after every create, so it is
 * applied after them. A batch of N costs N + (at most 2 × 16) + 1 requests. The rare
 * leftovers are fixed after the replies: a marker that already existed (possibly a stale
 * one about to be repaired) or whose answer was lost is touched again as the record's own
 * marker once the record exists; a missing bucket (the setup creates them all, so only a
 * hand-made change) is created and the insert retried in order.
 *
 * A lost reply: the guard repeats the call; the records that were created answer false
 * (the guard then reads them), and their markers were applied before them.
 */
export class ZkInserter {
  readonly #client: ZkClient;
  readonly #records: ZkRecords;
  readonly #runnable: ZkRunnableIndex;
  readonly #batches: ZkBatchMarkers;
  readonly #wakeups: ZkWakeups;

  constructor(
    client: ZkClient,
    records: ZkRecords,
    markers: { runnable: ZkRunnableIndex; batches: ZkBatchMarkers },
    wakeups: ZkWakeups,
  ) {
    this.#client = client;
    this.#records = records;
    this.#runnable = markers.runnable;
    this.#batches = markers.batches;
    this.#wakeups = wakeups;
  }

  async insertMany(items: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    // Everything is encoded (and size-checked) before anything is sent.
    const encoded = items.map(({ id, record }) => ({
      id,
      runnable: isRunnableStatus(record.status),
      level: levelOf(record),
      // a deferral counts from the create's own mtime: the server's clock, no estimate
      data: this.#records.encode(
        id,
        { ...record, reservation: null, deferUntil: 0 },
        record.op,
        record.deferMs || undefined,
      ),
    }));
    // Before any marker is sent: a record created more than MARKER_SLOW_MS after this (a
    // long batch, a pause) has its marker touched again once it exists, as a scan may have
    // judged the marker old, or the record absent from its batch, meanwhile.
    const startedAt = performance.now();
    const { batched, complete } = this.#sendBatchMarkers(encoded.filter((e) => e.runnable));
    const sent: Sent[] = [];
    let bytes = 0;
    let waited = 0;
    for (const item of encoded) {
      while (sent.length - waited >= WINDOW_INSERTS || bytes > WINDOW_BYTES) {
        const oldest = sent[waited++] as Sent;
        await oldest.record;
        bytes -= oldest.data.length;
      }
      const marker = item.runnable
        ? (batched.get(item.id) ?? settle(this.#runnable.create(item.id, item.level)))
        : undefined;
      const replied = { at: Number.POSITIVE_INFINITY };
      const record = settle(this.#client.create(this.#records.path(item.id), item.data, 0));
      sent.push({
        id: item.id,
        data: item.data,
        runnable: item.runnable,
        level: item.level,
        marker,
        replied,
        record: record.finally(() => {
          replied.at = performance.now();
        }),
      });
      bytes += item.data.length;
    }
    const completed = complete.map((send) => send().catch(() => undefined));
    // Sent after every create of the batch, so applied after them: one wake-up for all,
    // not awaited. A lost wake-up only delays other clients to their next scan, while
    // failing here would make the caller seed the work twice.
    if (items.some(({ record }) => record.status === Status.SUBMITTED)) {
      this.#wakeups.publish().catch(() => undefined);
    }
    const results = await Promise.all(sent.map((s) => this.#finish(s, startedAt)));
    await Promise.all(completed);
    const failed = results.find((r): r is Error => r instanceof Error);
    if (failed) throw failed;
    return results as boolean[];
  }

  /**
   * Sends a batch marker for each marker bucket holding two or more of `items`: the create
   * that marks each id at its priority (a single marker for an id alone in its bucket is
   * sent later, right before its record), and what completes each batch once its records
   * were sent.
   */
  #sendBatchMarkers(items: ReadonlyArray<{ id: FateId; level: number }>): {
    batched: Map<FateId, Promise<Created | Error>>;
    complete: Array<() => Promise<unknown>>;
  } {
    const byBucket = new Map<string, BatchEntry[]>();
    for (const { id, level } of items) {
      const bucket = markerBucketOf(id);
      const inBucket = byBucket.get(bucket) ?? [];
      inBucket.push({ id, priority: level });
      byBucket.set(bucket, inBucket);
    }
    const batched = new Map<FateId, Promise<Created | Error>>();
    const complete: Array<() => Promise<unknown>> = [];
    for (const [bucket, inBucket] of byBucket) {
      if (inBucket.length < 2) continue;
      for (let at = 0; at < inBucket.length; at += MAX_BATCH_IDS) {
        const chunk = inBucket.slice(at, at + MAX_BATCH_IDS);
        const batch = this.#batches.create(bucket, chunk);
        const created = settle(batch.created);
        for (const { id } of chunk) batched.set(id as FateId, created);
        complete.push(batch.complete);
      }
    }
    return { batched, complete };
  }

  /**
   * The answer for one record once its replies are in, after any fix-up: its marker is
   * touched again when its create was not 'ok', or answered more than `MARKER_SLOW_MS`
   * after `startedAt` (when the markers were sent).
   */
  async #finish(s: Sent, startedAt: number): Promise<boolean | Error> {
    const [marker, record] = await Promise.all([s.marker, s.record]);
    try {
      if (record === 'nonode') {
        // Its bucket is missing: in order again, marker first.
        if (s.runnable) await this.#runnable.touch(s.id, s.level);
        return await this.#records.create(s.id, s.data);
      }
      if (record instanceof Error) return record;
      const slow = s.replied.at - startedAt > MARKER_SLOW_MS;
      if (record === 'ok' && s.runnable && (marker !== 'ok' || slow)) {
        await this.#runnable.touch(s.id, s.level);
      }
      return record === 'ok';
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}
