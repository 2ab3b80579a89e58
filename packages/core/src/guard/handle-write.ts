import type { RecordWrite, StoredRecord } from '../contract/backend.js';
import type { Reservation } from '../contract/types.js';
import type { FateId } from '../ids.js';
import type { BackendCaller } from './backend-caller.js';
import { sameReservation } from './codec.js';
import type { Draft } from './commit-draft.js';
import type { FinishClaim } from './finish-claims.js';
import { retryTelling } from './retry.js';

/**
 * Sends a handle's fenced write (with the claim it carries, if any), asking again while the
 * reply is lost. A repeat of a write that does not end the reservation simply applies
 * again (the write is absolute). A repeat of one that ends it finds the reservation gone
 * either way: what is stored tells whether our first attempt ended it or someone cleared us
 * before it applied.
 */
export async function sendWrite(
  backend: BackendCaller,
  id: FateId,
  reservation: Reservation,
  write: RecordWrite,
  draft: Draft,
  claim?: FinishClaim,
): Promise<boolean> {
  const sent = claim
    ? retryTelling(() => claim.send(id, reservation, write))
    : backend.retriedTelling('write', (b) => b.write(id, reservation, write));
  const ok = await sent.answer;
  if (ok || !sent.repeated || !(write.release || write.delete)) return ok;
  const stored = await backend.retried('read', (b) => b.read(id));
  return endedByUs(stored, reservation, write.delete === true, draft);
}

/**
 * Whether a write that ends the reservation, answered "not applied" on a repeat, was in
 * fact applied by the first attempt: the record is gone (a delete), or it is stored as the
 * draft left it and no longer under this reservation (a release).
 */
export function endedByUs(
  stored: StoredRecord | undefined,
  reservation: Reservation,
  deleted: boolean,
  draft: Draft,
): boolean {
  if (deleted) return stored === undefined;
  return (
    stored !== undefined &&
    !sameReservation(stored.reservation, reservation) &&
    stored.status === draft.status &&
    stored.stack === draft.stackText &&
    stored.info === draft.infoText
  );
}
