import type { StoredRecord } from '@fate/core';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import { unavailable } from './zk-errors.js';
import { BUCKETS, bucketOf, type ZkLayout } from './zk-layout.js';
import { millis, type ZkStat } from './zk-native.js';
import { ZkRecordCache } from './zk-record-cache.js';
import {
  checkRequestSize,
  decodeRecord,
  encodeRecord,
  type ReadRecord,
} from './zk-record-codec.js';

/**
 * What an update decides after reading the current record. A `put` with `deferMs`
 * releases with a deferral counted from the write's own mtime (server clock).
 */
export type Decision<T> =
  | { readonly result: T }
  | { readonly result: T; readonly put: StoredRecord; readonly deferMs?: number }
  | { readonly result: T; readonly remove: true };

/** Marker upkeep that an update runs around each attempted write. */
export interface UpdateHooks {
  /** Runs, and is awaited, before each attempted write: to touch a marker first. */
  beforeWrite?(current: ReadRecord, next: StoredRecord | undefined): Promise<void>;
  /**
   * Replaces `beforeWrite` when the first attempt writes without reading first (cached):
   * issued just BEFORE the write on the same session, so the server applies it first,
   * and awaited with it. It must send its one request at once (a single create).
   */
  pairedWrite?(current: ReadRecord, next: StoredRecord | undefined): Promise<unknown>;
  /**
   * Issued right behind each attempted write on the same session (so the server answers
   * it just after the write) and awaited with it: a read of a marker the write may make
   * stale. `next` is undefined for a delete.
   */
  alongWrite?(current: ReadRecord, next: StoredRecord | undefined): Promise<unknown> | undefined;
}

/** What an update did, for the caller's follow-up (markers). */
export interface Applied<T> {
  readonly result: T;
  readonly before?: ReadRecord;
  /** What `alongWrite` answered for the write that took effect. */
  readonly along?: unknown;
  /** What `pairedWrite` answered, when it replaced `beforeWrite` for that write. */
  readonly paired?: unknown;
  /** The record put, and the stat after it. */
  readonly written?: StoredRecord;
  readonly after?: ZkStat;
  readonly removed?: boolean;
}

// Bounds the compare-and-set loop: every retry means another client changed the record
// in between, so many in a row only happen under a pathological storm of writers.
const MAX_ATTEMPTS = 100;

/** Reads and conditionally rewrites transaction znodes. */
export class ZkRecords {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;
  readonly #juteMaxBuffer: number;
  readonly #cache = new ZkRecordCache();

  constructor(client: ZkClient, layout: ZkLayout, juteMaxBuffer: number) {
    this.#client = client;
    this.#layout = layout;
    this.#juteMaxBuffer = juteMaxBuffer;
  }

  /**
   * Caches a record just read that this client may write next (a free one a scan found,
   * to reserve; a held one a cleaner listed, to clear): that write can skip reading it.
   */
  saw(id: string, read: ReadRecord): void {
    this.#cache.saw(id, read);
  }

  async read(id: string): Promise<ReadRecord | undefined> {
    const got = await this.#client.get(this.#layout.record(id));
    return got && decodeRecord(got.data, got.stat);
  }

  /** The znode of a record. */
  path(id: string): string {
    return this.#layout.record(id);
  }

