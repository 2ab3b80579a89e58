import { EventEmitter } from 'node:events';
import type { InstanceRecord, StoredRecord } from '../contract/backend.js';
import type { FinishedEntry } from '../contract/backend-queries.js';

/** A record with the op name kept beside it, as the runnable index of a real store would. */
export type Entry = StoredRecord & {
  readonly op: string;
  /** The age-off index entry: when it finished (store clock) and its own retention. */
  readonly finished?: { readonly at: number; readonly retainMs?: number } | undefined;
};

/**
 * The shared data of one in-memory namespace. Every change of a record goes through `put`
 * and `remove`, which keep the counts by status and op exact and the finished index in step.
 */
export class MemorySpace {
  readonly records = new Map<string, Entry>();
  /** Records by `status \0 op`. */
  readonly counts = new Map<string, number>();
  /** Finished records' ids (the age-off index; due ones are picked from it). */
  readonly finished = new Set<string>();
  /** Held reservations: uuid → id (a repeated claim finds what it took by its uuids). */
  readonly held = new Map<string, string>();
  /** Every id, sorted; rebuilt lazily after inserts (deleted ids are skipped when read). */
  #sorted: string[] | undefined;

  sortedIds(): string[] {
    this.#sorted ??= [...this.records.keys()].sort();
    return this.#sorted;
  }

  put(id: string, entry: Entry): void {
    const old = this.records.get(id);
    if (old) this.#count(old, -1);
    else this.#sorted = undefined;
    if (old?.reservation) this.held.delete(old.reservation.uuid);
    if (entry.reservation) this.held.set(entry.reservation.uuid, id);
    this.records.set(id, entry);
    this.#count(entry, 1);
    if (entry.finished) this.finished.add(id);
    else this.finished.delete(id);
  }

  remove(id: string): void {
    const old = this.records.get(id);
    if (!old) return;
    this.#count(old, -1);
    if (old.reservation) this.held.delete(old.reservation.uuid);
    this.records.delete(id);
    this.finished.delete(id);
  }

  #count(e: Entry, by: number): void {
    const key = `${e.status}\u0000${e.op}`;
    const n = (this.counts.get(key) ?? 0) + by;
    if (n === 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }

  /** Liveness: lock id → state and the time (this process's clock) it may be forgotten. */
  readonly instances = new Map<string, { state: string; forgetAt: number }>();

  /** The liveness records not yet due to be forgotten at `now`; forgets the others. */
  liveInstances(now: number): InstanceRecord[] {
    const out: InstanceRecord[] = [];
    for (const [lockId, { state, forgetAt }] of this.instances) {
      if (forgetAt <= now) this.instances.delete(lockId);
      else out.push({ lockId, state });
    }
    return out;
  }

  readonly wakeups = new EventEmitter();
}

/** The finished index entry after a write's `finished` (undefined: unchanged). */
export function nextFinished(
  old: Entry['finished'],
  change: FinishedEntry | null | undefined,
  now: number,
): Entry['finished'] {
  if (change === undefined) return old;
  if (change === null) return undefined;
  return {
    at: change.at ?? now,
    ...(change.retainMs !== undefined ? { retainMs: change.retainMs } : {}),
  };
}

/** A stored record as a backend answers it; `status` as found when it differs from the entry's. */
export function storedEntry(e: Entry, status: string = e.status): StoredRecord {
  return {
    status,
    stack: e.stack,
    info: e.info,
    reservation: e.reservation,
    deferUntil: e.deferUntil,
    ...(e.priority ? { priority: e.priority } : {}),
  };
}
