import type { FateStore } from '../contract/fate-store.js';
import type { TxError } from '../contract/types.js';
import { isStoreFault } from './store-fault.js';
import { toTxError } from './tx-error.js';

/** Undo errors kept on a transaction; more are counted, not stored. */
const MAX_UNDO_ERRORS = 20;

/** Adds an `undo`'s error to the transaction's recorded error (at most 20 are kept). */
export async function recordUndoError(fate: FateStore, err: unknown): Promise<void> {
  let error: TxError | undefined;
  try {
    error = await fate.getInfo('error');
  } catch {
    error = undefined; // unreadable info: start a fresh record
  }
  const base = error ?? { message: 'rolled back' };
  const undoErrors = base.undoErrors ?? [];
  if (undoErrors.length >= MAX_UNDO_ERRORS) return;
  try {
    await fate.setInfo('error', { ...base, undoErrors: [...undoErrors, toTxError(err)] });
  } catch (recordErr) {
    if (isStoreFault(recordErr)) throw recordErr;
    // no room for one more: the rollback matters more than its log
  }
}
