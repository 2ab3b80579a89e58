import { setTimeout as sleep } from 'node:timers/promises';
import { FateError, FateErrorCode } from '../errors.js';
import { type FateId, parseFateId } from '../ids.js';
import { FINISHED_STATUSES, Status } from '../status.js';
import type { FatesStore } from '../store/fates-store.js';
import type { FateView } from '../store/types.js';
import type { FateResult, WaitOptions } from './fate-types.js';

// What `Fate` offers its callers besides running work: waiting, cancelling, deleting.

export async function waitForCompletion(
  store: FatesStore,
  id: FateId,
  options: WaitOptions,
): Promise<FateResult> {
  parseFateId(id);
  const deadline = performance.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  let pause = 5;
  for (;;) {
    const view = await store.read(id);
    if (FINISHED_STATUSES.has(view.status) || view.status === Status.UNKNOWN) return result(view);
    if (performance.now() >= deadline) {
      throw new FateError(
        FateErrorCode.TIMEOUT,
        `${id} did not finish in ${options.timeoutMs} ms (${view.status})`,
      );
    }
    if (options.signal?.aborted)
      throw new FateError(FateErrorCode.ABORTED, `waiting for ${id} was aborted`);
    await sleep(Math.min(pause, Math.max(1, deadline - performance.now())));
    pause = Math.min(pause * 2, 200);
  }
}

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

function result(view: FateView): FateResult {
  return {
    id: view.id,
    status: view.status,
    ...(view.info.returnValue !== undefined ? { returnValue: view.info.returnValue } : {}),
    ...(view.info.error !== undefined ? { error: view.info.error } : {}),
  };
}
