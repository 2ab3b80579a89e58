import { FateError, FateErrorCode } from '../errors.js';
import type { FateId } from '../ids.js';

/**
 * Where a reserved handle stands: `unknown` after a write whose outcome stayed unknown
 * (usable again after `refresh()`), the others for good once the reservation ended.
 */
export type HandleState = 'reserved' | 'released' | 'deleted' | 'unknown' | 'abandoned';

/** Throws unless a handle in `state` may be read or written. */
export function assertReserved(id: FateId, state: HandleState): void {
  if (state === 'unknown') {
    throw new FateError(
      FateErrorCode.OUTCOME_UNKNOWN,
      `the last write to ${id} may or may not have applied; refresh() before using it`,
    );
  }
  if (state !== 'reserved') {
    throw new FateError(FateErrorCode.NOT_RESERVED, `${id} is ${state}, not reserved`);
  }
}

/** The error of a write the store fenced off: this reservation is no longer held. */
export function notHeld(id: FateId): FateError {
  return new FateError(
    FateErrorCode.NOT_RESERVED,
    `reservation of ${id} is no longer held (cleared, deleted or taken over)`,
  );
}
