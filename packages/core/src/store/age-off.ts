import { invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import { Status } from '../status.js';
import type { FatesStore } from './fates-store.js';
import type { AgeOffOptions, AgeOffResult } from './types.js';

/** How long finished transactions are kept unless told otherwise: a week. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1_000;

/**
 * Deletes finished transactions (SUCCESSFUL, FAILED) older than their retention, with no
 * state in memory (Accumulo's FateCleaner): each carries an age-off stamp, the store-clock
 * time it finished — written by the engine's finishing commit, or on first sight here for
 * those that have none — and is deleted once `now - stamp` reaches its own `retainMs`
 * (set at seed) or `options.retentionMs`. Held transactions are skipped, not waited for.
 */
export async function ageOff(
  store: FatesStore,
  options: AgeOffOptions = {},
): Promise<AgeOffResult> {
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const limit = options.limit ?? 1_000;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 0) {
    throw invalidArgument('retentionMs must be an integer >= 0');
  }
  if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument('limit must be >= 1');
  const finished = await store.list({ statuses: [Status.SUCCESSFUL, Status.FAILED] });
  const now = store.now();
  let stamped = 0;
  let deleted = 0;
  for (const row of finished) {
    if (stamped + deleted >= limit) break;
    if (row.reservation || row.corrupt) continue;
    const view = await store.read(row.id).catch(() => undefined);
    if (!view) continue;
    const stamp = view.info.ageOff;
    const keep = view.info.retainMs ?? retentionMs;
    if (stamp !== undefined && now - stamp < keep) continue;
    const handle = await store.tryReserve(row.id as FateId).catch(() => undefined);
    if (!handle) continue;
    try {
      if (stamp === undefined) {
        await handle.commit([{ op: 'setInfo', key: 'ageOff', value: now }, { op: 'unreserve' }]);
        stamped++;
      } else {
        await handle.delete();
        deleted++;
      }
    } finally {
      if (handle.isReserved) await handle.unreserve().catch(() => undefined);
    }
  }
  return { stamped, deleted };
}
