import type { ReadRecord } from './zk-record-codec.js';

/** Bytes of record data the cache may hold. */
const BUDGET_BYTES = 32 * 1024 * 1024;

/** A random (v4) id: a fresh `newFateId()`, never seeded again once deleted. */
const RANDOM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4/;

/**
 * The last version this client saw of the records it is about to write: those it holds
 * reserved, runnable ones its scans just found free, and held ones its cleaner listed. A
 * holder's writes follow each other (reserve, set status, push, push, release), a scan is
 * followed by reserving what it found and a listing by clearing the dead holders' part of
 * it, so each write can be a single `set` conditional on the cached version
 * instead of a read and a set: if that version is still current, the cached record is
 * exactly what is stored, and the fence check made on it holds. Any other outcome falls
 * back to reading the record.
 *
 * A version proves the copy current only within one incarnation of the znode: a record
 * deleted and created again (a keyed transaction — a name-based id — seeded again after
 * its delete) starts over at version 0, so a copy cached from before (a claimer paused
 * after its scan, a holder judged dead while paused) would match the new record's version
 * sooner or later and be written over it, with its priority, stack and reservation. The
 * binding has no multi-op to check the creation zxid too, so only random (v4) ids are
 * cached: a random id is created once (its insert, or the guard's repeat of it). Keyed
 * records cost a read before each write.
 */
export class ZkRecordCache {
  readonly #entries = new Map<string, ReadRecord>();
  #bytes = 0;

  get(id: string): ReadRecord | undefined {
    return this.#entries.get(id);
  }

  /** Remembers what was just written, while the record is reserved; forgets it otherwise. */
  wrote(id: string, written: ReadRecord): void {
    this.forget(id);
    if (written.record.reservation) this.#keep(id, written);
  }

  /** Remembers a record just read, likely to be written next. */
  saw(id: string, read: ReadRecord): void {
    this.forget(id);
    this.#keep(id, read);
  }

  #keep(id: string, entry: ReadRecord): void {
    if (!RANDOM_ID.test(id)) return;
    this.#entries.set(id, entry);
    this.#bytes += entry.stat.dataLength;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= BUDGET_BYTES) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.stat.dataLength;
    }
  }

  /** Forgets `id`, or only the given entry when it is still the one cached. */
  forget(id: string, entry?: ReadRecord): void {
    const cached = this.#entries.get(id);
    if (!cached || (entry && cached !== entry)) return;
    this.#entries.delete(id);
    this.#bytes -= cached.stat.dataLength;
  }
}
