import type { ClaimedRecord } from './backend-claims.js';
import type { RecordWrite } from './record-write.js';
import type { IdRange, Reservation } from './types.js';

/** What `finishAndClaim` answers: the write's own answer, and what the claim took. */
export interface FinishClaimed {
  /** What `write(id, reservation, change)` answers (false: fenced off, or ended before). */
  readonly written: boolean;
  /** As `claimMany(range, reservations)` answers; empty when the write did not apply. */
  readonly claimed: ClaimedRecord[];
}

/**
 * The optional finish-and-claim-next (issue 23): the finishing write of one transaction
 * carries the claim of the next in the same round trip, as BullMQ's `moveToFinished`
 * returns the next job. A backend without it still works: the guard then writes, and
 * claims with `claimMany` (or a scan and one `tryReserve` per id) after the write applied.
 */
export interface StoreBackendFinishClaims {
  /**
   * `write(id, reservation, change)` and, only when it applied, `claimMany(range,
   * reservations)`, in one round trip. The write is atomic and fenced exactly as `write`
   * alone; the claim keeps every promise of `claimMany` (each record claimed atomically
   * under its own reservation, never a reserved or deferred one by the store's clock). A
   * fenced-off write claims nothing. Both may be one transaction; the claim never comes
   * before the write. A record the write left runnable may be claimed by the same call.
   *
   * Lost replies: a repeat with the same arguments after the call applied answers the
   * write as it answers now (false once the first attempt ended the reservation; the guard
   * then reads the record) and, because a record already holds one of `reservations` (only
   * a claim after an applied write puts them there), the claimed records as `claimMany`'s
   * repeat does: every record stored with one of `reservations`, as stored now.
   */
  finishAndClaim?(
    id: string,
    reservation: Reservation,
    change: RecordWrite,
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<FinishClaimed>;
}
