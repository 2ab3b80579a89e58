import { FateError, FateErrorCode } from '../errors.js';
import { type FateId, parseFateId } from '../ids.js';
import { Status } from '../status.js';
import type { FatesStore } from '../store/fates-store.js';
import type { WaitOptions } from './fate-types.js';

// What `Fate` offers its callers besides running work: cancelling and deleting.

export async function cancel(store: FatesStore, id: FateId, options: WaitOptions): Promise<void> {
  parseFateId(id);
  const view = await store.read(id);
  refuseUnlessCancellable(view.status, id);
  const fate = await store.reserve(id, {
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  try {
    refuseUnlessCancellable(await fate.getStatus(), id);
    await fate.commit([
      { op: 'setInfo', key: 'error', value: { message: 'cancelled', name: 'Cancelled' } },
      { op: 'setStatus', status: Status.FAILED },
      { op: 'unreserve' },
    ]);
  } finally {
    if (fate.isReserved) await fate.unreserve();
  }
}

export async function deleteTransaction(
  store: FatesStore,
  id: FateId,
  options: WaitOptions,
): Promise<void> {
  const fate = await store.reserve(id, {
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  try {
    await fate.delete();
  } finally {
    if (fate.isReserved) await fate.unreserve();
  }
}

function refuseUnlessCancellable(status: Status, id: FateId): void {
  if (status !== Status.NEW && status !== Status.SUBMITTED) {
    throw new FateError(
      status === Status.UNKNOWN ? FateErrorCode.NOT_FOUND : FateErrorCode.ILLEGAL_STATUS,
      `cannot cancel ${id}: it is ${status}; only NEW and SUBMITTED transactions can be cancelled`,
    );
  }
}
