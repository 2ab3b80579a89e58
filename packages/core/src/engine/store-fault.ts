import { FateErrorCode, isFateError } from '../errors.js';

/**
 * A failure of the store or of our hold on the transaction, not of the transaction: it must
 * never fail the transaction. The worker gives it up; it runs again once released.
 */
export function isStoreFault(err: unknown): boolean {
  return (
    isFateError(err, FateErrorCode.NOT_RESERVED) ||
    isFateError(err, FateErrorCode.CLOSED) ||
    isFateError(err, FateErrorCode.STORE_UNAVAILABLE) ||
    isFateError(err, FateErrorCode.OUTCOME_UNKNOWN)
  );
}
