import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
  BackendListRow,
} from '../contract/backend-queries.js';
import { rowMatches } from '../guard/store-queries.js';
import type { MemorySpace } from './memory-space.js';

/** Most records one `listPage` examines before it returns a short page with a cursor. */
export const LIST_EXAMINE_LIMIT = 10_000;

/** Due finished records, oldest due first: a walk of the finished set (in-process). */
export function memoryAgeOffDue(
  space: MemorySpace,
  q: BackendAgeOffQuery,
): Array<{ id: string; finishedAt: number }> {
  const due: Array<{ id: string; finishedAt: number; dueAt: number }> = [];
  for (const id of space.finished) {
    const f = space.records.get(id)?.finished;
    if (!f) continue;
    const isDue = f.retainMs === undefined ? f.at <= q.finishedBefore : f.at + f.retainMs <= q.now;
    if (isDue) due.push({ id, finishedAt: f.at, dueAt: f.at + (f.retainMs ?? 0) });
  }
  due.sort((a, b) => a.finishedAt - b.finishedAt);
  return due.slice(0, q.limit).map(({ id, finishedAt }) => ({ id, finishedAt }));
}

/** Deletes those of `ids` that are unreserved, finished and due (see `deleteAgedOff`). */
export function memoryDeleteAgedOff(
  space: MemorySpace,
  ids: readonly string[],
  q: BackendAgeOffQuery,
): number {
  let deleted = 0;
  for (const id of ids) {
    const r = space.records.get(id);
    const f = r?.finished;
    if (!r || !f || r.reservation) continue;
    const due = f.retainMs === undefined ? f.at <= q.finishedBefore : f.at + f.retainMs <= q.now;
    if (!due) continue;
    space.remove(id);
    deleted++;
  }
  return deleted;
}

/** The kept counts. */
export function memoryCounts(space: MemorySpace): BackendCount[] {
  return [...space.counts].map(([key, count]) => {
    const [status = '', op = ''] = key.split('\u0000');
    return { status, op, count };
  });
}

/** A page from the sorted ids, from the first id after the cursor. */
export function memoryListPage(
  space: MemorySpace,
  q: BackendListQuery,
  now: number,
): BackendListPage {
  const sorted = space.sortedIds();
  const rows: BackendListRow[] = [];
  let examined = 0;
  let i = q.after === undefined ? 0 : firstAfter(sorted, q.after);
  for (; i < sorted.length; i++) {
    const id = sorted[i] as string;
    const r = space.records.get(id);
    if (!r) continue;
    if (rows.length === q.limit || examined === LIST_EXAMINE_LIMIT) {
      return { rows, last: sorted[i - 1] as string };
    }
    examined++;
    const row: BackendListRow = {
      id,
      status: r.status,
      op: r.op,
      reservation: r.reservation,
      deferUntil: r.deferUntil,
      ...(r.priority ? { priority: r.priority } : {}),
      ...(r.finished ? { finishedAt: r.finished.at } : {}),
    };
    if (rowMatches(row, q, now)) rows.push(row);
  }
  return { rows };
}

function firstAfter(sorted: readonly string[], after: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
