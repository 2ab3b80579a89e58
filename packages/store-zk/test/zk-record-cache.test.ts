import { randomUUID } from 'node:crypto';
import { keyedFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { newRecord, useZooKeeper } from './zk-fixture.js';

const reservation = () => ({ lockId: 'w@000000000001', uuid: randomUUID() });

// A client caches the record it just scanned or wrote and writes it next with one `set` at
// the cached version. A keyed transaction deleted and seeded again (the same id) starts
// over at version 0: a copy cached from before must not be written over it.
describe('ZooKeeper record cache across a delete and a new seed of the same id', () => {
  const zk = useZooKeeper();
  const keyed = () => keyedFateId({ type: 'cache', key: randomUUID() });
  const submitted = (priority: number, info: string) =>
    ({ ...(newRecord(Status.SUBMITTED, info) as object), priority }) as never;

  it('a claimer paused after its scan does not reserve the new seed as the old one', async () => {
    const ns = zk.space();
    const claimer = await ns.backend();
    const other = await ns.backend();
    const x = keyed();
    await other.insert(x, submitted(3, '{"n":1}'));
    expect((await claimer.scanRunnable(undefined, 10)).ids).toEqual([x]);
    // while the claimer is paused: run by another, deleted, and seeded again at another level
    const rb = reservation();
    await other.tryReserve(x, rb);
    expect(await other.write(x, rb, { delete: true })).toBe(true);
    await other.insert(x, submitted(-2, '{"n":2}'));
    const got = await claimer.tryReserve(x, reservation());
    expect(typeof got === 'object' && got.info).toBe('{"n":2}');
    const stored = await other.read(x);
    expect(stored?.priority).toBe(-2);
    expect(stored?.info).toBe('{"n":2}');
  });

  it('a holder judged dead does not write over the new seed another holds at the same version', async () => {
    const ns = zk.space();
    const holder = await ns.backend();
    const other = await ns.backend();
    const x = keyed();
    await holder.insert(x, submitted(1, '{"n":1}'));
    const ra = reservation();
    await holder.tryReserve(x, ra); // version 1, cached by the holder
    // the holder is paused, judged dead and cleared; the work runs and is deleted, seeded
    // again and reserved by another: version 1 again
    expect(await other.clearReservation(x, ra)).toBe(true);
    const rb = reservation();
    await other.tryReserve(x, rb);
    expect(await other.write(x, rb, { delete: true })).toBe(true);
    await other.insert(x, submitted(4, '{"n":2}'));
    const rc = reservation();
    await other.tryReserve(x, rc);
    expect(await holder.write(x, ra, { status: Status.IN_PROGRESS, info: '{"n":1}' })).toBe(false);
    const stored = await other.read(x);
    expect(stored?.reservation).toEqual(rc);
    expect(stored?.priority).toBe(4);
    expect(stored?.info).toBe('{"n":2}');
  });
});
