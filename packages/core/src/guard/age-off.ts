import type { FateStore } from '../contract/fate-store.js';
import type { FatesStore } from '../contract/fates-store.js';
import type { AgeOffOptions, AgeOffResult } from '../contract/types.js';
import type { FateId } from '../ids.js';
import { mapLimit } from '../map-limit.js';
import { FINISHED_STATUSES } from '../status.js';
import { checkAgeOffQuery } from './age-off-queries.js';
import { releaseAsFound } from './release-as-found.js';

export { DEFAULT_RETENTION_MS } from './age-off-queries.js';

/** Candidates handled at once by one sweep. */
const AGE_OFF_PARALLEL = 8;

/**
 * Deletes finished transactions (SUCCESSFUL, FAILED) older than their retention, with no
 * state in memory (Accumulo's FateCleaner): each carries an age-off stamp, the store-clock
 * time it finished — written by the engine's finishing commit, or on first sight here for
 * those that have none — and is deleted once `now - stamp` reaches its own `retainMs`
 * (set at seed) or `options.retentionMs`. Held transactions are skipped, not waited for.
 *
 * Candidates come from `store.ageOffDue` (the backend's finish-time index when it has one:
 * a sweep with nothing due is one indexed read). A candidate is only a hint: the decision
 * is taken again on the record as reserved, so a transaction deleted and seeded again (or
 * finished again) between the listing and the reservation is released untouched.
 */
export async function ageOff(
  store: FatesStore,
  options: AgeOffOptions = {},
): Promise<AgeOffResult> {
  const { retentionMs, limit } = checkAgeOffQuery(options);
  const due = await store.ageOffDue({ retentionMs, limit });
  let stamped = 0;
  let deleted = 0;
  // A few at a time: each is a reservation and a delete, round trips on a server store.
  await mapLimit(due.slice(0, limit), AGE_OFF_PARALLEL, async (candidate) => {
    const handle = await store.tryReserve(candidate.id as FateId).catch(() => undefined);
    if (!handle) return;
    try {
      const verdict = await decide(handle, store.now(), retentionMs);
      if (verdict === 'stamp') {
        await handle.commit([
          { op: 'setInfo', key: 'ageOff', value: store.now() },
          { op: 'unreserve' },
        ]);
        stamped++;
      } else if (verdict === 'delete') {
        await handle.delete();
        deleted++;
      }
    } catch {
      // a record that does not decode, or a lost race: left as it is, released below
    } finally {
      if (handle.isReserved) await releaseAsFound(store, handle).catch(() => undefined);
    }
  });
  return { stamped, deleted };
}

/** What to do with a reserved candidate, judged on what the reservation returned. */
async function decide(
  handle: FateStore,
  now: number,
  retentionMs: number,
): Promise<'delete' | 'stamp' | 'keep'> {
  if (!FINISHED_STATUSES.has(await handle.getStatus())) return 'keep';
  const stamp = await handle.getInfo('ageOff');
  if (stamp === undefined) return 'stamp';
  const keep = (await handle.getInfo('retainMs')) ?? retentionMs;
  return now - stamp >= keep ? 'delete' : 'keep';
}
