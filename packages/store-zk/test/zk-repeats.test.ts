import { randomUUID } from 'node:crypto';
import { FaultyBackend } from '@fate/conformance';
import { createFatesStore, newFateId, Status } from '@fate/core';
import { createStoreBackend } from '@fate/store-zk';
import { describe, expect, it } from 'vitest';
import { newRecord, useZooKeeper } from './zk-fixture.js';

// The guard repeats insert, insertMany, tryReserve, write and clearReservation with the
// same arguments when a reply is lost: each must answer the repeat as the contract says,
// and leave the indexes as if it had run once.
describe('ZooKeeper operations repeated after a lost reply', () => {
  const zk = useZooKeeper();

  it('answers repeats as the contract says and leaves one marker per reservation', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const ids = [newFateId(), newFateId(), newFateId()];
    const batch = ids.map((id) => ({ id, record: newRecord(Status.SUBMITTED) }));
    expect(await a.insertMany(batch)).toEqual([true, true, true]);
    expect(await a.insertMany(batch)).toEqual([false, false, false]);
    const id = ids[0] as (typeof ids)[number];
    const r = { lockId: 'w@000000000001', uuid: randomUUID() };
    const reserved = await a.tryReserve(id, r);
    expect(await a.tryReserve(id, r)).toEqual(reserved);
    expect(await a.reservations()).toEqual([{ id, reservation: r }]);
    expect(await a.write(id, r, { status: Status.IN_PROGRESS })).toBe(true);
    expect(await a.write(id, r, { status: Status.IN_PROGRESS })).toBe(true);
    expect(await a.clearReservation(id, r)).toBe(true);
    expect(await a.clearReservation(id, r)).toBe(false);
    expect(await a.reservations()).toEqual([]);
    const buckets = await zk.raw.get_children(`${ns.chroot}/reserved`, false);
    const markers = await Promise.all(
      buckets.map((b) => zk.raw.get_children(`${ns.chroot}/reserved/${b}`, false)),
    );
    expect(markers.flat()).toEqual([]);
    expect((await a.scanRunnable(undefined, 10)).ids).toEqual([...ids].sort());
  });

  it('seeds each transaction once when the reply to a batch insert is lost', async () => {
    const ns = zk.space();
    const faults = new FaultyBackend(createStoreBackend(ns.url));
    const store = await createFatesStore(faults);
    zk.cleanup.push(() => store.close());
    faults.inject('lose-reply', 'insertMany');
    const seeded = await store.seedMany(
      Array.from({ length: 20 }, (_, i) => ({ step: { type: 's', state: i }, opName: 'op' })),
    );
    expect(seeded.every((s) => s.created)).toBe(true);
    expect(faults.calls.get('insertMany')).toBe(2);
    const ids = seeded.map((s) => s.id).sort();
    expect((await store.list()).map((t) => t.id).sort()).toEqual(ids);
    expect((await store.scanRunnable()).ids).toEqual(ids);
  });
});
