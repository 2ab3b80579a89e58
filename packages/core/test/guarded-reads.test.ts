// The guard's reads (`guarded-reads.ts`) over a stub backend: a missing record reads as
// UNKNOWN, a bad id is refused before any call, a list is filtered again, a scan goes to the
// backend with or without a place in the priority order, and age-off takes the indexed way
// only when the backend has both of its operations.
import { describe, expect, it, vi } from 'vitest';
import type { BackendCaller } from '../src/guard/backend-caller.js';
import { GuardedReads } from '../src/guard/guarded-reads.js';
import type { FatesStore, StoreBackend, StoredRecord } from '../src/index.js';

const A = '10000000-0000-4000-8000-000000000000';
const B = '20000000-0000-4000-8000-000000000000';
const record = (status: string, op: string): StoredRecord => ({
  status,
  stack: '[]',
  info: JSON.stringify({ opName: op }),
  reservation: null,
  deferUntil: 0,
});

function reads(backend: Partial<StoreBackend> & { priorities?: boolean }) {
  const calls: string[] = [];
  const store = {
    capabilities: { priorities: backend.priorities ?? false },
    now: () => 0,
    ...backend,
  } as unknown as StoreBackend;
  const caller = {
    call: (what: string, fn: (b: StoreBackend) => Promise<unknown>) => {
      calls.push(what);
      return fn(store);
    },
    retried: (what: string, fn: (b: StoreBackend) => Promise<unknown>) => {
      calls.push(what);
      return fn(store);
    },
  } as unknown as BackendCaller;
  return { reads: new GuardedReads(store, caller), calls };
}

describe('GuardedReads', () => {
  it('reads a missing record as UNKNOWN, and refuses a bad id before any call', async () => {
    const { reads: r, calls } = reads({ read: async () => undefined });
    expect(await r.read(A as never)).toStrictEqual({
      id: A,
      status: 'UNKNOWN',
      stack: [],
      info: {},
      deferUntil: 0,
      priority: 0,
    });
    await expect(r.read('nope' as never)).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
    expect(calls).toEqual(['read']);
  });

  it('filters a list again by status and op, whatever the backend answered', async () => {
    const list = vi.fn(async () => [
      { id: B, record: record('FAILED', 'op') },
      { id: A, record: record('SUBMITTED', 'op') },
    ]);
    const { reads: r } = reads({ list });
    const failed = await r.list({ statuses: ['FAILED'], opName: 'op' });
    expect(failed.map((t) => t.id)).toEqual([B]);
    expect(list).toHaveBeenCalledWith(new Set(['FAILED']));
    expect((await r.list()).map((t) => t.id)).toEqual([A, B]);
  });

  it('scans with a place in the priority order only on a backend with priorities', async () => {
    const scan = vi.fn(async () => ({ ids: [], ops: [], itemsRead: 0 }));
    const withPriorities = reads({ scanRunnable: scan, priorities: true });
    await withPriorities.reads.scanRunnable(undefined, { after: A, afterPriority: 2 });
    expect(scan).toHaveBeenLastCalledWith(undefined, 1_000, { priority: 2, id: A });
    const plain = reads({ scanRunnable: scan });
    await plain.reads.scanRunnable(undefined, { after: A });
    expect(scan).toHaveBeenLastCalledWith(
      { start: '10000000-0000-4000-8000-000000000001' },
      1_000,
      undefined,
    );
    expect(plain.calls).toEqual(['scanRunnable']);
  });

  it('ages off by the index only when the backend has both ageOffDue and deleteAgedOff', async () => {
    const ageOffDue = vi.fn(async () => []);
    const fallbackStore = { list: vi.fn(async () => []) } as unknown as FatesStore;
    const indexed = reads({ ageOffDue, deleteAgedOff: vi.fn(async () => []) } as never);
    await indexed.reads.ageOff(fallbackStore, { retentionMs: 1_000 });
    expect(ageOffDue).toHaveBeenCalled();
    expect(fallbackStore.list).not.toHaveBeenCalled();
    const half = reads({ ageOffDue } as never);
    ageOffDue.mockClear();
    await half.reads.ageOff(fallbackStore, { retentionMs: 1_000 }).catch(() => undefined);
    expect(ageOffDue).not.toHaveBeenCalled();
  });
});