  /** The encoded record, refused as `FATE_PAYLOAD_TOO_LARGE` before anything is sent. */
  encode(id: string, record: StoredRecord, op: string, deferMs?: number): Buffer {
    const data = encodeRecord(record, op, deferMs);
    checkRequestSize(this.#layout.record(id), data, this.#juteMaxBuffer);
    return data;
  }

  /** Creates the record unless one exists (creating its bucket on first use). */
  async create(id: string, data: Buffer): Promise<boolean> {
    const path = this.#layout.record(id);
    let created = await this.#client.create(path, data, 0);
    if (created === 'nonode') {
      await this.#client.create(this.#layout.txBucket(bucketOf(id)), '', 0);
      created = await this.#client.create(path, data, 0);
    }
    if (created === 'exists') return false;
    if (created !== 'ok') throw unavailable(`create ${path}: its bucket is missing`);
    return true;
  }

  /**
   * Read-modify-write of one record, atomic by its znode version: `decide` sees the
   * current record (undefined when absent) and says what to store; a concurrent change
   * (bad version) rereads and decides again, so every check inside `decide` (the
   * reservation fence above all) holds against the version actually replaced.
   * `hooks` keep markers around each attempted write. The first attempt may decide on
   * this client's cached copy (see `ZkRecordCache`): only a write is trusted to it, as the
   * write's version check proves the copy current.
   */
  async update<T>(
    id: string,
    decide: (current: ReadRecord | undefined) => Decision<T>,
    hooks: UpdateHooks = {},
  ): Promise<Applied<T>> {
    const path = this.#layout.record(id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const cached = attempt === 0 ? this.#cache.get(id) : undefined;
      // the first read is behind a sync (see `ZkClient.fresh`): a decision without a write
      // (absent, held) is then as fresh as a write's; a write that failed leaves this
      // session's server at least as new as the version that beat it
      const current =
        cached ?? (await (attempt === 0 ? this.#client.fresh(() => this.read(id)) : this.read(id)));
      const decision = decide(current);
      const writes = 'put' in decision || 'remove' in decision;
      if (cached && !writes) continue; // decide again on what is stored
      if (!current || !writes) {
        return { result: decision.result, ...(current ? { before: current } : {}) };
      }
      const next = 'put' in decision ? decision.put : undefined;
      const deferMs = 'put' in decision ? decision.deferMs : undefined;
      const data = next && this.encode(id, next, current.op, deferMs);
      const paired =
        cached && hooks.pairedWrite
          ? hooks.pairedWrite(current, next).catch(() => 'failed')
          : undefined;
      if (!paired) await hooks.beforeWrite?.(current, next);
      const written = data
        ? this.#client.set(path, data, current.stat.version)
        : this.#client.delete(path, current.stat.version);
      const along = hooks.alongWrite?.(current, next)?.catch(() => undefined);
      const outcome = await written.finally(() => Promise.allSettled([paired, along]));
      const done = {
        before: current,
        along: await along,
        ...(paired ? { paired: await paired } : {}),
      };
      if (next && typeof outcome === 'object') {
        const written = deferMs ? { ...next, deferUntil: millis(outcome.mtime) + deferMs } : next;
        this.#cache.wrote(id, { record: written, op: current.op, stat: outcome });
        return { result: decision.result, ...done, written, after: outcome };
      }
      if (!next && outcome === 'ok') {
        this.#cache.forget(id);
        return { result: decision.result, ...done, removed: true };
      }
      // Changed or gone meanwhile: decide again on what is there now.
      if (cached) this.#cache.forget(id, cached);
    }
    throw unavailable(`${path} changed under ${MAX_ATTEMPTS} attempts in a row to update it`);
  }

  /** Every record id in the given buckets (their child names), ascending. */
  async ids(buckets: readonly string[] = BUCKETS): Promise<string[]> {
    const lists = await pipelined(buckets, PIPELINE_DEPTH, (b) =>
      this.#client.children(this.#layout.txBucket(b)),
    );
    return lists.flatMap((names) => names ?? []).sort();
  }

  /** Every record (pipelined reads); records deleted meanwhile are left out. */
  async all(): Promise<Array<{ id: string; record: StoredRecord }>> {
    const ids = await this.ids();
    const read = await pipelined(ids, PIPELINE_DEPTH, (id) => this.read(id));
    const out: Array<{ id: string; record: StoredRecord }> = [];
    ids.forEach((id, i) => {
      const r = read[i];
      if (r) out.push({ id, record: r.record });
    });
    return out;
  }
}
