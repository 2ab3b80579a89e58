import type { FatesStore } from '../contract/fates-store.js';
import type { SeedRequest } from '../contract/types.js';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import { releaseAsFound } from '../guard/release-as-found.js';
import { type FateId, parseFateId } from '../ids.js';
import { Status } from '../status.js';
import type { Repo, StepRegistry } from '../step.js';
import type { SeedOptions, WaitOptions } from './fate-types.js';

// What `Fate` offers its callers besides running work: seeding, cancelling and deleting.

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
    if (fate.isReserved) await releaseAsFound(store, fate);
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
    if (fate.isReserved) await releaseAsFound(store, fate);
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

/** `Fate.seedMany`'s items as the store's seed requests (steps serialized). */
export function seedRequests<Env>(
  steps: StepRegistry<Env>,
  items: ReadonlyArray<SeedOptions & { readonly step: Repo<Env> }>,
): SeedRequest[] {
  return items.map((item) => {
    const options = checkSeedOptions(item);
    return {
      step: steps.serialize(options.step),
      opName: options.opName,
      ...(options.key ? { key: options.key } : {}),
      ...(options.autoClean ? { autoClean: true } : {}),
      ...(options.retainMs !== undefined ? { retainMs: options.retainMs } : {}),
      ...(options.delayMs !== undefined ? { delayMs: options.delayMs } : {}),
      ...(options.runAt !== undefined ? { runAt: options.runAt } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
    };
  });
}

/** Seed options must be an object (with an opName, checked by the store). */
export function checkSeedOptions<T extends SeedOptions>(options: T): T {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('seed needs options with an opName');
  }
  return options;
}
