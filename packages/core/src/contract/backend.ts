import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { StoreBackendClaims } from './backend-claims.js';
import type { StoreBackendFinishClaims } from './backend-finish-claims.js';
import type { StoreBackendQueries } from './backend-queries.js';
import type { StoreCapabilities } from './capabilities.js';
import type { RunnablePosition } from './priority.js';
import type { RecordWrite } from './record-write.js';
import type { StoredRecord } from './stored-record.js';
import type { IdRange, Reservation } from './types.js';

export type { RecordWrite, StoredRecord };

/**
 * A new record: always unreserved. `op` is the transaction's op name ('' for none; never a
 * NUL), kept beside the runnable index so a scan can say it without reading info.
 * `deferMs` (a whole number of ms, absent or 0 = not deferred) hides it from scans for that
 * long, counted by the store's own clock inside the insert (stored as `deferUntil`), never
 * by this client's: a seed's `runAt` / `delayMs`. A repeat after a lost reply finds the id
 * and answers false, keeping the first insert's deferral. `priority` (checked by the guard,
 * absent = 0) orders scans and claims where `capabilities.priorities`; it never changes.
 */
export type NewRecord = Pick<StoredRecord, 'status' | 'stack' | 'info'> & {
  readonly status: Status;
  readonly op: string;
  readonly deferMs?: number;
  readonly priority?: number;
};

/** One page of a runnable scan, before the guard adds timing. */
export interface BackendScan {
  /**
   * Runnable ids, at most the page limit, in the runnable order: ascending ids, or with
   * `capabilities.priorities` higher priorities first and ascending ids within a level.
   */
  readonly ids: string[];
  /** The op name of each id (same order, same length; '' when it has none). */
  readonly ops: string[];
  /** The priority of each id (same order; absent: all 0, a backend without priorities). */
  readonly priorities?: number[];
  /** Rows, keys or znodes read to answer. */
  readonly itemsRead: number;
  /** Earliest `deferUntil` (store clock) among deferred runnable unreserved records seen. */
  readonly nextDeferralAt?: number;
  /**
   * Set when the page ended at the limit: the last id examined. The next page of the same
   * range starts after it. Absent when the scan reached the end of the range.
   */
  readonly last?: string;
  /** With `last` on a backend with priorities: its priority (the page ended in that level). */
  readonly lastPriority?: number;
}

/** A liveness record as the store keeps it: the holder's lock id and the guard's opaque state. */
export interface InstanceRecord {
  readonly lockId: string;
  /** Opaque text written by the guard (JSON); it changes with every heartbeat. */
  readonly state: string;
}

/** Which reservations `reservations` should return; a hint (the guard filters again). */
export interface ReservationFilter {
  readonly range?: IdRange;
  readonly lockId?: string;
}

/**
 * What a backend implements: small, dumb and atomic. The runtime guard in core
 * (`createFatesStore`) validates arguments, checks preconditions, encodes data, judges
 * liveness and retries unknown outcomes, so none of that is repeated per backend. Every
 * hook is required except the optional queries of `StoreBackendQueries` (`ageOffDue`,
 * `counts`, `listPage`), which the guard replaces with a full read when absent, and the
 * batched claim of `StoreBackendClaims` (`claimMany`), which it replaces with a scan and
 * one `tryReserve` per id, and the finish-and-claim of `StoreBackendFinishClaims`
 * (`finishAndClaim`), which it replaces with `write` followed by that claim.
 *
 * Atomicity: each method is one atomic step against the shared data. `write` and
 * `clearReservation` apply only when the stored reservation equals the given one in both
 * fields (lock id AND uuid): this is fencing.
 *
 * Lost replies: any call may apply and still fail with an error (the reply was lost). The
 * guard retries `insert`, `insertMany`, `tryReserve`, `claimMany`, `finishAndClaim`, `write` and
 * `clearReservation` with the same arguments, so each must give the same answer when
 * repeated after it applied: `tryReserve`
 * with the reservation already stored returns the record; `insert` of an existing id
 * returns false (the guard then compares what is stored).
 */
