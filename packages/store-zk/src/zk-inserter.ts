import { type FateId, type NewRecord, Status } from '@fate/core';
import { MAX_BATCH_IDS, type ZkBatchMarkers } from './zk-batch-markers.js';
import type { ZkClient } from './zk-client.js';
import { markerBucketOf } from './zk-layout.js';
import type { ZkRecords } from './zk-records.js';
import type { ZkRunnableIndex } from './zk-runnable-index.js';
import { isRunnableStatus } from './zk-runnable-index.js';
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
  /** Its runnable marker's create (runnable records only), sent before the record's. */
  readonly marker: Promise<Created | Error> | undefined;
  readonly record: Promise<Created | Error>;
}

const settle = (p: Promise<Created>): Promise<Created | Error> =>
  p.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));

/**
 * Inserts records in about one round trip however many there are. The runnable markers
 * go first — one batch marker per marker bucket holding two or more of the runnable
 * records (`zk-batch-markers.ts`), a single marker for a record alone in its bucket — then the
 * records' creates, all back to back on the one session, which ZooKeeper applies in
 * order, so a marker always precedes its record (the rule of `zk-markers.ts`) without
 * waiting for it; then one wake-up for the whole batch, sent after every create, so it is
 * applied after them. A batch of N costs N + (at most 16) + 1 requests. The rare
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
      // a deferral counts from the create's own mtime: the server's clock, no estimate
      data: this.#records.encode(
        id,
        { ...record, reservation: null, deferUntil: 0 },
        record.op,
        record.deferMs || undefined,
      ),
    }));
    const { batched, complete } = this.#sendBatchMarkers(
      encoded.filter((e) => e.runnable).map((e) => e.id),
    );
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
        ? (batched.get(item.id) ?? settle(this.#runnable.create(item.id)))
        : undefined;
      sent.push({
        ...item,
        marker,
        record: settle(this.#client.create(this.#records.path(item.id), item.data, 0)),
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
    const results = await Promise.all(sent.map((s) => this.#finish(s)));
    await Promise.all(completed);
    const failed = results.find((r): r is Error => r instanceof Error);
    if (failed) throw failed;
    return results as boolean[];
  }

  /**
   * Sends a batch marker for each marker bucket holding two or more of `ids`: the create
   * that marks each id (a single marker for an id alone in its bucket is sent later,
   * right before its record), and what completes each batch once its records were sent.
   */
  #sendBatchMarkers(ids: readonly FateId[]): {
    batched: Map<FateId, Promise<Created | Error>>;
    complete: Array<() => Promise<unknown>>;
  } {
    const byBucket = new Map<string, FateId[]>();
    for (const id of ids) {
      const bucket = markerBucketOf(id);
      byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), id]);
    }
    const batched = new Map<FateId, Promise<Created | Error>>();
    const complete: Array<() => Promise<unknown>> = [];
    for (const [bucket, inBucket] of byBucket) {
      if (inBucket.length < 2) continue;
      for (let at = 0; at < inBucket.length; at += MAX_BATCH_IDS) {
        const chunk = inBucket.slice(at, at + MAX_BATCH_IDS);
        const batch = this.#batches.create(bucket, chunk);
        const created = settle(batch.created);
        for (const id of chunk) batched.set(id, created);
        complete.push(batch.complete);
      }
    }
    return { batched, complete };
  }

  /** The answer for one record once its replies are in, after any fix-up. */
  async #finish(s: Sent): Promise<boolean | Error> {
    const [marker, record] = await Promise.all([s.marker, s.record]);
    try {
      if (record === 'nonode') {
        // Its bucket is missing: in order again, marker first.
        if (s.runnable) await this.#runnable.touch(s.id);
        return await this.#records.create(s.id, s.data);
      }
      if (record instanceof Error) return record;
      if (record === 'ok' && s.runnable && marker !== 'ok') await this.#runnable.touch(s.id);
      return record === 'ok';
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}
