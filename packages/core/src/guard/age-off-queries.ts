import type { StoreBackend } from '../contract/backend.js';
import type { AgeOffCandidate, AgeOffQuery } from '../contract/query-types.js';
import { invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import { FINISHED_STATUSES, type Status } from '../status.js';
import type { BackendCaller } from './backend-caller.js';
import { decodeInfo } from './codec.js';

/** How long finished transactions are kept unless told otherwise: a week. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1_000;

/** Checks an age-off query; returns its retention and limit. */
export function checkAgeOffQuery(query: AgeOffQuery): { retentionMs: number; limit: number } {
  const retentionMs = query.retentionMs ?? DEFAULT_RETENTION_MS;
  const limit = query.limit ?? 1_000;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 0) {
    throw invalidArgument('retentionMs must be an integer >= 0');
  }
  if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument('limit must be >= 1');
  return { retentionMs, limit };
}

/**
 * Age-off candidates from the backend's finish-time index, or, without one, every finished
 * record whose age-off stamp is due or missing (read in full: the fallback's cost).
 */
export async function ageOffDue(
  caller: BackendCaller,
  backend: StoreBackend,
  query: AgeOffQuery,
): Promise<AgeOffCandidate[]> {
  const { retentionMs, limit } = checkAgeOffQuery(query);
  const now = backend.now();
  if (typeof backend.ageOffDue === 'function') {
    const fn = backend.ageOffDue.bind(backend);
    const due = await caller.retried('ageOffDue', () =>
      fn({ finishedBefore: now - retentionMs, now, limit }),
    );
    return due.slice(0, limit).map((d) => ({ id: d.id as FateId, finishedAt: d.finishedAt }));
  }
  const finished = await caller.retried('ageOffDue', (b) => b.list(FINISHED_STATUSES));
  const out: AgeOffCandidate[] = [];
  for (const { id, record } of finished) {
    if (record.reservation || !FINISHED_STATUSES.has(record.status as Status)) continue;
    let stamp: number | undefined;
    let keep = retentionMs;
    try {
      const info = decodeInfo(id as FateId, record.info);
      stamp = info.ageOff;
      keep = info.retainMs ?? retentionMs;
    } catch {
      continue;
    }
    if (stamp !== undefined && now - stamp < keep) continue;
    out.push({ id: id as FateId, finishedAt: stamp ?? now });
  }
  // Oldest first, as an index would answer (unstamped ones last: they are stamped first).
  return out.sort((a, b) => a.finishedAt - b.finishedAt).slice(0, limit);
}

/** Ids per `deleteAgedOff` call. */
const DELETE_BATCH = 500;

/**
 * Age-off on a backend that deletes in batches (`deleteAgedOff`): the due candidates from
 * the index, deleted under the same condition checked by the store as it deletes, so one
 * sweep of `n` due costs `n / 500` round trips and never deletes what is not due.
 */
export async function ageOffInBatches(
  caller: BackendCaller,
  backend: StoreBackend,
  query: AgeOffQuery,
): Promise<{ stamped: number; deleted: number }> {
  const { retentionMs, limit } = checkAgeOffQuery(query);
  const now = backend.now();
  const q = { finishedBefore: now - retentionMs, now, limit };
  const due = await caller.retried('ageOffDue', (b) =>
    (b.ageOffDue as NonNullable<StoreBackend['ageOffDue']>).call(b, q),
  );
  let deleted = 0;
  for (let i = 0; i < due.length && i < limit; i += DELETE_BATCH) {
    const ids = due.slice(i, Math.min(i + DELETE_BATCH, limit)).map((d) => d.id);
    deleted += await caller.call('deleteAgedOff', (b) =>
      (b.deleteAgedOff as NonNullable<StoreBackend['deleteAgedOff']>).call(b, ids, q),
    );
  }
  return { stamped: 0, deleted };
}