export interface StoreBackend
  extends StoreBackendQueries,
    StoreBackendClaims,
    StoreBackendFinishClaims {
  readonly capabilities: StoreCapabilities;

  /** Connects and prepares (schema, scripts). Called once by the guard. */
  open(): Promise<void>;
  /** Disconnects. Called once by the guard. */
  close(): Promise<void>;

  /**
   * The store's clock, epoch ms: the one clock every deferral is written and judged by,
   * inside the store's own operations (a server's clock in its scripts or statements; an
   * embedded store's host clock as the store reads it). This is this client's estimate of
   * it, within a round trip, for turning a stored `deferUntil` into a wait; a client whose
   * own clock is off changes nothing.
   */
  now(): number;

  /** Inserts if no record has this id; false when one exists. */
  insert(id: FateId, record: NewRecord): Promise<boolean>;
  /**
   * `insert` of many records, in as few round trips as the store allows; one answer per
   * record, in order. Not atomic as a whole: each record is inserted or not on its own.
   */
  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]>;
  read(id: FateId): Promise<StoredRecord | undefined>;
  /**
   * Sets the reservation if the record exists and is unreserved, or is already held by
   * exactly this reservation (a retry). Returns the record as reserved, or why not. With
   * `start` (an engine takes it to run), a SUBMITTED record also becomes IN_PROGRESS in the
   * same step, saving the engine a write; the answer then shows the status as it was FOUND
   * (SUBMITTED: this call started it, so nothing of it has run), while the store holds
   * IN_PROGRESS. A repeat after it applied finds IN_PROGRESS and says so, which the guard
   * reads as "may have run". Nothing else changes: other statuses, stack, info and the
   * stored deferral stay as they are.
   */
  tryReserve(
    id: FateId,
    reservation: Reservation,
    start?: boolean,
  ): Promise<StoredRecord | 'absent' | 'held'>;
  /** Applies `change` only if the stored reservation equals `reservation`; else false. */
  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean>;
  /**
   * Clears the reservation only if it still equals `reservation` (both fields); the record
   * becomes runnable again as it was, keeping its stored deferral. Else false.
   */
  clearReservation(id: FateId, reservation: Reservation): Promise<boolean>;

  /** Every record, or those in `statuses` when given (a hint: the guard filters again). */
  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>>;
  /**
   * Runnable ids in `range` (all ids when undefined; bounds compare as plain strings, so a
   * bound may be a prefix: `start <= id < end`), ascending, at most `limit`: status
   * SUBMITTED, IN_PROGRESS or FAILED_IN_PROGRESS, unreserved, `deferUntil` not after the
   * store's clock.
   *
   * With `capabilities.priorities` the order is `(priority descending, id ascending)`, each
   * level read on its own from the range's start (a level's index, never the whole store),
   * and `after` (the previous page's `last` and `lastPriority`) goes on from that place:
   * the rest of its level after its id, then each lower level from the range's start.
   * Without priorities `after` is never passed (the guard moves the range's start instead).
   */
  scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan>;
  /** Held reservations, in id order; `filter` narrows them (a hint). */
  reservations(
    filter?: ReservationFilter,
  ): Promise<Array<{ id: string; reservation: Reservation }>>;

  /**
   * Creates or replaces the liveness record of `lockId` with `state`. The store may forget
   * a record `ttlMs` (its own clock) after it was last written, and not before: a record
   * written last (a tombstone) must outlive this client's `close` for that long. It forgets
   * it within a few ttls (store hygiene: dead clients leave nothing behind).
   */
  heartbeat(lockId: string, state: string, ttlMs: number): Promise<void>;
  /** Every liveness record the store still keeps. */
  instances(): Promise<InstanceRecord[]>;

  /**
   * Subscribes to wake-ups published when a SUBMITTED record is inserted by any client.
   * Backends without `capabilities.wakeups` return a no-op unsubscribe.
   */
  subscribeWakeups(listener: () => void): Promise<() => Promise<void>>;
}
