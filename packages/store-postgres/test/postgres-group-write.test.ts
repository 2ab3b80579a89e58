import { type FateId, newFateId, type Reservation, Status } from '@fate/core';
import { createStoreBackend } from '@fate/store-postgres';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { usePostgres } from './postgres-harness.js';

const t = usePostgres();

const engine: Reservation = { lockId: 'engine@1', uuid: 'e1' };
const admin: Reservation = { lockId: 'admin@1', uuid: 'a1' };

/** Every statement the pools send meanwhile: its text, and the SQLSTATE it failed with. */
function recordStatements() {
  const sent: Array<{ text: string; failed?: string }> = [];
  const query = pg.Pool.prototype.query;
  vi.spyOn(pg.Pool.prototype, 'query').mockImplementation(function (
    this: pg.Pool,
    ...args: unknown[]
  ) {
    const first = args[0] as string | { text: string };
    const entry: { text: string; failed?: string } = {
      text: typeof first === 'string' ? first : first.text,
    };
    sent.push(entry);
    const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    return result.catch((error: { code?: string }) => {
      entry.failed = error.code ?? 'unknown';
      throw error;
    });
  } as typeof pg.Pool.prototype.query);
  /** The batched statements sent (`UPDATE … FROM unnest`). */
  return () => sent.filter((s) => s.text.includes('unnest(') && s.text.startsWith('update'));
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function seeded(n: number) {
  const backend = await t.backend();
  const ids: FateId[] = [];
  for (let i = 0; i < n; i++) {
    const id = newFateId();
    await backend.insert(id, { status: Status.SUBMITTED, stack: '[1]', info: '{}', op: 'op' });
    ids.push(id);
  }
  return { backend, ids };
}

describe('postgres backend: the calls of one tick as one statement', () => {
  it('finishing writes of one tick: one statement, each fenced and answered alone', async () => {
    const { backend, ids } = await seeded(5);
    for (const id of ids) await backend.tryReserve(id, engine, true);
    const batched = recordStatements();
    const finish = { status: Status.SUCCESSFUL, stack: '[]', release: { deferMs: 0 } };
    const answers = await Promise.all(
      ids.map((id, i) =>
        backend.write(id, i === 3 ? { ...engine, uuid: 'stale' } : engine, finish),
      ),
    );
    expect(answers).toEqual([true, true, true, false, true]);
    expect(batched()).toEqual([{ text: expect.any(String) }]);
    for (const [i, id] of ids.entries()) {
      const stored = await backend.read(id);
      if (i === 3) expect(stored).toMatchObject({ status: Status.IN_PROGRESS, stack: '[1]' });
      else
        expect(stored).toMatchObject({ status: Status.SUCCESSFUL, stack: '[]', reservation: null });
    }
    // a finish is counted once per write that applied
    expect(await backend.counts()).toEqual(
      expect.arrayContaining([
        { status: Status.SUCCESSFUL, op: 'op', count: 4 },
        { status: Status.IN_PROGRESS, op: 'op', count: 1 },
      ]),
    );
  });

  it('a write the server refuses fails alone: its neighbours are sent again, each alone, and apply', async () => {
    const { backend, ids } = await seeded(3);
    for (const id of ids) await backend.tryReserve(id, engine, true);
    const batched = recordStatements();
    // PostgreSQL's text cannot hold a NUL: the whole statement fails (22021), nothing applied
    const settled = await Promise.allSettled(
      ids.map((id, i) => backend.write(id, engine, { stack: i === 1 ? '[\u0000]' : '[2]' })),
    );
    expect(batched()).toEqual([{ text: expect.any(String), failed: '22021' }]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: true });
    expect(settled[1]).toMatchObject({
      status: 'rejected',
      reason: { code: 'FATE_STORE_UNAVAILABLE' },
    });
    expect(settled[2]).toEqual({ status: 'fulfilled', value: true });
    expect((await backend.read(ids[0] as FateId))?.stack).toBe('[2]');
    expect((await backend.read(ids[1] as FateId))?.stack).toBe('[1]');
    expect((await backend.read(ids[2] as FateId))?.stack).toBe('[2]');
  });

  it('reservations that start their record, of one tick: one statement', async () => {
    // what each answers, batched or not, is the conformance suite's ("the calls of one tick")
    const { backend, ids } = await seeded(3);
    await backend.tryReserve(ids[2] as FateId, admin);
    const batched = recordStatements();
    const answers = await Promise.all(ids.map((id) => backend.tryReserve(id, engine, true)));
    expect(batched()).toEqual([{ text: expect.any(String) }]);
    expect(answers).toEqual([
      expect.objectContaining({ status: Status.SUBMITTED, reservation: engine }),
      expect.objectContaining({ status: Status.SUBMITTED, reservation: engine }),
      'held',
    ]);
  });

  it('close waits for the calls of its tick: they are sent and answered, not failed', async () => {
    const { ids } = await seeded(3);
    // a client of its own, closed by the case (not by the harness after it)
    const backend = createStoreBackend(t.url);
    await backend.open();
    const answers = Promise.all(ids.map((id) => backend.tryReserve(id, engine, true)));
    await backend.close();
    expect(await answers).toEqual(
      ids.map(() => expect.objectContaining({ status: Status.SUBMITTED, reservation: engine })),
    );
  });
});
