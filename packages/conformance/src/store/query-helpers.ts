import type { FateId, FatesStore, Status, StoreCounts } from '@fate/core';
import { expect } from 'vitest';

export const HOUR = 3_600_000;

/** Counts tallied from a full `list`: what `counts()` must equal. */
export async function tally(
  store: FatesStore,
): Promise<Pick<StoreCounts, 'total' | 'byStatus' | 'byOp'>> {
  const rows = await store.list();
  const byStatus: Record<string, number> = {
    NEW: 0,
    SUBMITTED: 0,
    IN_PROGRESS: 0,
    FAILED_IN_PROGRESS: 0,
    FAILED: 0,
    SUCCESSFUL: 0,
  };
  const byOp: Record<string, number> = {};
  for (const r of rows) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const op = r.opName ?? '';
    byOp[op] = (byOp[op] ?? 0) + 1;
  }
  return { total: rows.length, byStatus: byStatus as StoreCounts['byStatus'], byOp };
}

/** What `counts()` answers, without its timing fields. */
export async function countsOf(store: FatesStore) {
  const { total, byStatus, byOp } = await store.counts();
  return { total, byStatus, byOp };
}

/** Every page of `store.listPage(query)`, following `next`. */
export async function allPages(
  store: FatesStore,
  limit: number,
  between: () => Promise<void> = async () => {},
): Promise<FateId[]> {
  const ids: FateId[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.listPage({ limit, ...(after ? { after } : {}) });
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    ids.push(...page.rows.map((r) => r.id));
    if (page.next === undefined) return ids;
    after = page.next;
    await between();
  }
  throw new Error('listPage never ended');
}

/** Finishes `id` with `status`, stamped as finished `ago` ms before the store's now (or unstamped). */
export async function finish(store: FatesStore, id: FateId, status: Status, ago?: number) {
  const h = await store.reserve(id);
  await h.commit([
    { op: 'setStatus', status },
    ...(ago !== undefined
      ? [{ op: 'setInfo' as const, key: 'ageOff' as const, value: store.now() - ago }]
      : []),
    { op: 'unreserve' },
  ]);
}
