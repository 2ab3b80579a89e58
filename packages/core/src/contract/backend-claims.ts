import type { StoredRecord } from './stored-record.js';
import type { IdRange, Reservation } from './types.js';

/** One record `claimMany` reserved and started. */
export interface ClaimedRecord {
  readonly id: string;
  /** Its op name ('' for none), as kept beside the runnable index. */
  readonly op: string;
  /**
   * The record as reserved (its `reservation` is one of those the call was given), with
   * the status as FOUND, as `tryReserve(id, reservation, true)` answers: SUBMITTED means
   * this call started it (the store holds IN_PROGRESS) and nothing of it has run.
   */
  readonly record: StoredRecord;
}

/**
 * The optional batched claim (issue 23). A backend without it still works: the guard then
 * scans and reserves one id at a time (`scanRunnable` + `tryReserve(id, r, true)` per id).
 */
export interface StoreBackendClaims {
  /**
   * Reserves and starts up to `reservations.length` runnable records of `range` (those
   * `scanRunnable` would name: SUBMITTED, IN_PROGRESS or FAILED_IN_PROGRESS, unreserved,
   * not deferred by the store's clock), lowest ids first (with `capabilities.priorities`:
   * highest priority first, lowest ids within a level), each under its own reservation:
   * the n-th record claimed gets `reservations[n]`. Each record is claimed atomically and
   * exactly as `tryReserve(id, reservations[n], true)` would (a SUBMITTED one becomes
   * IN_PROGRESS in the same step; nothing else changes); the batch as a whole need not be
   * atomic, and a record another client reserves meanwhile is simply not claimed. Every
   * reservation shares one lock id and has a uuid never used before.
   *
   * Lost replies: a repeat with the same arguments after the call applied (wholly or in
   * part) answers every record stored with one of `reservations`, as stored now (a record
   * it started shows IN_PROGRESS: "may have run"), and may claim more only with those of
   * `reservations` no record holds; so nothing it reserved is ever lost to the caller.
   * Fewer records than asked (or none) when no more are runnable.
   */
  claimMany?(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]>;
}
