import type { FatesStore } from '../contract/fates-store.js';
import { FateError, FateErrorCode } from '../errors.js';
import type { FateId } from '../ids.js';
import { Status } from '../status.js';

/**
 * Submits records seeded `held` (NEW): each is reserved, and set SUBMITTED in one fenced
 * write only if it is still NEW, so a record is submitted at most once whoever tries (a
 * submitted record never becomes NEW again). Returns the ids it could not judge now
 * (reserved by someone else) and how many it submitted; a store fault is thrown, and a
 * reservation whose write it left unknown is abandoned (released by `releaseOrphans`).
 */
export async function submitHeld(
  store: FatesStore,
  ids: readonly FateId[],
): Promise<{ readonly left: FateId[]; readonly submitted: FateId[] }> {
  const left: FateId[] = [];
  const submitted: FateId[] = [];
  for (const id of ids) {
    const h = await store.tryReserve(id);
    if (!h) {
      // held by another client (or gone): left only while it is NEW, i.e. not yet submitted
      if ((await store.read(id)).status === Status.NEW) left.push(id);
      continue;
    }
    try {
      if ((await h.getStatus()) === Status.NEW) {
        await h.commit([{ op: 'setStatus', status: Status.SUBMITTED }, { op: 'unreserve' }]);
        submitted.push(id);
      }
    } finally {
      try {
        if (h.isReserved) await h.unreserve();
      } finally {
        // a write whose outcome is unknown: given up, so the reservation becomes an orphan
        // the engine's next reconcile releases (releaseOrphans), not one held until exit
        if (h.outcomeUnknown) h.abandon();
      }
    }
  }
  return { left, submitted };
}

/** The JSON object kept in a record's `internal` info, or a typed error. */
export function internalState(id: FateId, value: unknown, kind: string): Record<string, unknown> {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    (value as { kind?: unknown }).kind !== kind
  ) {
    throw new FateError(FateErrorCode.CORRUPT_DATA, `${id} is not a ${kind} record of fate's`);
  }
  return value as Record<string, unknown>;
}
